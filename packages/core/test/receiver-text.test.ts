import { describe, expect, it } from 'vitest';
import { cleanExcerpt, cleanLine } from '../src/transport/response-excerpt';

/** Every character the cleaning removes, one of each kind. */
const REMOVED = [
  ['NUL', '\u0000'],
  ['ESC', '\u001b'],
  ['CR', '\r'],
  ['vertical tab', '\u000b'],
  ['form feed', '\u000c'],
  ['DEL', '\u007f'],
  ['C1 NEL', '\u0085'],
  ['C1 CSI', '\u009b'],
  ['right-to-left override', '\u202e'],
  ['left-to-right embedding', '\u202a'],
  ['first strong isolate', '\u2068'],
  ['pop directional isolate', '\u2069'],
] as const;

describe('cleanExcerpt(text)', () => {
  it.each(REMOVED)('removes %s', (_name, character) => {
    expect(cleanExcerpt(`a${character}b`)).toBe('ab');
  });

  it('keeps tabs and line feeds, the layout of a JSON or HTML body; CRLF becomes LF', () => {
    expect(cleanExcerpt('{\r\n\t"error": "down"\r\n}')).toBe('{\n\t"error": "down"\n}');
  });

  it('keeps printable text of every script, emoji and U+FFFD as they are', () => {
    const text = 'Ошибка: 服务不可用 😀 � — «ok»';
    expect(cleanExcerpt(text)).toBe(text);
  });

  it('turns a terminal escape sequence into inert text', () => {
    expect(cleanExcerpt('\u001b[2J\u001b[31mFAKE LOG LINE\u001b[0m')).toBe('[2J[31mFAKE LOG LINE[0m');
  });
});

describe('cleanLine(text, maxChars)', () => {
  const removedFromLines: (readonly [string, string])[] = [...REMOVED, ['tab', '\t'], ['line feed', '\n']];
  it.each(removedFromLines)('removes %s', (_name, character) => {
    expect(cleanLine(`https://x.example/${character}next`, 300)).toBe('https://x.example/next');
  });

  it('cuts to maxChars after cleaning', () => {
    expect(cleanLine(`${'\u0000'.repeat(10)}${'a'.repeat(20)}`, 5)).toBe('aaaaa');
  });

  it('never splits a surrogate pair at the cut', () => {
    expect(cleanLine('ab😀c', 3)).toBe('ab');
    expect(cleanLine('ab😀c', 4)).toBe('ab😀');
  });
});
