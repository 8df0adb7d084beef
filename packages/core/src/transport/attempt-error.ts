import type { AttemptErrorKind } from '../delivery/attempt-outcome';

/*
 * Mapping of network errors to attempt error kinds.
 *
 * Node, OpenSSL and undici report failures by `code`, often wrapped: undici
 * puts the socket error in `cause`, and Node's happy-eyeballs connect throws an
 * AggregateError holding one error per address tried. So every code found in
 * the error, its causes and its aggregated errors is considered, and the most
 * specific kind wins (a TLS failure explains a reset that follows it).
 */

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);
const TLS_PREFIXES = ['ERR_TLS_', 'ERR_SSL_', 'ERR_OSSL_', 'CERT_'];
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA']);
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** Most specific first. */
const KIND_ORDER: AttemptError['kind'][] = ['tls', 'dns', 'timeout', 'connect'];

/** A failed request's kind, what the agency is told, and what only the logs get. */
export interface AttemptError {
  kind: Exclude<AttemptErrorKind, 'http_status' | 'private_address' | 'sender_busy'>;
  /** Fixed text for the kind: stored as `lastErrorMessage`, shown by test sends. */
  message: string;
  /** The raw error text (codes, addresses, ports), for the logs only. */
  detail: string;
}

function kindOfCode(code: string): AttemptError['kind'] {
  if (TLS_CODES.has(code) || TLS_PREFIXES.some((prefix) => code.startsWith(prefix))) return 'tls';
  if (DNS_CODES.has(code)) return 'dns';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  return 'connect';
}

/** The error itself, its `cause` chain and aggregated errors, depth-first, bounded. */
function errorTree(error: unknown, depth = 0): Error[] {
  if (!(error instanceof Error) || depth > 5) return [];
  const nested = error instanceof AggregateError ? error.errors : [];
  return [
    error,
    ...errorTree(error.cause, depth + 1),
    ...nested.flatMap((inner) => errorTree(inner, depth + 1)),
  ];
}

function codeOf(error: Error): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? code : undefined;
}

/*
 * What the agency is told. Raw error texts name the addresses and ports a
 * connection tried ("connect ECONNREFUSED 10.0.0.7:8443") and quote the
 * resolver and OpenSSL: shown to tenants, they would make test sends a port
 * scanner of the host's network. So each kind has one fixed text saying what
 * to check, and the raw text goes only to the host's logs (`errorDetail`).
 */
const TENANT_MESSAGES: Record<Exclude<AttemptErrorKind, 'http_status'>, string> = {
  timeout:
    'The receiver did not answer in time. Answer with a 2xx as soon as the request arrives, and do slow work afterwards.',
  dns: 'The host name of the webhook URL did not resolve. Check its spelling and its DNS records.',
  connect:
    'Could not connect to the receiver: the connection was refused, reset or closed before an answer. Check that the host accepts HTTPS connections on the port of the webhook URL.',
  tls: 'The TLS handshake with the receiver failed. Its certificate must be valid, unexpired, issued by a public certificate authority and name the host of the webhook URL.',
  private_address:
    'The host name of the webhook URL now resolves to a private, reserved or blocked address, so nothing was sent. Webhooks go to public addresses only.',
  sender_busy:
    'Not sent: the sender was too busy to hand the request to the receiver in time. This is not a failure of the receiver; nothing needs to change on its side.',
};

/** The fixed text the agency sees for a failure of `kind` without a response. */
export function tenantMessage(kind: Exclude<AttemptErrorKind, 'http_status'>): string {
  return TENANT_MESSAGES[kind];
}

/**
 * The text the agency sees for a non-2xx answer. A redirect names its target
 * (the receiver's own `Location`, given already cleaned of control characters),
 * so the agency can point the webhook URL at it.
 */
export function httpStatusMessage(statusCode: number, location?: string): string {
  if (statusCode >= 300 && statusCode < 400) {
    const target = location ? ` to ${location}` : '';
    return `The receiver answered HTTP ${statusCode}, a redirect${target}. Redirects are not followed: set the webhook URL to the final address.`;
  }
  return `The receiver answered HTTP ${statusCode}; only a 2xx status counts as delivered.`;
}

/** Longest raw detail kept for the logs: enough for a chain of three or four errors. */
const DETAIL_MAX_CHARS = 1000;

/**
 * The raw cause of a failed request for the logs: `code: message` of the error,
 * its causes and aggregated errors, each once. Control characters are removed,
 * since part of it (certificate names) comes from the receiver.
 */
export function rawDetail(error: unknown): string {
  const tree = errorTree(error);
  const parts = tree.map((inner) => {
    const code = codeOf(inner);
    return code && !inner.message.includes(code) ? `${code}: ${inner.message}` : inner.message || inner.name;
  });
  const text = tree.length === 0 ? String(error) : [...new Set(parts)].join('; ');
  return text.replace(/\p{Cc}/gu, ' ').slice(0, DETAIL_MAX_CHARS);
}

/**
 * Classifies a failed request (no response received) for the attempt outcome:
 * its kind, the fixed text for the agency and the raw detail for the logs.
 * Unknown failures count as `connect`: the request did not get through.
 */
export function classifyRequestError(error: unknown): AttemptError {
  const tree = errorTree(error);
  const kinds = new Set(tree.map(codeOf).flatMap((code) => (code ? [kindOfCode(code)] : [])));
  const kind = KIND_ORDER.find((candidate) => kinds.has(candidate)) ?? 'connect';
  return { kind, message: TENANT_MESSAGES[kind], detail: rawDetail(error) };
}

/** Whether `error` is undici refusing its arguments: a bug in the caller, not a failed delivery. */
export function isInvalidArgument(error: unknown): boolean {
  return error instanceof Error && codeOf(error) === 'UND_ERR_INVALID_ARG';
}
