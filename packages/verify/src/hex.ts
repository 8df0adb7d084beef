const HEX_DIGITS = '0123456789abcdef';

/** Lower-case hex of bytes, without `Buffer`. */
export function encodeHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    out += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!;
  }
  return out;
}

/** Bytes of a hex string the header parser already checked (even length, hex digits of either case). */
export function decodeHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = (nibble(hex.charCodeAt(2 * i)) << 4) | nibble(hex.charCodeAt(2 * i + 1));
  }
  return bytes;
}

function nibble(code: number): number {
  if (code <= 0x39) return code - 0x30; // 0-9
  return (code | 0x20) - 0x57; // a-f and A-F
}
