import { InvalidOptionError } from '@svc/webhooks-core';
import { SIGNATURE_HEADER, STANDARD_WEBHOOK_HEADERS } from '@svc/webhooks-verify';
import { PACKAGE_NAME } from '../exit-codes';
import type { SignatureFamily } from '../signature-headers';

/** `--scheme` of `verify`: a family, or `auto` (the headers given decide). */
export const VERIFY_SCHEMES = ['auto', 'service', 'standard'] as const;
/** See {@link VERIFY_SCHEMES}. */
export type VerifyScheme = (typeof VERIFY_SCHEMES)[number];

/** What `verify` checks: the spec's header value, or a delivery's Standard Webhooks headers. */
export type DeliveryHeaders =
  | { scheme: 'service'; header: string }
  | { scheme: 'standard'; headers: Record<string, string> };

// `name: value`. An X-Service-Signature value (`t=…,v1=…`) has no colon, so it never reads as one.
const NAMED = /^([A-Za-z0-9-]+)[ \t]*:[ \t]*(.*)$/s;

/**
 * Reads the `--header` values: `name: value` pairs (names in any case), and at most one bare value,
 * which is the `X-Service-Signature` value as before. Then picks the scheme: `auto` verifies by
 * Standard Webhooks when `webhook-signature` is given, else by `X-Service-Signature`, as the verify
 * package does with a request's headers.
 *
 * @throws InvalidOptionError (exit 2) when a header is given twice, or the scheme's headers are missing
 */
export function readDeliveryHeaders(values: readonly string[], scheme: VerifyScheme): DeliveryHeaders {
  const named = readNamedHeaders(values);
  const family: SignatureFamily =
    scheme === 'auto' ? (named[STANDARD_WEBHOOK_HEADERS.signature] ? 'standard' : 'service') : scheme;
  if (family === 'service') {
    const header = named[SIGNATURE_HEADER];
    if (header === undefined) throw missing('service', [SIGNATURE_HEADER]);
    return { scheme: 'service', header };
  }
  const absent = Object.values(STANDARD_WEBHOOK_HEADERS).filter((name) => named[name] === undefined);
  if (absent.length > 0) throw missing('standard', absent);
  return { scheme: 'standard', headers: named };
}

/** The headers by lower-case name; a bare value is `x-service-signature`'s. Repeated signatures join. */
function readNamedHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const match = NAMED.exec(value);
    const name = match ? (match[1] as string).toLowerCase() : SIGNATURE_HEADER;
    const text = match ? (match[2] as string).trim() : value;
    const previous = headers[name];
    if (previous === undefined) headers[name] = text;
    // Several `webhook-signature` headers are one list, as an HTTP stack joins them.
    else if (name === STANDARD_WEBHOOK_HEADERS.signature) headers[name] = `${previous} ${text}`;
    else {
      throw new InvalidOptionError(
        PACKAGE_NAME,
        'header',
        `--header gives ${name === SIGNATURE_HEADER ? 'the X-Service-Signature value' : name} twice; give it once.`,
      );
    }
  }
  return headers;
}

function missing(family: SignatureFamily, names: readonly string[]): InvalidOptionError {
  const wanted = names.map((name) => `--header '${name}: …'`).join(', ');
  const message =
    family === 'service'
      ? `No X-Service-Signature to verify: pass its value, --header 't=<ms>,v1=<hex>' (or ${wanted}), or verify Standard Webhooks headers with --scheme standard.`
      : `Standard Webhooks needs the three headers webhook-id, webhook-timestamp and webhook-signature; missing: ${wanted}.`;
  return new InvalidOptionError(PACKAGE_NAME, 'header', message);
}
