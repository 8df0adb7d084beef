/**
 * Web Crypto entry of `@svc/webhooks-verify` (`@svc/webhooks-verify/web`): the same checks as the Node
 * entry on `globalThis.crypto.subtle`, with no `node:` imports and no `Buffer`, for Cloudflare Workers,
 * Deno, Bun, Vercel Edge and browsers.
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
import { assertSignatureMatchesAsync, computeSignatureHexAsync } from './web-signature';

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
export type { VerifyWebhookOptions } from './options';
export { DEFAULT_TOLERANCE_MS } from './options';
export type { WebhookRawBody } from './raw-body';
export type { WebhookSecret } from './secret';

/**
 * Web Crypto version of `verifyWebhookSignature`: same checks, same order, same error codes.
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
  header: SignatureHeaderInput,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): Promise<VerifiedSignature> {
  const prepared = prepareVerification(rawBody, header, secret, options);
  await assertSignatureMatchesAsync(prepared);
  return { timestamp: prepared.timestamp };
}

/**
 * Web Crypto version of `verifyWebhook`: verifies, then parses the envelope, typed as a union over the
 * event types so that checking `eventType` narrows `metadata`.
 *
 * @typeParam TEvents - event type → metadata type; by default {@link WebhookEventMap}
 * @throws {@link WebhookVerificationError} (as a rejection)
 * @example
 * ```ts
 * const envelope = await verifyWebhookAsync(await request.text(), request.headers.get('x-service-signature'), secret);
 * ```
 */
export async function verifyWebhookAsync<TEvents extends object = WebhookEventMap>(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent<TEvents>> {
  const prepared = prepareVerification(rawBody, header, secret, options);
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
