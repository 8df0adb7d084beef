/**
 * Web Crypto entry of `@svc/webhooks-verify` (`@svc/webhooks-verify/web`): the same checks as the Node
 * entry on `globalThis.crypto.subtle`, for the spec's `X-Service-Signature` and Standard Webhooks
 * (`v1` HMAC, `v1a` Ed25519), with no `node:` imports and no `Buffer`, for Cloudflare Workers, Deno, Bun,
 * Vercel Edge and browsers.
 *
 * @packageDocumentation
 * @module @svc/webhooks-verify/web
 */
import type { WebhookEventMap } from './built-in-events';
import { parseEnvelope, type WebhookEvent } from './envelope';
import { formatSignatureHeader, type SignatureHeaderInput, type VerifiedSignature } from './header';
import type { VerifyWebhookOptions } from './options';
import { prepareVerification, readSignInput } from './preflight';
import type { WebhookRawBody } from './raw-body';
import type { WebhookSecret } from './secret';
import { chooseScheme, needsSchemeChoice, type SchemeChoice } from './signature-scheme';
import type { StandardHeadersInput } from './standard-header';
import type { StandardKeys } from './standard-secret';
import { assertSignatureMatchesAsync, computeSignatureHexAsync } from './web-signature';
import { verifyStandardWebhookAsync, verifyStandardWebhookSignatureAsync } from './web-standard-webhook';

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
export {
  generateStandardKeyPairAsync,
  publicKeyOfAsync,
  signStandardWebhookAsymmetricAsync,
  signStandardWebhookAsync,
  verifyStandardWebhookAsync,
  verifyStandardWebhookSignatureAsync,
} from './web-standard-webhook';

/**
 * Web Crypto version of `verifyWebhookSignature`: same checks, same order, same error codes. Given the
 * request's headers (`request.headers`) instead of one header value, it verifies either scheme, chosen by
 * the headers present or by `options.scheme`.
 * Every failure, including those found before any cryptography, arrives as a rejection.
 *
 * @throws {@link WebhookVerificationError} (as a rejection); answer HTTP 401
 * @example
 * ```ts
 * const body = new Uint8Array(await request.arrayBuffer());
 * await verifyWebhookSignatureAsync(body, request.headers.get('x-service-signature'), env.WEBHOOK_SECRET);
 * ```
 */
export async function verifyWebhookSignatureAsync(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput | StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options?: VerifyWebhookOptions,
): Promise<VerifiedSignature> {
  const choice = choose(rawBody, header, secret, options);
  if (choice.scheme === 'standard') {
    return verifyStandardWebhookSignatureAsync(rawBody, choice.headers, choice.secret, options);
  }
  const prepared = prepareVerification(rawBody, choice.header, choice.secret, options);
  await assertSignatureMatchesAsync(prepared);
  return { timestamp: prepared.timestamp };
}

/**
 * Web Crypto version of `verifyWebhook`: verifies, then parses the envelope, typed as a union over the
 * event types so that checking `eventType` narrows `metadata`. Given the request's headers, it verifies
 * either scheme.
 *
 * @typeParam TEvents - event type → metadata type; by default {@link WebhookEventMap}
 * @throws {@link WebhookVerificationError} (as a rejection)
 * @example
 * ```ts
 * const envelope = await verifyWebhookAsync(await request.text(), request.headers, secret);
 * ```
 */
export async function verifyWebhookAsync<TEvents extends object = WebhookEventMap>(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput | StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent<TEvents>> {
  const choice = choose(rawBody, header, secret, options);
  if (choice.scheme === 'standard') {
    return verifyStandardWebhookAsync<TEvents>(rawBody, choice.headers, choice.secret, options);
  }
  const prepared = prepareVerification(rawBody, choice.header, choice.secret, options);
  await assertSignatureMatchesAsync(prepared);
  return parseEnvelope<TEvents>(prepared.body);
}

/**
 * Web Crypto version of `signWebhook`: returns the `X-Service-Signature` value for a body.
 *
 * @param timestamp - epoch milliseconds to sign with
 * @defaultValue timestamp: `Date.now()`
 * @example
 * ```ts
 * const header = await signWebhookAsync(body, secret);
 * ```
 */
export async function signWebhookAsync(
  rawBody: WebhookRawBody,
  secret: string,
  timestamp: number = Date.now(),
): Promise<string> {
  const input = readSignInput(rawBody, secret, timestamp);
  const signature = await computeSignatureHexAsync(input.secret, String(input.timestamp), input.body);
  return formatSignatureHeader(input.timestamp, signature);
}

/** The spec's call (a header value and secrets) as it always was; anything else through the scheme choice. */
function choose(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput | StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options: VerifyWebhookOptions | undefined,
): SchemeChoice {
  if (needsSchemeChoice(header, secret, options)) return chooseScheme(rawBody, header, secret, options);
  return { scheme: 'service', header: header as SignatureHeaderInput, secret: secret as WebhookSecret };
}
