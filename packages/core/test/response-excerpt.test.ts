import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readExcerpt, utf8Prefix } from '../src/response-excerpt';

describe('utf8Prefix(bytes, maxBytes)', () => {
  it('keeps a body within the limit whole', () => {
    expect(utf8Prefix(Buffer.from('hello'), 5)).toBe('hello');
  });

  it('cuts an ASCII body at the limit', () => {
    expect(utf8Prefix(Buffer.from('hello world'), 5)).toBe('hello');
  });

  it('never splits a multi-byte character', () => {
    // 'é' is 2 bytes and '€' is 3: a cut inside either drops the whole character.
    expect(utf8Prefix(Buffer.from('aé'), 2)).toBe('a');
    expect(utf8Prefix(Buffer.from('a€b'), 3)).toBe('a');
    expect(utf8Prefix(Buffer.from('a€b'), 4)).toBe('a€');
    expect(utf8Prefix(Buffer.from('😀😀'), 7)).toBe('😀');
  });
});

describe('readExcerpt(body, maxBytes)', () => {
  it('returns null for an empty body', async () => {
    expect(await readExcerpt(Readable.from([]), 10)).toBeNull();
  });

  it('joins chunks, stops reading once past the limit and destroys the body', async () => {
    async function* endless() {
      for (;;) yield Buffer.from('abcd');
    }
    const body = Readable.from(endless());
    expect(await readExcerpt(body, 10)).toBe('abcdabcdab');
    expect(body.destroyed).toBe(true);
  });

  it('keeps what was read before the body failed', async () => {
    async function* failing() {
      yield Buffer.from('partial');
      throw new Error('socket reset');
    }
    expect(await readExcerpt(Readable.from(failing()), 100)).toBe('partial');
  });
});
