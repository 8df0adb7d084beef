import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../src/transport/retry-after';

const now = Date.parse('2025-06-01T12:00:00Z');

describe('parseRetryAfter(value, now)', () => {
  const cases: Array<[string | string[] | undefined, number | null]> = [
    ['120', 120_000],
    ['0', 0],
    [' 30 ', 30_000],
    [['5', '60'], 5_000],
    ['Sun, 01 Jun 2025 12:01:00 GMT', 60_000],
    ['Sun, 01 Jun 2025 11:00:00 GMT', 0],
    ['Sunday, 01-Jun-25 12:00:10 GMT', 10_000],
    ['-5', null],
    ['1.5', null],
    ['2025-06-01', null],
    ['soon', null],
    ['', null],
    [undefined, null],
  ];
  it.each(cases)('%j -> %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
