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

/**
 * Reads at most about `maxBytes` of a response body and returns them as text
 * (null when the body was empty).
 *
 * As soon as more than `maxBytes` have arrived the iteration stops, which
 * destroys the body stream; undici then drops the connection instead of
 * draining a huge or endless body. A body that ends within the limit is read
 * to its end, so its keep-alive connection can be reused. A read error (reset,
 * abort, timeout) keeps what was read so far: the status already decided the
 * outcome.
 */
export async function readExcerpt(body: AsyncIterable<Buffer>, maxBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) break;
    }
  } catch {
    // Keep the partial excerpt; see above.
  }
  if (size === 0) return null;
  return utf8Prefix(Buffer.concat(chunks, size), maxBytes);
}
