import { readRawBody, type WebhookRawBody } from './raw-body';
import { assertUsableSecret } from './secret';

/** Checked arguments of `signWebhook` / `signWebhookAsync`. */
export interface SignInput {
  body: string | Uint8Array;
  secret: string;
  timestamp: number;
}

/**
 * Checks what a signer was given. A bad secret throws the same `invalid_secret` error verification
 * would; a bad timestamp is a programming error and throws a `TypeError`.
 */
export function readSignInput(rawBody: WebhookRawBody, secret: string, timestamp: number): SignInput {
  const body = readRawBody(rawBody);
  assertUsableSecret(secret);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError(
      `timestamp must be a non-negative integer of epoch milliseconds, got ${String(timestamp)}`,
    );
  }
  return { body, secret, timestamp };
}

/** The header value for one signature. */
export function formatSignatureHeader(timestamp: number, signatureHex: string): string {
  return `t=${timestamp},v1=${signatureHex}`;
}
