import { invalidOption, WebhookVerificationError } from './errors';
import { parseSignatureHeaderParts, SIGNATURE_HEADER, type SignatureHeaderInput } from './header';
import { resolveVerifyOptions, type VerifyWebhookOptions, type WebhookSignatureScheme } from './options';
import { readRawBody } from './raw-body';
import { invalidSecret, readSecrets, type WebhookSecret } from './secret';
import {
  headerValue,
  isHeadersObject,
  parseStandardHeaders,
  STANDARD_WEBHOOK_HEADERS,
  type StandardHeadersInput,
} from './standard-header';
import { isStandardKeys, readStandardKeys, type StandardKeys } from './standard-secret';

/** What `verifyWebhook` verifies: the spec's header value, or the Standard Webhooks headers. */
export type SchemeChoice =
  | { scheme: 'service'; header: SignatureHeaderInput; secret: WebhookSecret }
  | { scheme: 'standard'; headers: StandardHeadersInput; secret: WebhookSecret | StandardKeys };

/**
 * Whether a call needs {@link chooseScheme}: a headers object, a `scheme` option or key material other
 * than secrets. A header value with plain secrets, the spec's call, skips it and keeps today's path.
 */
export function needsSchemeChoice(
  header: unknown,
  secret: unknown,
  options: VerifyWebhookOptions | undefined,
): boolean {
  return isHeadersObject(header) || options?.scheme !== undefined || isStandardKeys(secret);
}

/**
 * Chooses the scheme: forced by `options.scheme`, else `webhook-signature` present → Standard Webhooks,
 * else `X-Service-Signature`. A delivery that carries both (an agency on `'both'`) is verified by its
 * Standard Webhooks headers, which a JWKS of public keys can also verify.
 */
export function chooseScheme(
  rawBody: unknown,
  header: SignatureHeaderInput | StandardHeadersInput,
  secret: WebhookSecret | StandardKeys,
  options: VerifyWebhookOptions | undefined,
): SchemeChoice {
  const forced = readScheme(options?.scheme);
  if (!isHeadersObject(header)) {
    if (forced === 'standard') {
      throw invalidOption(
        "scheme: 'standard' needs the request's headers (req.headers, request.headers) as the second " +
          'argument, not one header value: Standard Webhooks spreads the signature over three headers.',
      );
    }
    return { scheme: 'service', header, secret: serviceSecret(secret) };
  }
  const scheme =
    forced ??
    (headerValue(header, STANDARD_WEBHOOK_HEADERS.signature) === undefined ? 'service' : 'standard');
  if (scheme === 'standard') return { scheme, headers: header, secret };
  const value = headerValue(header, SIGNATURE_HEADER, ',');
  if (value === undefined && forced === undefined) throw neitherHeader(rawBody, options);
  return { scheme, header: value, secret: serviceSecret(secret) };
}

/**
 * The request helpers' check before they read a body: the headers of the scheme the delivery will be
 * verified by (chosen as {@link chooseScheme} chooses) are there and well-formed. A request signed by
 * neither scheme is refused for its missing `X-Service-Signature`, the spec's header.
 *
 * @throws {@link WebhookVerificationError} `missing_header`, `malformed_header` or `missing_signature`;
 * `invalid_option` for an unknown `scheme`
 */
export function assertSignedHeaders(headers: StandardHeadersInput, scheme: unknown): void {
  const chosen =
    readScheme(scheme) ??
    (headerValue(headers, STANDARD_WEBHOOK_HEADERS.signature) === undefined ? 'service' : 'standard');
  if (chosen === 'standard') parseStandardHeaders(headers);
  else parseSignatureHeaderParts(headerValue(headers, SIGNATURE_HEADER, ','));
}

/**
 * Checks keys given at setup (secrets, or Standard Webhooks key material), so that a missing or masked
 * secret stops the receiver at boot instead of turning every delivery into a 401.
 */
export function checkVerificationKeys(secret: WebhookSecret | StandardKeys | null | undefined): void {
  if (isStandardKeys(secret)) readStandardKeys(secret);
  else readSecrets(secret);
}

/** Checks the `scheme` option; `undefined` lets the headers choose. */
export function readScheme(scheme: unknown): WebhookSignatureScheme | undefined {
  if (scheme === undefined || scheme === 'service' || scheme === 'standard') return scheme;
  throw invalidOption(
    `scheme must be 'service' or 'standard', got ${JSON.stringify(scheme) ?? String(scheme)}.`,
  );
}

/** `X-Service-Signature` is keyed with the secret itself: from key material, only its secrets count. */
function serviceSecret(secret: WebhookSecret | StandardKeys): WebhookSecret {
  if (!isStandardKeys(secret)) return secret;
  if (secret.secrets !== undefined) return secret.secrets;
  throw invalidSecret(
    'The delivery carries X-Service-Signature, which verifies with the signing secret (64 hex characters); ' +
      'public keys (a JWKS) only verify the v1a entries of webhook-signature. Pass the secret too.',
  );
}

/**
 * The error for a request with neither scheme's header. The checks that come before the header's in
 * every verify function (options, body type) run first, so that errors keep their documented order.
 */
function neitherHeader(
  rawBody: unknown,
  options: VerifyWebhookOptions | undefined,
): WebhookVerificationError {
  resolveVerifyOptions(options);
  readRawBody(rawBody);
  return new WebhookVerificationError(
    'missing_header',
    'The request has neither an X-Service-Signature nor a webhook-signature header: it was not signed by ' +
      'the service, or a proxy dropped the headers. Pass all of the request’s headers (req.headers, ' +
      'request.headers).',
  );
}
