import { invalidOption } from './errors';

/**
 * Default replay window: 5 minutes, as the spec recommends. It applies to timestamps in the past
 * and in the future alike.
 */
export const DEFAULT_TOLERANCE_MS = 300_000;

/**
 * The signature scheme a delivery is verified by: `'service'`, the spec's `X-Service-Signature`, or
 * `'standard'`, Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
 */
export type WebhookSignatureScheme = 'service' | 'standard';

/** Options of every verify function. */
export interface VerifyWebhookOptions {
  /**
   * How far `t` may lie from `now`, in milliseconds, in the past or the future. `Infinity` turns the
   * check off (only for replaying stored fixtures in tests).
   * @default 300_000 (5 minutes, the spec's recommendation)
   * @example { toleranceMs: 600_000 } // where clocks drift
   */
  toleranceMs?: number;
  /**
   * The current time in epoch milliseconds.
   * @default Date.now()
   * @example { now: Date.parse('2025-01-01T00:00:00Z') }
   */
  now?: number;
  /**
   * Forces the scheme `verifyWebhook` and `verifyWebhookSignature` (and their async twins) verify by when
   * given the request's headers. Without it the headers decide: `webhook-signature` present → Standard
   * Webhooks, else `X-Service-Signature`. With a header value (a string) as the second argument only
   * `'service'` is possible. The Standard Webhooks verifiers ignore it.
   * @default chosen by the headers present
   * @example { scheme: 'standard' } // refuse deliveries that carry only X-Service-Signature
   */
  scheme?: WebhookSignatureScheme;
}

/** Options with their defaults applied and checked. */
export interface ResolvedVerifyOptions {
  toleranceMs: number;
  now: number;
}

/**
 * Applies defaults and rejects unusable values with `invalid_option`: a bad option is a bug in the
 * receiver's code, not a bad delivery, so the helpers do not answer it with a 401.
 */
export function resolveVerifyOptions(options: VerifyWebhookOptions | undefined): ResolvedVerifyOptions {
  const toleranceMs = options?.toleranceMs ?? DEFAULT_TOLERANCE_MS;
  const now = options?.now ?? Date.now();
  if (typeof toleranceMs !== 'number' || Number.isNaN(toleranceMs) || toleranceMs < 0) {
    throw invalidOption(`toleranceMs must be a number of milliseconds >= 0, got ${String(toleranceMs)}.`);
  }
  if (typeof now !== 'number' || !Number.isFinite(now)) {
    throw invalidOption(`now must be a finite number of epoch milliseconds, got ${String(now)}.`);
  }
  return { toleranceMs, now };
}

/**
 * Default cap on the body the helpers read: 1 MiB. Deliveries are JSON envelopes of a few kilobytes; the
 * cap keeps a sender that is not the service from making the receiver buffer without bound.
 */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** The option of the helpers that read the request body themselves. */
export interface RequestBodyOptions {
  /**
   * The largest body accepted, in bytes. A larger one is answered 413 `payload_too_large`: as soon as
   * `Content-Length` announces it, before any of it is read, or else as soon as the bytes read pass the
   * limit (the rest is never buffered).
   * @default 1_048_576 (1 MiB)
   * @example { maxBodyBytes: 5 * 1_048_576 } // 5 MiB
   */
  maxBodyBytes?: number;
}

/** Applies the default and rejects anything but a positive integer with `invalid_option`. */
export function resolveMaxBodyBytes(maxBodyBytes: number | undefined): number {
  const value = maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw invalidOption(`maxBodyBytes must be a positive integer number of bytes, got ${String(value)}.`);
  }
  return value;
}
