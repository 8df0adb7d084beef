import { assertDeclaredLengthWithin, bodyBrokeOff, LimitedBody } from './body-limit';
import { isWebhookVerificationError, WebhookVerificationError } from './errors';

/** Throws `invalid_body` when the body of `request` was already read: its bytes are gone. */
export function assertBodyUnread(request: Request): void {
  // `locked` too: a reader taken but not yet used leaves `bodyUsed` false, and getReader() would throw.
  if (request.bodyUsed || request.body?.locked === true) {
    throw new WebhookVerificationError(
      'invalid_body',
      'The request body was already read (request.json() or request.text() ran first). Verify before reading ' +
        'it, or pass the text you read to verifyWebhookAsync.',
    );
  }
}

/**
 * Reads an unread `Request` body as bytes, at most `maxBodyBytes` of them. Bytes, not `request.text()`:
 * decoding would replace invalid UTF-8 and change what was signed. Runtime-neutral.
 *
 * @throws `payload_too_large` as soon as `Content-Length` or the bytes read pass the limit (the stream is
 * cancelled, so the rest is neither read nor buffered); `invalid_body` when the body breaks off.
 */
export async function readRequestBody(request: Request, maxBodyBytes: number): Promise<Uint8Array> {
  assertDeclaredLengthWithin(request.headers.get('content-length'), maxBodyBytes);
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const body = new LimitedBody(maxBodyBytes);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return body.bytes();
      body.add(value);
    }
  } catch (error) {
    // Cancelling tells the platform to stop receiving the upload. Not awaited: a source whose cancel never
    // settles must not hold the answer back.
    reader.cancel(error).catch(() => {});
    throw isWebhookVerificationError(error) ? error : bodyBrokeOff(error);
  }
}
