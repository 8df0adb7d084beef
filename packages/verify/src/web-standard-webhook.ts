import type { WebhookEventMap } from './built-in-events';
import { parseEnvelope, type WebhookEvent } from './envelope';
import type { VerifyWebhookOptions } from './options';
import type { WebhookRawBody } from './raw-body';
import type { WebhookSecret } from './secret';
import type { StandardHeadersInput, StandardVerifiedSignature } from './standard-header';
import type { StandardKeyPair } from './standard-key';
import {
  nowInSeconds,
  prepareStandardVerification,
  readStandardSignBody,
  standardSignPrefix,
} from './standard-preflight';
import { readSigningSecret, type StandardKeys } from './standard-secret';
import { generateKeyPairAsync, publicKeyFromPrivateAsync } from './web-ed25519';
import { assertStandardSignatureMatchesAsync, signV1Async, signV1aAsync } from './web-standard-signature';

/*
 * The Standard Webhooks functions of the Web Crypto entry (`@svc/webhooks-verify/web`): async twins of
 * the Node entry's, with the same checks, order and error codes. Every failure, including those found
 * before any cryptography, arrives as a rejection.
 */

/**
 * Web Crypto version of `verifyStandardWebhookSignature`: verifies `v1` (HMAC-SHA256) and `v1a`
 * (Ed25519) entries of `webhook-signature` without parsing the body.
 *
 * @throws {@link WebhookVerificationError} (as a rejection); answer HTTP 401. `web_crypto_unavailable`
 * when the runtime has no Web Crypto, or no Ed25519 and a `v1a` check is needed.
 * @example
 * ```ts
 * const body = new Uint8Array(await request.arrayBuffer());
 * const { id } = await verifyStandardWebhookSignatureAsync(body, request.headers, env.WEBHOOK_SECRET);
 * ```
 */
export async function verifyStandardWebhookSignatureAsync(
  rawBody: WebhookRawBody,
  headers: StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options?: VerifyWebhookOptions,
): Promise<StandardVerifiedSignature> {
  const prepared = prepareStandardVerification(rawBody, headers, secret, options);
  await assertStandardSignatureMatchesAsync(prepared);
  return { timestamp: prepared.timestamp, id: prepared.id };
}

/**
 * Web Crypto version of `verifyStandardWebhook`: verifies, then parses the envelope.
 *
 * @typeParam TEvents - event type → metadata type; by default {@link WebhookEventMap}
 * @throws {@link WebhookVerificationError} (as a rejection)
 * @example
 * ```ts
 * const event = await verifyStandardWebhookAsync(await request.text(), request.headers, jwks);
 * ```
 */
export async function verifyStandardWebhookAsync<TEvents extends object = WebhookEventMap>(
  rawBody: WebhookRawBody,
  headers: StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent<TEvents>> {
  const prepared = prepareStandardVerification(rawBody, headers, secret, options);
  await assertStandardSignatureMatchesAsync(prepared);
  return parseEnvelope<TEvents>(prepared.body);
}

/**
 * Web Crypto version of `signStandardWebhook`: returns the `v1,<base64>` entry of `webhook-signature`.
 *
 * @param timestampSeconds - epoch **seconds**
 * @defaultValue timestampSeconds: `Math.floor(Date.now() / 1000)`
 * @example
 * ```ts
 * const signature = await signStandardWebhookAsync(body, secret, 'whdel_01', seconds);
 * ```
 */
export async function signStandardWebhookAsync(
  rawBody: WebhookRawBody,
  secret: string,
  id: string,
  timestampSeconds: number = nowInSeconds(),
): Promise<string> {
  const body = readStandardSignBody(rawBody);
  const key = readSigningSecret(secret);
  return signV1Async(key, standardSignPrefix(id, timestampSeconds), body);
}

/**
 * Web Crypto version of `signStandardWebhookAsymmetric`: returns the `v1a,<base64>` (Ed25519) entry of
 * `webhook-signature`.
 *
 * @param timestampSeconds - epoch **seconds**
 * @defaultValue timestampSeconds: `Math.floor(Date.now() / 1000)`
 * @example
 * ```ts
 * const signature = await signStandardWebhookAsymmetricAsync(body, privateKey, 'whdel_01', seconds);
 * ```
 */
export async function signStandardWebhookAsymmetricAsync(
  rawBody: WebhookRawBody,
  privateKey: string,
  id: string,
  timestampSeconds: number = nowInSeconds(),
): Promise<string> {
  const body = readStandardSignBody(rawBody);
  return signV1aAsync(privateKey, standardSignPrefix(id, timestampSeconds), body);
}

/**
 * Web Crypto version of `generateStandardKeyPair`: an Ed25519 key pair in `whsk_` / `whpk_` form.
 *
 * @example
 * ```ts
 * const { privateKey, publicKey } = await generateStandardKeyPairAsync();
 * ```
 */
export async function generateStandardKeyPairAsync(): Promise<StandardKeyPair> {
  return generateKeyPairAsync();
}

/**
 * Web Crypto version of `publicKeyOf`: the `whpk_` public key of a `whsk_` private key.
 *
 * @example
 * ```ts
 * const publicKey = await publicKeyOfAsync(privateKey);
 * ```
 */
export async function publicKeyOfAsync(privateKey: string): Promise<string> {
  return publicKeyFromPrivateAsync(privateKey);
}
