import { payloadTooLarge, WebhookVerificationError } from './errors';

/*
 * The size checks both body readers share (the Node stream one of the Express middleware and the Web
 * stream one of the Fetch helpers). Runtime-neutral: no `node:` imports, no `Buffer`.
 */

/** A `Content-Length` value: ASCII digits only, as RFC 9110 defines it. */
const DECIMAL_LENGTH = /^[0-9]+$/;

/**
 * Refuses a body whose `Content-Length` is over the limit, before a byte of it is read. A missing or
 * unparsable value (a list, a sign, spaces) proves nothing and is left to the byte count while reading:
 * Node's HTTP parser has already refused such requests, and a `Request` may carry any header text.
 *
 * @throws `payload_too_large`
 */
export function assertDeclaredLengthWithin(
  contentLength: string | readonly string[] | null | undefined,
  maxBodyBytes: number,
): void {
  if (typeof contentLength !== 'string' || !DECIMAL_LENGTH.test(contentLength)) return;
  // Compared as a number: digits beyond 2^53 lose precision but still compare as huge, which is the point.
  if (Number(contentLength) > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
}

/**
 * Collects a body chunk by chunk and refuses it as soon as the total passes the limit, so it never keeps
 * more than `maxBodyBytes`.
 */
export class LimitedBody {
  private readonly chunks: Uint8Array[] = [];
  private received = 0;

  constructor(private readonly maxBodyBytes: number) {}

  /**
   * Adds a chunk; throws `payload_too_large`, without keeping the chunk, once the total is over the limit.
   */
  add(chunk: Uint8Array): void {
    this.received += chunk.byteLength;
    if (this.received > this.maxBodyBytes) {
      this.chunks.length = 0;
      throw payloadTooLarge(this.maxBodyBytes);
    }
    this.chunks.push(chunk);
  }

  /** The bytes received, in order; the single chunk itself when there was only one. */
  bytes(): Uint8Array {
    if (this.chunks.length === 1) return this.chunks[0] as Uint8Array;
    const bytes = new Uint8Array(this.received);
    let offset = 0;
    for (const chunk of this.chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes;
  }
}

/** The error for a body stream that failed or ended early: the bytes that were signed never all arrived. */
export function bodyBrokeOff(cause: unknown): WebhookVerificationError {
  return new WebhookVerificationError(
    'invalid_body',
    'The request body could not be read to the end: the client closed the connection or the stream failed.',
    { cause },
  );
}
