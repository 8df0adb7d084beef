import { createPublicKey, verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { STANDARD_WEBHOOK_HEADERS, toStandardSecret } from '@svc/webhooks-verify';
import { Webhook } from 'standardwebhooks';
import type { ReceivedRequest } from './receiver';

/*
 * Interop checks of Standard Webhooks deliveries against code that is not ours:
 * the unmodified `standardwebhooks` package for `v1`, node:crypto for `v1a`.
 * Every backend's tests can run them on what the test receiver got.
 */

/** A JSON Web Key of the agency's JWKS, as `webhooks.getPublicKeys` returns it. */
export interface PublicJwk {
  kid: string;
  kty: string;
  crv: string;
  x: string;
}

/** One entry of `webhook-signature`: `v1,<base64>` or `v1a,<base64>`. */
export interface StandardSignatureEntry {
  version: string;
  signature: string;
}

/** The request's headers with one string per name, as the `standardwebhooks` package reads them. */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * Verifies a received request with the unmodified `standardwebhooks` package
 * (`new Webhook(whsec).verify(rawBody, headers)`), which checks the `v1` entry
 * and the timestamp against the real clock (5 minutes), and returns the body it
 * parsed. `secret` is the agency's hex signing secret (turned into its `whsec_`
 * form with `toStandardSecret`) or a `whsec_` secret.
 *
 * @throws the package's `WebhookVerificationError` when nothing matches
 * @example
 * ```ts
 * const [request] = await harness.receiver.waitForRequests(1);
 * expect(verifyStandardRequest(request, secret)).toMatchObject({ eventType: 'job_cancelled' });
 * ```
 */
export function verifyStandardRequest(request: ReceivedRequest, secret: string): unknown {
  const whsec = secret.startsWith('whsec_') ? secret : toStandardSecret(secret);
  return new Webhook(whsec).verify(request.rawBody, flatHeaders(request.headers));
}

/** The entries of the request's `webhook-signature`, in order; [] without the header. */
export function standardSignatureEntries(request: ReceivedRequest): StandardSignatureEntry[] {
  const header = request.headers[STANDARD_WEBHOOK_HEADERS.signature];
  if (typeof header !== 'string' || header === '') return [];
  return header.split(' ').map((entry) => {
    const comma = entry.indexOf(',');
    return { version: entry.slice(0, comma), signature: entry.slice(comma + 1) };
  });
}

/**
 * For each `v1a` entry of the request, in order, the `kid` of the JWKS key whose
 * Ed25519 signature over `<webhook-id>.<webhook-timestamp>.<raw body>` it is
 * (checked with node:crypto), or null when none verifies it.
 *
 * @example
 * ```ts
 * const jwks = await webhooks.getPublicKeys('agency-a');
 * expect(asymmetricSignersOf(request, jwks.keys)).toEqual([activeKid, retiringKid]);
 * ```
 */
export function asymmetricSignersOf(
  request: ReceivedRequest,
  keys: readonly PublicJwk[],
): Array<string | null> {
  const signed = Buffer.from(
    `${request.headers[STANDARD_WEBHOOK_HEADERS.id]}.${request.headers[STANDARD_WEBHOOK_HEADERS.timestamp]}.${request.rawBody}`,
  );
  const publicKeys = keys.map((jwk) => ({
    kid: jwk.kid,
    key: createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' }),
  }));
  return standardSignatureEntries(request)
    .filter((entry) => entry.version === 'v1a')
    .map((entry) => {
      const signature = Buffer.from(entry.signature, 'base64');
      return publicKeys.find(({ key }) => verify(null, signed, key, signature))?.kid ?? null;
    });
}
