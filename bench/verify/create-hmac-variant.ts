/**
 * The @svc Node verify and sign paths with node:crypto's `createHmac` in place of the package's
 * hand-built HMAC (RFC 2104 from two one-shot `hash()` calls with the key's pads cached per secret).
 * Everything else is the package's own code, imported from its sources: the same checks before the HMAC,
 * the same constant-time comparison, the same envelope parsing. The HMAC is the only difference, so the
 * ratio of the two shows what the hand-built HMAC is worth.
 */
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseEnvelope } from '../../packages/verify/src/envelope';
import { signatureMismatch } from '../../packages/verify/src/errors';
import { formatSignatureHeader, type SignatureHeaderInput } from '../../packages/verify/src/header';
import type { VerifyWebhookOptions } from '../../packages/verify/src/options';
import {
  type PreparedVerification,
  prepareVerification,
  readSignInput,
} from '../../packages/verify/src/preflight';
import type { WebhookRawBody } from '../../packages/verify/src/raw-body';
import type { WebhookSecret } from '../../packages/verify/src/secret';

/** The plain library call: HMAC-SHA256 of `<t>.<body>`, as bytes. */
function hmacSha256(secret: string, timestampText: string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestampText}.`).update(body).digest();
}

/** `assertSignatureMatches` of the Node entry, line for line, with {@link hmacSha256}. */
function assertSignatureMatches(prepared: PreparedVerification): void {
  const given = prepared.signatures.map((hex) => Buffer.from(hex, 'hex'));
  for (const secret of prepared.secrets) {
    const expected = hmacSha256(secret, prepared.timestampText, prepared.body);
    for (const candidate of given) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return;
    }
  }
  throw signatureMismatch(prepared.secrets.length);
}

export function verifyWebhookSignature(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): { timestamp: number } {
  const prepared = prepareVerification(rawBody, header, secret, options);
  assertSignatureMatches(prepared);
  return { timestamp: prepared.timestamp };
}

export function verifyWebhook(
  rawBody: WebhookRawBody,
  header: SignatureHeaderInput,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): unknown {
  const prepared = prepareVerification(rawBody, header, secret, options);
  assertSignatureMatches(prepared);
  return parseEnvelope(prepared.body);
}

export function signWebhook(rawBody: WebhookRawBody, secret: string, timestamp: number = Date.now()): string {
  const input = readSignInput(rawBody, secret, timestamp);
  const t = String(input.timestamp);
  return formatSignatureHeader(
    input.timestamp,
    createHmac('sha256', input.secret).update(`${t}.`).update(input.body).digest('hex'),
  );
}
