/**
 * Time-ordered identifiers: UUID version 7 (RFC 9562 §5.7), written in lowercase.
 *
 * Layout (128 bits): 48-bit Unix time in ms, 4-bit version `7`, 12-bit `rand_a`,
 * 2-bit variant `10`, 62-bit `rand_b`. Because the time leads and hex digits sort
 * like the bytes they encode, sorting ids as strings sorts them by creation time.
 */

import { Buffer } from 'node:buffer';

/** Matches a lowercase UUIDv7 with the RFC 9562 variant. */
const UUID_V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** `rand_a` is a 12-bit field; counter values run from 0 to this bound (exclusive). */
const COUNTER_LIMIT = 0x1000;

/**
 * A fresh millisecond seeds the counter below half its range, so at least 2,048
 * ids fit in that millisecond before the counter would roll over (RFC 9562 §6.2,
 * "fixed bit-length dedicated counter", with the top bit left as headroom).
 */
const COUNTER_SEED_LIMIT = COUNTER_LIMIT / 2;

/** ASCII codes of the lowercase hex digits. */
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;

/** Options of {@link createIdGenerator}; both exist so tests can drive edge cases. */
export interface IdGeneratorOptions {
  /**
   * Epoch-ms clock.
   * @default Date.now
   */
  now?: () => number;
  /**
   * Fills the array with random bytes.
   * @default globalThis.crypto.getRandomValues
   */
  fillRandom?: (bytes: Uint8Array) => void;
}

// Measured: docs/benchmarks.md#ids (a pooled source saved 2–4 µs per id, 3–6 % of a delivery: dropped).
function defaultFillRandom(bytes: Uint8Array): void {
  globalThis.crypto.getRandomValues(bytes);
}

/*
 * The text is written as ASCII into a reused buffer and decoded once, giving a
 * flat string. Appending 20 pieces instead builds a rope that V8 must flatten
 * the first time the id is hashed (every Map lookup of the stores), which cost
 * more than making the id.
 */
const uuidText = Buffer.alloc(36);

/** Writes the 16 bytes of a UUID in the canonical 8-4-4-4-12 form. */
function formatUuid(bytes: Uint8Array): string {
  let at = 0;
  for (let index = 0; index < 16; index++) {
    if (index === 4 || index === 6 || index === 8 || index === 10) uuidText[at++] = DASH;
    const byte = bytes[index] as number;
    uuidText[at++] = HEX_DIGITS[byte >>> 4] as number;
    uuidText[at++] = HEX_DIGITS[byte & 0x0f] as number;
  }
  return uuidText.toString('latin1');
}

/**
 * Makes a UUIDv7 generator with its own monotonic state.
 *
 * Within one millisecond the 12-bit `rand_a` field is a counter that increments
 * per id, so ids made in the same millisecond still sort in creation order. When
 * the counter would roll over, or the clock steps backwards, the generator keeps
 * counting on the last timestamp it used (moving it one ms ahead on rollover)
 * instead of ever issuing an id that sorts before an earlier one.
 *
 * @example
 * ```ts
 * const nextId = createIdGenerator();
 * nextId(); // '01919a4e-3b2c-7000-8f3a-6c1d2e4b5a69'
 * ```
 */
export function createIdGenerator(options: IdGeneratorOptions = {}): () => string {
  const now = options.now ?? Date.now;
  const fillRandom = options.fillRandom ?? defaultFillRandom;
  const bytes = new Uint8Array(16);
  let lastMs = -1;
  let counter = 0;

  return function nextId(): string {
    fillRandom(bytes);
    const wallMs = Math.floor(now());
    if (wallMs > lastMs) {
      lastMs = wallMs;
      counter = (((bytes[6] as number) << 8) | (bytes[7] as number)) % COUNTER_SEED_LIMIT;
    } else {
      counter++;
      if (counter >= COUNTER_LIMIT) {
        lastMs++;
        counter = (((bytes[6] as number) << 8) | (bytes[7] as number)) % COUNTER_SEED_LIMIT;
      }
    }
    writeTimestamp(bytes, lastMs);
    bytes[6] = 0x70 | (counter >>> 8);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
    return formatUuid(bytes);
  };
}

/** Big-endian 48-bit timestamp into bytes 0..5 (division, because bit operators are 32-bit). */
function writeTimestamp(bytes: Uint8Array, ms: number): void {
  let rest = ms;
  for (let index = 5; index >= 0; index--) {
    bytes[index] = rest % 256;
    rest = Math.floor(rest / 256);
  }
}

/** The generator behind {@link newId}: one monotonic state per process (per module instance). */
const processIdGenerator = createIdGenerator();

/**
 * Returns a new UUIDv7 (lowercase), strictly greater than every id this process
 * made before it through `newId`, so ids sort by creation order.
 *
 * @example
 * ```ts
 * const id = newId(); // '01919a4e-3b2c-7000-8f3a-6c1d2e4b5a69'
 * ```
 */
export function newId(): string {
  return processIdGenerator();
}

/** True when `value` is a lowercase UUIDv7 with the RFC 9562 variant bits. */
export function isUuidV7(value: string): boolean {
  return UUID_V7_PATTERN.test(value);
}

/** The epoch-ms timestamp encoded in a UUIDv7 (its first 48 bits). */
export function timestampOfUuidV7(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
