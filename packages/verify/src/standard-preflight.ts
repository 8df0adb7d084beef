import { invalidOption } from './errors';
import { resolveVerifyOptions, type VerifyWebhookOptions } from './options';
import { readRawBody } from './raw-body';
import type { WebhookSecret } from './secret';
import { parseStandardHeaders } from './standard-header';
import { readStandardKeys, type StandardKeyMaterial, type StandardKeys } from './standard-secret';
import { assertStandardWithinTolerance } from './tolerance';

/** Everything the signature step of a Standard Webhooks verification needs, once every other check passed. */
export interface PreparedStandardVerification {
  body: string | Uint8Array;
  /** `webhook-id`. */
  id: string;
  /** `webhook-timestamp` in epoch milliseconds. */
  timestamp: number;
  /** `<id>.<seconds>.`: what precedes the body in the signed content, with the seconds as sent. */
  prefix: string;
  v1: readonly string[];
  v1a: readonly string[];
  keys: StandardKeyMaterial;
}

/**
 * The checks both entries run before any cryptography, in the order of the spec's header: options,
 * body type, headers, keys, timestamp tolerance. The signature comparison follows in the entry.
 */
export function prepareStandardVerification(
  rawBody: unknown,
  headers: unknown,
  secret: WebhookSecret | StandardKeys | null | undefined,
  options: VerifyWebhookOptions | undefined,
): PreparedStandardVerification {
  const { toleranceMs, now } = resolveVerifyOptions(options);
  const body = readRawBody(rawBody);
  const { id, seconds, secondsText, v1, v1a } = parseStandardHeaders(headers);
  const keys = readStandardKeys(secret);
  assertStandardWithinTolerance(seconds, now, toleranceMs);
  return { body, id, timestamp: seconds * 1000, prefix: `${id}.${secondsText}.`, v1, v1a, keys };
}

// Epoch seconds reach 1e11 in the year 5138; a larger value is epoch milliseconds passed by mistake.
const SECONDS_LIMIT = 1e11;

/**
 * The prefix a Standard Webhooks signer signs before the body, `<id>.<seconds>.`, after checking both.
 * A bad id or timestamp is a bug in the caller: `invalid_option`.
 */
export function standardSignPrefix(id: unknown, timestampSeconds: unknown): string {
  if (typeof id !== 'string' || id.length === 0) {
    throw invalidOption(`id must be a non-empty string (the delivery's webhook-id), got ${describe(id)}.`);
  }
  if (
    typeof timestampSeconds !== 'number' ||
    !Number.isSafeInteger(timestampSeconds) ||
    timestampSeconds < 0
  ) {
    throw invalidOption(
      `timestampSeconds must be a non-negative integer of epoch seconds, got ${String(timestampSeconds)}.`,
    );
  }
  if (timestampSeconds >= SECONDS_LIMIT) {
    throw invalidOption(
      `timestampSeconds=${timestampSeconds} looks like epoch milliseconds; Standard Webhooks signs epoch ` +
        'seconds: Math.floor(Date.now() / 1000).',
    );
  }
  return `${id}.${timestampSeconds}.`;
}

/** The checked body of a signer. */
export const readStandardSignBody = readRawBody;

/** The current time in epoch seconds, the default timestamp of the signers. */
export function nowInSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? 'an empty string' : `a ${value === null ? 'null' : typeof value}`;
}
