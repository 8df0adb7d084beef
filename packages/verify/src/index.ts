/**
 * Node entry of `@svc/webhooks-verify`: verifies the spec's `X-Service-Signature` and Standard Webhooks
 * (`webhook-signature`, `v1` HMAC and `v1a` Ed25519) with `node:crypto`.
 * For edge runtimes and browsers import `@svc/webhooks-verify/web` instead.
 *
 * @packageDocumentation
 * @module @svc/webhooks-verify
 */
import type { WebhookEventMap } from './built-in-events';
import { parseEnvelope, type WebhookEvent } from './envelope';
import { formatSignatureHeader, type SignatureHeaderInput, type VerifiedSignature } from './header';
import { assertSignatureMatches, computeSignatureHex } from './node-signature';
import { verifyStandardWebhook, verifyStandardWebhookSignature } from './node-standard-webhook';
import type { VerifyWebhookOptions } from './options';
import { prepareVerification, readSignInput } from './preflight';
import type { WebhookRawBody } from './raw-body';
import type { WebhookSecret } from './secret';
import { chooseScheme, needsSchemeChoice } from './signature-scheme';
import type { StandardHeadersInput } from './standard-header';
import type { StandardKeys } from './standard-secret';

export type {
  FulfilmentRating,
  InvoiceApprovedMetadata,
  JobCancelledMetadata,
  JobCompletedMetadata,
  JobCreatedMetadata,
  JobFulfilmentRatingSubmittedMetadata,
  MessageSentMetadata,
  PropertyAddress,
  PropertyCreatedMetadata,
  QuoteApprovedMetadata,
  WebhookEventMap,
  WebhookTestMetadata,
} from './built-in-events';
export type { WebhookCreatedByRole, WebhookEntityType, WebhookEnvelope, WebhookEvent } from './envelope';
export type { WebhookVerificationErrorCode } from './errors';
export { isWebhookVerificationError, WebhookVerificationError } from './errors';
export type { ParsedSignatureHeader, SignatureHeaderInput, VerifiedSignature } from './header';
export { parseSignatureHeader, SIGNATURE_HEADER } from './header';
export {
  generateStandardKeyPair,
  publicKeyOf,
  signStandardWebhook,
  signStandardWebhookAsymmetric,
  verifyStandardWebhook,
  verifyStandardWebhookSignature,
} from './node-standard-webhook';
export type { VerifyWebhookOptions, WebhookSignatureScheme } from './options';
export { DEFAULT_TOLERANCE_MS } from './options';
export type { WebhookRawBody } from './raw-body';
export type { WebhookSecret } from './secret';
export type { StandardHeadersInput, StandardVerifiedSignature } from './standard-header';
export { STANDARD_WEBHOOK_HEADERS } from './standard-header';
export type { JsonWebKeyInput, StandardKeyPair, StandardWebhookJwk } from './standard-key';
export { publicKeyToJwk } from './standard-key';
export type { StandardKeys } from './standard-secret';
export { toStandardSecret } from './standard-secret';

/**
 * Verifies a delivery's signature without parsing its body: the hot path, and the call for receivers
 * that parse on their own. Checks, in order: the body is raw (a string or bytes), the header, the
 * secret, the timestamp tolerance, then the HMAC in constant time.
 *
 * Pass the request's headers instead of one header value to accept either scheme: a delivery with
 * `webhook-signature` is verified as Standard Webhooks (see {@link verifyStandardWebhookSignature}), any
 * other by `X-Service-Signature`; `options.scheme` forces one. A header value keeps the spec's meaning.
 *
 * @param rawBody - the request body exactly as received (string, `Buffer` or `Uint8Array`)
 * @param header - the `X-Service-Signature` header value, or the request's headers (`req.headers`,
 * `request.headers`)
 * @param secret - the signing secret, or several during a rotation (valid when any matches); for Standard
 * Webhooks also `whsec_` secrets, `whpk_` public keys or a {@link StandardKeys}
 * @throws {@link WebhookVerificationError} with a stable `code`; answer HTTP 401
 * @example
 * ```ts
 * const { timestamp } = verifyWebhookSignature(req.body, req.headers['x-service-signature'], secret);
 * verifyWebhookSignature(req.body, req.headers, secret); // either scheme, by the headers present
 * ```
 */
export function verifyWebhookSignature(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput | StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options?: VerifyWebhookOptions,
): VerifiedSignature {
  let serviceHeader = header as SignatureHeaderInput;
  let serviceSecret = secret as WebhookSecret;
  if (needsSchemeChoice(header, secret, options)) {
    const choice = chooseScheme(rawBody, header, secret, options);
    if (choice.scheme === 'standard') {
      return verifyStandardWebhookSignature(rawBody, choice.headers, choice.secret, options);
    }
    serviceHeader = choice.header;
    serviceSecret = choice.secret;
  }
  const prepared = prepareVerification(rawBody, serviceHeader, serviceSecret, options);
  assertSignatureMatches(prepared);
  return { timestamp: prepared.timestamp };
}

/**
 * Verifies a delivery and returns its parsed envelope. Runs every check of
 * {@link verifyWebhookSignature} first; the body is parsed only once the signature holds. Given the
 * request's headers, it verifies either scheme, as {@link verifyWebhookSignature} does.
 *
 * The result is typed as a union over the event types (a {@link WebhookEvent}): checking `eventType`
 * narrows `metadata`. Only the JSON object is checked at run time, not its fields: the signature proves
 * the service wrote it.
 *
 * @typeParam TEvents - event type → metadata type; by default {@link WebhookEventMap}, the built-in
 * events and `webhook_test`. Pass your own map when the host defines more event types.
 * @throws {@link WebhookVerificationError}; `invalid_body` when the verified body is not a JSON object
 * @example
 * ```ts
 * const event = verifyWebhook(req.body, req.headers['x-service-signature'], process.env.WEBHOOK_SECRET!);
 * if (event.eventType === 'job_created') console.log(event.metadata.jobNumber); // number
 * ```
 */
export function verifyWebhook<TEvents extends object = WebhookEventMap>(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput | StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options?: VerifyWebhookOptions,
): WebhookEvent<TEvents> {
  let serviceHeader = header as SignatureHeaderInput;
  let serviceSecret = secret as WebhookSecret;
  if (needsSchemeChoice(header, secret, options)) {
    const choice = chooseScheme(rawBody, header, secret, options);
    if (choice.scheme === 'standard') {
      return verifyStandardWebhook<TEvents>(rawBody, choice.headers, choice.secret, options);
    }
    serviceHeader = choice.header;
    serviceSecret = choice.secret;
  }
  const prepared = prepareVerification(rawBody, serviceHeader, serviceSecret, options);
  assertSignatureMatches(prepared);
  return parseEnvelope<TEvents>(prepared.body);
}

/**
 * Signs a body as the service does and returns the `X-Service-Signature` value. For tests of your
 * receiver, and used by `@svc/webhooks-core` to sign deliveries. For Standard Webhooks see
 * {@link signStandardWebhook}.
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
