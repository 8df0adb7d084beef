import type { Readable } from 'node:stream';

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

function ignoreError(): void {}

/**
 * Reads at most about `maxBytes` of a response body and returns them as text
 * (null when the body was empty).
 *
 * As soon as more than `maxBytes` have arrived the stream is destroyed, so
 * undici drops the connection instead of draining a huge or endless body. A body
 * that ends within the limit is read to its end, so its keep-alive connection can
 * be reused. A read error (reset, abort, timeout) keeps what was read so far: the
 * status already decided the outcome.
 *
 * Plain `data` events rather than `for await`: an async iterator per response
 * costs more than the rest of reading a small body.
 */
export function readExcerpt(body: Readable, maxBytes: number): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      body.off('data', onData);
      body.off('end', finish);
      body.off('error', finish);
      body.off('close', finish);
      resolve(size === 0 ? null : utf8Prefix(Buffer.concat(chunks, size), maxBytes));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        finish();
        body.destroy();
      }
    };
    // Destroying the body (or a reset after we stopped listening) emits an error
    // no one else listens for; it must not become an uncaught exception.
    body.on('error', ignoreError);
    body.on('data', onData);
    body.once('end', finish);
    body.once('error', finish);
    body.once('close', finish);
  });
}
