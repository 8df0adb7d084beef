import type { WebhookEventMap } from './built-in-events';
import { generateKeyPair, publicKeyFromPrivate } from './ed25519';
import { parseEnvelope, type WebhookEvent } from './envelope';
import { assertStandardSignatureMatches, signV1, signV1a } from './node-standard-signature';
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

/*
 * The Standard Webhooks functions of the Node entry (`@svc/webhooks-verify`), on node:crypto. The Web
 * Crypto entry has async twins of each (web-standard-webhook.ts).
 */

/**
 * Verifies a Standard Webhooks delivery without parsing its body. Checks, in order: the body is raw, the
 * three headers, the keys, the timestamp tolerance, then the signatures: valid when any `v1` entry
 * matches the HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` under any secret, or any
 * `v1a` entry verifies under any Ed25519 public key.
 *
 * @param rawBody - the request body exactly as received (string, `Buffer` or `Uint8Array`)
 * @param headers - the request's headers: Node's `req.headers` or a `Headers` object
 * @param secret - the signing secret (hex, or its `whsec_` form), `whpk_` public keys, several of them
 * during a rotation, or a {@link StandardKeys} holding the router's JWKS
 * @throws {@link WebhookVerificationError} with a stable `code`; answer HTTP 401. A signature that matches
 * only under a mixed-up key (the hex secret read as base64, or the reverse) is `invalid_secret`, naming it.
 * @example
 * ```ts
 * const { id, timestamp } = verifyStandardWebhookSignature(req.body, req.headers, process.env.WEBHOOK_SECRET!);
 * ```
 */
export function verifyStandardWebhookSignature(
  rawBody: WebhookRawBody,
  headers: StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options?: VerifyWebhookOptions,
): StandardVerifiedSignature {
  const prepared = prepareStandardVerification(rawBody, headers, secret, options);
  assertStandardSignatureMatches(prepared);
  return { timestamp: prepared.timestamp, id: prepared.id };
}

/**
 * Verifies a Standard Webhooks delivery and returns its parsed envelope; the body is parsed only once a
 * signature holds. See {@link verifyStandardWebhookSignature} for the checks.
 *
 * @typeParam TEvents - event type → metadata type; by default {@link WebhookEventMap}
 * @throws {@link WebhookVerificationError}; `invalid_body` when the verified body is not a JSON object
 * @example
 * ```ts
 * // Ed25519 (v1a) with the agency's public keys, fetched from the router (cache them)
 * const jwks = await (await fetch(`${api}/public-keys/${agencyId}`)).json();
 * const event = verifyStandardWebhook(req.body, req.headers, jwks);
 * ```
 */
export function verifyStandardWebhook<TEvents extends object = WebhookEventMap>(
  rawBody: WebhookRawBody,
  headers: StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options?: VerifyWebhookOptions,
): WebhookEvent<TEvents> {
  const prepared = prepareStandardVerification(rawBody, headers, secret, options);
  assertStandardSignatureMatches(prepared);
  return parseEnvelope<TEvents>(prepared.body);
}

/**
 * Signs a body as Standard Webhooks `v1` and returns the `webhook-signature` entry, `v1,<base64>`: the
 * HMAC-SHA256 of `<id>.<timestampSeconds>.<raw body>`. Used by `@svc/webhooks-core` for agencies on
 * Standard Webhooks, and by tests of receivers. Send `id` as `webhook-id` and the same seconds as
 * `webhook-timestamp`.
 *
 * @param secret - the agency's hex secret (its UTF-8 bytes are the key) or a `whsec_` secret (the bytes
 * its base64 encodes); both forms of one secret sign alike
 * @param id - the `webhook-id`, non-empty
 * @param timestampSeconds - epoch **seconds**
 * @defaultValue timestampSeconds: `Math.floor(Date.now() / 1000)`
 * @throws {@link WebhookVerificationError} `invalid_secret` for an unusable secret, `invalid_option` for an
 * empty id or a timestamp that is not integer seconds (milliseconds are named as such)
 * @example
 * ```ts
 * const seconds = Math.floor(Date.now() / 1000);
 * const headers = {
 *   'webhook-id': 'whdel_01',
 *   'webhook-timestamp': String(seconds),
 *   'webhook-signature': signStandardWebhook(body, secret, 'whdel_01', seconds),
 * };
 * ```
 */
export function signStandardWebhook(
  rawBody: WebhookRawBody,
  secret: string,
  id: string,
  timestampSeconds: number = nowInSeconds(),
): string {
  const body = readStandardSignBody(rawBody);
  const key = readSigningSecret(secret);
  return signV1(key, standardSignPrefix(id, timestampSeconds), body);
}

/**
 * Signs a body as Standard Webhooks `v1a` (Ed25519) and returns the `webhook-signature` entry,
 * `v1a,<base64>`. Parsed keys are cached per key string (up to 1,024), since the sender signs every
 * attempt. Join it to the `v1` entry with a space to send both.
 *
 * @param privateKey - `whsk_` + base64 of the 32-byte seed, as {@link generateStandardKeyPair} returns it
 * @param id - the `webhook-id`, non-empty
 * @param timestampSeconds - epoch **seconds**
 * @defaultValue timestampSeconds: `Math.floor(Date.now() / 1000)`
 * @throws {@link WebhookVerificationError} `invalid_secret` for a key that is not `whsk_`, `invalid_option`
 * for an empty id or a bad timestamp
 * @example
 * ```ts
 * const signature = `${signStandardWebhook(body, secret, id, t)} ${signStandardWebhookAsymmetric(body, privateKey, id, t)}`;
 * ```
 */
export function signStandardWebhookAsymmetric(
  rawBody: WebhookRawBody,
  privateKey: string,
  id: string,
  timestampSeconds: number = nowInSeconds(),
): string {
  const body = readStandardSignBody(rawBody);
  return signV1a(privateKey, standardSignPrefix(id, timestampSeconds), body);
}

/**
 * Generates an Ed25519 key pair for `v1a` signatures, in Standard Webhooks form.
 *
 * @example
 * ```ts
 * const { privateKey, publicKey } = generateStandardKeyPair(); // 'whsk_…', 'whpk_…'
 * ```
 */
export function generateStandardKeyPair(): StandardKeyPair {
  return generateKeyPair();
}

/**
 * The public key (`whpk_…`) of a private key (`whsk_…`).
 *
 * @throws {@link WebhookVerificationError} `invalid_secret` when `privateKey` is not a `whsk_` key
 * @example
 * ```ts
 * const publicKey = publicKeyOf(process.env.SIGNING_KEY!);
 * ```
 */
export function publicKeyOf(privateKey: string): string {
  return publicKeyFromPrivate(privateKey);
}
