/**
 * The first `maxBytes` bytes of `bytes` as UTF-8, cut back to a character
 * boundary so a multi-byte character is never split into a replacement mark.
 */
export function utf8Prefix(bytes: Buffer, maxBytes: number): string {
  if (bytes.length <= maxBytes) return bytes.toString('utf8');
  let end = maxBytes;
  // bytes[end] is the first byte left out; while it continues a character, that character starts before the cut.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}
