import { describe, expect, it } from 'vitest';
import { utf8Prefix } from '../src/transport/response-excerpt';

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
