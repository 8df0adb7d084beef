/**
 * Redis Cluster's key hashing: the slot of a key is CRC16 (XMODEM) of its hash
 * tag, mod 16384. The tag is what lies between the first `{` and the first `}`
 * after it, when that is not empty; otherwise the whole name is hashed.
 */

/** Slots of a Redis Cluster. */
const SLOTS = 16_384;

/** The part of `key` Redis hashes: its tag, or the whole key when it has none (or an empty one). */
export function hashedPart(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/** The hash tag of `key`, or null when Redis hashes the whole name. */
export function hashTag(key: string): string | null {
  const part = hashedPart(key);
  return part === key ? null : part;
}

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte += 1) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

/** The cluster slot of `key`. */
export function keySlot(key: string): number {
  let crc = 0;
  for (const byte of Buffer.from(hashedPart(key))) {
    crc = ((crc << 8) & 0xffff) ^ (CRC16_TABLE[((crc >> 8) ^ byte) & 0xff] ?? 0);
  }
  return crc % SLOTS;
}
