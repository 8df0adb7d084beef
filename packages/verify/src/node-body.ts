import { Buffer } from 'node:buffer';
import { assertDeclaredLengthWithin, bodyBrokeOff, LimitedBody } from './body-limit';
import { isWebhookVerificationError, WebhookVerificationError } from './errors';

/** The parts of a Node request stream (`http.IncomingMessage`) the reader uses. */
export interface NodeBodyStream {
  headers: Record<string, string | string[] | undefined>;
  readableDidRead?: boolean;
  readableEnded?: boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  resume(): unknown;
}

/** Whether `value` can be read as a Node request stream: what Express passes as `req`. */
export function isNodeBodyStream<T extends object>(value: T): value is T & NodeBodyStream {
  const stream = value as Partial<NodeBodyStream>;
  return (
    typeof stream.on === 'function' &&
    typeof stream.removeListener === 'function' &&
    typeof stream.resume === 'function'
  );
}

/**
 * Reads a Node request stream to its end, at most `maxBodyBytes` of it, and returns the bytes as a
 * `Buffer` (what `express.raw()` would have put on `req.body`).
 *
 * On a refusal the stream is resumed with no listener for its data: the rest of the body is read off the
 * socket and dropped, never buffered, and the socket is not left stalled with a full receive queue. This is
 * body-parser's `dump`, except that the answer does not wait for the body to end (it may never end): the
 * middleware answers at once and closes the connection (see `closeIfBodyPending` in express.ts).
 *
 * @throws `payload_too_large` as soon as `Content-Length` or the bytes read pass the limit; `invalid_body`
 * when the stream was already read by something else, or breaks off (the client hung up).
 */
export async function readNodeBody(stream: NodeBodyStream, maxBodyBytes: number): Promise<Buffer> {
  assertDeclaredLengthWithin(stream.headers['content-length'], maxBodyBytes);
  if (stream.readableDidRead === true || stream.readableEnded === true) {
    // Another middleware consumed the stream without leaving the bytes on req.body; waiting for its 'end'
    // would wait forever.
    throw new WebhookVerificationError(
      'invalid_body',
      'The request body was already read by another middleware, which did not leave it on req.body. Mount ' +
        'verifyWebhookMiddleware before anything that reads the body (or mount express.raw() before it, which ' +
        'leaves the bytes on req.body).',
    );
  }
  const bytes = await collect(stream, new LimitedBody(maxBodyBytes));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function collect(stream: NodeBodyStream, body: LimitedBody): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Uint8Array) => {
      try {
        body.add(chunk);
      } catch (error) {
        stop(error);
      }
    };
    const onEnd = () => {
      detach();
      resolve(body.bytes());
    };
    const onError = (error: Error) => stop(error);
    // 'close' before 'end' is a request the client abandoned; after 'end' the listener is already gone.
    const onClose = () => stop(new Error('the request closed before its body ended'));
    const detach = () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.removeListener('close', onClose);
    };
    const stop = (error: unknown) => {
      detach();
      // A late error from the dropped remainder (the client hanging up after the answer) must not go
      // unhandled and crash the process.
      stream.on('error', ignore);
      stream.resume();
      reject(isWebhookVerificationError(error) ? error : bodyBrokeOff(error));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

function ignore(): void {}
