import { describe, expect, it } from 'vitest';
import { createIdGenerator, isUuidV7, newId, timestampOfUuidV7 } from '../src/ids';

/** A clock the test moves by hand. */
function manualClock(start: number) {
  let current = start;
  return { now: () => current, set: (ms: number) => (current = ms) };
}

/** A random source that fills every byte with `value`. */
function constantBytes(value: number) {
  return (bytes: Uint8Array) => {
    bytes.fill(value);
  };
}

function randA(id: string): number {
  return Number.parseInt(id.slice(15, 18), 16);
}

describe('newId()', () => {
  it('returns 10,000 valid, distinct UUIDv7s in strictly increasing order when called in a tight loop', () => {
    const ids = Array.from({ length: 10_000 }, () => newId());
    for (const id of ids) expect(isUuidV7(id)).toBe(true);
    for (let index = 1; index < ids.length; index++) {
      expect(ids[index - 1]! < ids[index]!).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('createIdGenerator()', () => {
  it('encodes the wall-clock time in the first 48 bits by default', () => {
    const next = createIdGenerator();
    const before = Date.now();
    const id = next();
    const after = Date.now();
    expect(timestampOfUuidV7(id)).toBeGreaterThanOrEqual(before);
    expect(timestampOfUuidV7(id)).toBeLessThanOrEqual(after);
  });

  it('writes version 7 and the RFC 9562 variant whatever the random bytes are', () => {
    for (const fill of [0x00, 0xff, 0x5a]) {
      const id = createIdGenerator({ now: () => 1_700_000_000_000, fillRandom: constantBytes(fill) })();
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
      expect(isUuidV7(id)).toBe(true);
    }
  });

  it('counts up in rand_a within one millisecond', () => {
    const next = createIdGenerator({ now: () => 1_700_000_000_000, fillRandom: constantBytes(0) });
    const ids = [next(), next(), next()];
    expect(ids.map(randA)).toEqual([0, 1, 2]);
    expect(ids.map(timestampOfUuidV7)).toEqual([1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_000]);
  });

  it('reseeds the counter from random bits below 2048 when the millisecond changes', () => {
    const clock = manualClock(1_700_000_000_000);
    const next = createIdGenerator({ now: clock.now, fillRandom: constantBytes(0xff) });
    expect(randA(next())).toBe(0x7ff);
    clock.set(1_700_000_000_001);
    expect(randA(next())).toBe(0x7ff);
  });

  it('moves the timestamp one ms ahead instead of wrapping when the counter runs out', () => {
    const next = createIdGenerator({ now: () => 1_700_000_000_000, fillRandom: constantBytes(0xff) });
    const ids = Array.from({ length: 2_050 }, () => next());
    for (let index = 1; index < ids.length; index++) expect(ids[index - 1]! < ids[index]!).toBe(true);
    expect(timestampOfUuidV7(ids[2_048]!)).toBe(1_700_000_000_000);
    expect(timestampOfUuidV7(ids[2_049]!)).toBe(1_700_000_000_001);
  });

  it('keeps ids increasing when the clock steps backwards', () => {
    const clock = manualClock(1_700_000_000_500);
    const next = createIdGenerator({ now: clock.now });
    const first = next();
    clock.set(1_700_000_000_000);
    const second = next();
    expect(second > first).toBe(true);
    expect(timestampOfUuidV7(second)).toBe(1_700_000_000_500);
  });

  it('gives ids of later milliseconds a greater value than any earlier one', () => {
    const clock = manualClock(1_700_000_000_000);
    const next = createIdGenerator({ now: clock.now, fillRandom: constantBytes(0xff) });
    const early = next();
    clock.set(1_700_000_000_001);
    const late = createIdGenerator({ now: clock.now, fillRandom: constantBytes(0) })();
    expect(late > early).toBe(true);
  });
});

describe('isUuidV7()', () => {
  it.each([
    ['01919a4e-3b2c-7000-8f3a-6c1d2e4b5a69', true],
    ['01919a4e-3b2c-7fff-bf3a-6c1d2e4b5a69', true],
    ['01919A4E-3B2C-7000-8F3A-6C1D2E4B5A69', false],
    ['01919a4e-3b2c-4000-8f3a-6c1d2e4b5a69', false],
    ['01919a4e-3b2c-7000-cf3a-6c1d2e4b5a69', false],
    ['01919a4e3b2c70008f3a6c1d2e4b5a69', false],
    ['', false],
  ])('isUuidV7(%j) is %s', (value, expected) => {
    expect(isUuidV7(value)).toBe(expected);
  });
});
