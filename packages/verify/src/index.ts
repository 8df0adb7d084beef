/**
 * Node entry of `@svc/webhooks-verify`: verifies `X-Service-Signature` with `node:crypto`.
 * For edge runtimes and browsers import `@svc/webhooks-verify/web` instead.
 *
 * @packageDocumentation
 * @module @svc/webhooks-verify
 */
import { parseEnvelope, type WebhookEnvelope } from './envelope';
import { formatSignatureHeader, type SignatureHeaderInput, type VerifiedSignature } from './header';
import { assertSignatureMatches, computeSignatureHex } from './node-signature';
import type { VerifyWebhookOptions } from './options';
import { prepareVerification, readSignInput } from './preflight';
import type { WebhookRawBody } from './raw-body';
import type { WebhookSecret } from './secret';

export type { WebhookCreatedByRole, WebhookEntityType, WebhookEnvelope } from './envelope';
export type { WebhookVerificationErrorCode } from './errors';
export { isWebhookVerificationError, WebhookVerificationError } from './errors';
export type { ParsedSignatureHeader, SignatureHeaderInput, VerifiedSignature } from './header';
export { parseSignatureHeader, SIGNATURE_HEADER } from './header';
export type { VerifyWebhookOptions } from './options';
export { DEFAULT_TOLERANCE_MS } from './options';
export type { WebhookRawBody } from './raw-body';
export type { WebhookSecret } from './secret';

/**
 * Verifies a delivery's signature without parsing its body: the hot path, and the call for receivers
 * that parse on their own. Checks, in order: the body is raw (a string or bytes), the header, the
 * secret, the timestamp tolerance, then the HMAC in constant time.
 *
 * @param rawBody - the request body exactly as received (string, `Buffer` or `Uint8Array`)
 * @param header - the `X-Service-Signature` header value
 * @param secret - the signing secret, or several during a rotation (valid when any matches)
 * @throws {@link WebhookVerificationError} with a stable `code`; answer HTTP 401
 * @example
 * ```ts
 * const { timestamp } = verifyWebhookSignature(req.body, req.headers['x-service-signature'], secret);
 * ```
 */
export function verifyWebhookSignature(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): VerifiedSignature {
  const prepared = prepareVerification(rawBody, header, secret, options);
  assertSignatureMatches(prepared);
  return { timestamp: prepared.timestamp };
}

/**
 * Verifies a delivery and returns its parsed envelope. Runs every check of
 * {@link verifyWebhookSignature} first; the body is parsed only once the signature holds.
 *
 * @typeParam TMetadata - shape of `metadata` for the event types you handle
 * @throws {@link WebhookVerificationError}; `invalid_body` when the verified body is not a JSON object
 * @example
 * ```ts
 * app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *   const envelope = verifyWebhook(req.body, req.headers['x-service-signature'], process.env.WEBHOOK_SECRET!);
 *   res.sendStatus(204);
 * });
 * ```
 */
export function verifyWebhook<TMetadata = Record<string, unknown>>(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): WebhookEnvelope<TMetadata> {
  const prepared = prepareVerification(rawBody, header, secret, options);
  assertSignatureMatches(prepared);
  return parseEnvelope<TMetadata>(prepared.body);
}

/**
 * Signs a body as the service does and returns the `X-Service-Signature` value. For tests of your
 * receiver, and used by `@svc/webhooks-core` to sign deliveries.
 *
 * @param timestamp - epoch milliseconds to sign with
 * @defaultValue timestamp: `Date.now()`
 * @example
 * ```ts
 * const header = signWebhook(JSON.stringify(envelope), secret); // "t=1700000000000,v1=9c4e…"
 * ```
 */
export function signWebhook(rawBody: WebhookRawBody, secret: string, timestamp: number = Date.now()): string {
  const input = readSignInput(rawBody, secret, timestamp);
  return formatSignatureHeader(
    input.timestamp,
    computeSignatureHex(input.secret, String(input.timestamp), input.body),
  );
}
