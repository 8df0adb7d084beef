import { randomUUID } from 'node:crypto';
import { InvalidOptionError } from '@svc/webhooks-core';
import {
  SIGNATURE_HEADER,
  STANDARD_WEBHOOK_HEADERS,
  signStandardWebhook,
  signWebhook,
} from '@svc/webhooks-verify';
import { PACKAGE_NAME } from './exit-codes';

/*
 * The signature headers of each scheme, computed by the verify package's functions (the ones the service
 * signs with): the CLI writes no crypto of its own.
 */

/** One family of signature headers: the spec's `X-Service-Signature`, or Standard Webhooks' `webhook-*`. */
export const SIGNATURE_SCHEMES = ['service', 'standard'] as const;
/** See {@link SIGNATURE_SCHEMES}. */
export type SignatureFamily = (typeof SIGNATURE_SCHEMES)[number];

/** What an agency's `signatureScheme` can be: one family, or `both` (each attempt carries the two). */
export const DELIVERY_SCHEMES = ['service', 'standard', 'both'] as const;
/** See {@link DELIVERY_SCHEMES}. */
export type DeliveryScheme = (typeof DELIVERY_SCHEMES)[number];

// Epoch milliseconds passed 1e11 in 1973: a smaller --timestamp is epoch seconds given by mistake.
const SECONDS_LIMIT = 1e11;

/**
 * The three Standard Webhooks headers of `body` signed at `signedAtMs`: `webhook-timestamp` is its
 * whole seconds, as the service sends it.
 */
export function standardWebhookHeaders(
  body: string | Uint8Array,
  secret: string,
  id: string,
  signedAtMs: number,
): Record<string, string> {
  const seconds = Math.floor(signedAtMs / 1000);
  return {
    [STANDARD_WEBHOOK_HEADERS.id]: id,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(seconds),
    [STANDARD_WEBHOOK_HEADERS.signature]: signStandardWebhook(body, secret, id, seconds),
  };
}

/**
 * The signature headers the service sends under `scheme` for one attempt signed at `signedAtMs`, with
 * `id` (the envelope's `webhookId`) as `webhook-id`. Without `v1a` entries: the agency's Ed25519
 * private keys never leave the service.
 */
export function deliverySignatureHeaders(
  scheme: DeliveryScheme,
  body: string,
  secret: string,
  id: string,
  signedAtMs: number,
): Record<string, string> {
  const headers: Record<string, string> =
    scheme === 'service' ? {} : standardWebhookHeaders(body, secret, id, signedAtMs);
  if (scheme !== 'standard') headers[SIGNATURE_HEADER] = signWebhook(body, secret, signedAtMs);
  return headers;
}

/** A fresh `webhook-id` in the form Standard Webhooks' own examples use: `msg_` + random hex. */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Refuses a `--timestamp` that reads as epoch seconds where milliseconds are expected: copied from a
 * `webhook-timestamp` header, it would otherwise sign a time in January 1970.
 */
export function assertMilliseconds(option: string, value: number): void {
  if (value >= SECONDS_LIMIT) return;
  throw new InvalidOptionError(
    PACKAGE_NAME,
    option,
    `--${option} ${value} looks like epoch seconds; it takes epoch milliseconds (pass ${value}000). The webhook-timestamp header is its whole seconds.`,
  );
}
