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
const KIND_ORDER: AttemptErrorKind[] = ['tls', 'dns', 'timeout', 'connect'];

/** A failed attempt's kind and the message stored as `lastErrorMessage`. */
export interface AttemptError {
  kind: AttemptErrorKind;
  message: string;
}

function kindOfCode(code: string): AttemptErrorKind {
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

const LEADS: Record<AttemptErrorKind, string> = {
  tls: 'TLS handshake with the receiver failed',
  dns: 'The receiver host did not resolve',
  timeout: 'The receiver did not answer in time',
  connect: 'Could not connect to the receiver',
  http_status: 'The receiver answered with an error status',
  private_address: 'The receiver resolves to a non-public address',
};

/**
 * Classifies a failed request (no response received) for the attempt outcome.
 * Unknown failures count as `connect`: the request did not get through.
 */
export function classifyRequestError(error: unknown): AttemptError {
  const tree = errorTree(error);
  const kinds = new Set(tree.map(codeOf).flatMap((code) => (code ? [kindOfCode(code)] : [])));
  const kind = KIND_ORDER.find((candidate) => kinds.has(candidate)) ?? 'connect';
  const detail = tree.find((inner) => inner.message !== '');
  const code = tree.map(codeOf).find((candidate) => candidate !== undefined);
  const suffix = detail ? `: ${detail.message}` : code ? `: ${code}` : '';
  return { kind, message: `${LEADS[kind]}${suffix}` };
}

/** Whether `error` is undici refusing its arguments: a bug in the caller, not a failed delivery. */
export function isInvalidArgument(error: unknown): boolean {
  return error instanceof Error && codeOf(error) === 'UND_ERR_INVALID_ARG';
}
