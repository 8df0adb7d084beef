import { describe, expect, it } from 'vitest';
import { toTerminalJson, toTerminalText } from '../src/terminal-text';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the tests look for control characters.
const ANY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('toTerminalText', () => {
  it.each([
    ['a CSI colour code', '\u001b[31mred\u001b[0m', '\\u001b[31mred\\u001b[0m'],
    ['a CSI clear screen', 'a\u001b[2Jb', 'a\\u001b[2Jb'],
    ['an OSC title set ended by BEL', '\u001b]0;pwned\u0007text', '\\u001b]0;pwned\\u0007text'],
    ['an OSC title set ended by ST (ESC \\)', '\u001b]0;pwned\u001b\\text', '\\u001b]0;pwned\\u001b\\text'],
    [
      'an OSC 8 hyperlink',
      '\u001b]8;;https://evil.example\u0007x',
      '\\u001b]8;;https://evil.example\\u0007x',
    ],
    ['a C1 CSI (U+009B)', '\u009b2Jafter', '\\u009b2Jafter'],
    ['a C1 OSC (U+009D) and ST (U+009C)', '\u009d0;t\u009c', '\\u009d0;t\\u009c'],
    ['a bare ESC', 'a\u001bb', 'a\\u001bb'],
    ['NUL', 'a\u0000b', 'a\\u0000b'],
    ['DEL', 'a\u007fb', 'a\\u007fb'],
    ['BEL, backspace and form feed', '\u0007\b\f', '\\u0007\\b\\f'],
    ['vertical tab', 'a\u000bb', 'a\\u000bb'],
    ['a CR that would overwrite the line', 'valid: ok\rinvalid', 'valid: ok\\rinvalid'],
    ['a CR at the end', 'ok\r', 'ok\\r'],
  ])('shows %s as escapes instead of sending it to the terminal', (_name, input, expected) => {
    const output = toTerminalText(input);
    expect(output).toBe(expected);
    expect(output).not.toMatch(ANY_CONTROL);
  });

  it('keeps \\n and \\t, so multi-line and pretty-printed bodies stay as they are', () => {
    const body = '{\n\t"a": 1,\n  "b": [\n    2\n  ]\n}\n';
    expect(toTerminalText(body)).toBe(body);
  });

  it('keeps non-ASCII text and emoji, including characters just past C1', () => {
    const text = 'Café é à ü ñ 日本語 \u00a0\u00a9 🚀👩‍💻';
    expect(toTerminalText(text)).toBe(text);
  });

  it('turns a CRLF line ending into \\n, but escapes a CR that is not before \\n', () => {
    expect(toTerminalText('one\r\ntwo\r\n')).toBe('one\ntwo\n');
    expect(toTerminalText('a\r\r\nb')).toBe('a\\r\nb');
  });

  it('escapes every C0 but \\t and \\n, DEL and every C1, and nothing else below U+00A0', () => {
    for (let code = 0; code < 0xa0; code += 1) {
      const character = String.fromCharCode(code);
      const output = toTerminalText(character);
      const isControl = (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
      if (isControl) expect(output).toMatch(/^\\(u00[0-9a-f]{2}|[bfr])$/);
      else expect(output).toBe(character);
    }
  });

  it('writes each escape as JSON writes it, so text and --json output show the same', () => {
    const c0 = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code))
      .filter((character) => character !== '\t' && character !== '\n')
      .join('');
    expect(toTerminalText(c0)).toBe(JSON.stringify(c0).slice(1, -1));
  });

  it('leaves text that is already escaped alone, so nothing is escaped twice', () => {
    expect(toTerminalText('\\u001b[2J')).toBe('\\u001b[2J');
    expect(toTerminalText(toTerminalText('\u001b[2J'))).toBe(toTerminalText('\u001b[2J'));
  });
});

describe('toTerminalJson', () => {
  const hostile = {
    excerpt: '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u007f\u0000\r\n\t"é 🚀"',
    nested: ['\u0085', { key: '\u009d' }],
  };

  it('is valid JSON of the same value, with no control character but the newlines of its layout', () => {
    const json = toTerminalJson(hostile);
    expect(JSON.parse(json)).toEqual(hostile);
    expect(json).not.toMatch(ANY_CONTROL);
    expect(json).toContain('\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u007f\\u0000\\r\\n\\t\\"é 🚀\\"');
  });

  it('passes toTerminalText unchanged: nothing is escaped twice', () => {
    const json = toTerminalJson(hostile);
    expect(toTerminalText(json)).toBe(json);
  });

  it('is JSON.stringify with two spaces for a value without control characters', () => {
    const value = { a: [1, 'two', null], b: { c: 'Café 🚀' } };
    expect(toTerminalJson(value)).toBe(JSON.stringify(value, null, 2));
  });
});
