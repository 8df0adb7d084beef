import { z } from 'zod';

/** The kinds of attempt failure, as the attempt history and its OpenAPI schema name them. */
export const attemptErrorKindSchema = z
  .enum(['http_status', 'timeout', 'dns', 'private_address', 'connect', 'tls', 'sender_busy'])
  .meta({
    description:
      'What went wrong: `http_status` (a non-2xx answer, redirects included), `timeout`, `dns`, `private_address` (refused by the URL policy at send time), `connect`, `tls`, `sender_busy` (the sender could not hand the request to the receiver in time: not a receiver failure).',
  });

/**
 * What went wrong with an attempt, when something did:
 * - `http_status`: a response came but not a 2xx (redirects included: they are never followed);
 * - `timeout`: no complete response within the attempt's time budget, counted
 *   from when the request reached the receiver's connection (`transport.timeoutMs`);
 * - `dns`: the hostname did not resolve (or not in time);
 * - `private_address`: it resolved to a non-public address at send time (SSRF guard);
 * - `connect`: the TCP connection failed or was reset;
 * - `tls`: the TLS handshake or certificate check failed;
 * - `sender_busy`: the request waited inside the sender (for a connection, a
 *   socket, a connect turn) past `transport.localWaitMs` and was never handed to
 *   the receiver: says nothing about the receiver.
 */
export type AttemptErrorKind = z.infer<typeof attemptErrorKindSchema>;

/** The result of one delivery attempt, as the transport reports it to the state machine. */
export interface AttemptOutcome {
  /** True for a 2xx response. */
  ok: boolean;
  /** HTTP status of the response; null when none came. */
  statusCode: number | null;
  /** Null when `ok`. */
  errorKind: AttemptErrorKind | null;
  /**
   * What the agency is told: a fixed, helpful text per `errorKind` (with the
   * status for `http_status`), never raw network detail. Stored as
   * `lastErrorMessage` and shown by test sends; null when `ok`.
   */
  errorMessage: string | null;
  /**
   * The raw cause for the host's operators: Node, undici and OpenSSL error codes
   * and texts, which may name internal addresses, ports and DNS names. It
   * reaches only the `onAttempt` hook, the logger and the OpenTelemetry span;
   * it is never stored and never answered through the API. Absent when there
   * is nothing to add to `errorMessage`.
   */
  errorDetail?: string;
  /** Wall time of the attempt in ms. */
  durationMs: number;
  /**
   * Up to 4 KiB of the response body, decoded as UTF-8, without control
   * characters (tabs and line feeds kept); null when none was read. Written by
   * the receiver: untrusted text.
   */
  responseExcerpt: string | null;
  /** Parsed `Retry-After` of a 429 or 503, in ms from now; null otherwise. */
  retryAfterMs: number | null;
}
