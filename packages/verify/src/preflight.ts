import { invalidOption } from './errors';
import { parseSignatureHeaderParts, type SignatureHeaderInput } from './header';
import { resolveVerifyOptions, type VerifyWebhookOptions } from './options';
import { readRawBody, type WebhookRawBody } from './raw-body';
import { assertUsableSecret, readSecrets, type WebhookSecret } from './secret';
import { assertWithinTolerance } from './tolerance';

/** Everything the HMAC step needs, after every check that does not need cryptography has passed. */
export interface PreparedVerification {
  body: string | Uint8Array;
  timestamp: number;
  /** `t` exactly as it appeared in the header: that text, not a re-formatted number, was signed. */
  timestampText: string;
  signatures: readonly string[];
  secrets: readonly string[];
}

/**
 * The checks both the Node and the Web Crypto entry run before computing an HMAC, in this order:
 * body type (a parsed body is a setup bug, reported whatever the header says), header, secret,
 * timestamp tolerance. The signature comparison follows in the runtime-specific entry.
 */
export function prepareVerification(
  rawBody: unknown,
  header: SignatureHeaderInput,
  secret: WebhookSecret | null | undefined,
  options: VerifyWebhookOptions | undefined,
): PreparedVerification {
  const { toleranceMs, now } = resolveVerifyOptions(options);
  const body = readRawBody(rawBody);
  const { timestamp, timestampText, signatures } = parseSignatureHeaderParts(header);
  const secrets = readSecrets(secret);
  assertWithinTolerance(timestamp, now, toleranceMs);
  return { body, timestamp, timestampText, signatures, secrets };
}

/** Checked arguments of `signWebhook` / `signWebhookAsync`. */
export interface SignInput {
  body: string | Uint8Array;
  secret: string;
  timestamp: number;
}

/**
 * The checks a signer runs before computing an HMAC. A bad secret throws the same `invalid_secret`
 * error verification would; a bad timestamp is a programming error: `invalid_option`.
 */
export function readSignInput(rawBody: WebhookRawBody, secret: string, timestamp: number): SignInput {
  const body = readRawBody(rawBody);
  assertUsableSecret(secret);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw invalidOption(
      `timestamp must be a non-negative integer of epoch milliseconds (Date.now()), got ${String(timestamp)}.`,
    );
  }
  return { body, secret, timestamp };
}
