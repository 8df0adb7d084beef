import { isApiErrorCode, statusOfCode, WebhookApiError, type WebhookApiErrorCode } from './errors';

/**
 * Body of every error answer of the management API.
 *
 * @example
 * ```json
 * { "error": { "code": "delivery_not_replayable", "message": "Delivery \"…\" is success; only a failed delivery can be replayed.", "details": { "deliveryId": "…", "status": "success" } } }
 * ```
 */
export interface WebhookApiErrorBody {
  error: {
    /** Stable snake_case code; switch on this, never on `message`. */
    code: WebhookApiErrorCode;
    /** Human-readable explanation, saying what to do next where possible. */
    message: string;
    /** Data the client can act on: `issues` for validation errors, `reason` for a refused URL, ids. */
    details?: unknown;
  };
}

/** An error translated into an HTTP answer. */
export interface ErrorAnswer {
  status: number;
  body: WebhookApiErrorBody;
  /** Headers the answer carries besides the body (`Retry-After` of a 429 or a 503). */
  headers: Record<string, string>;
  /** True when the error was not a deliberate refusal: it is answered as 500 and should be logged. */
  unexpected: boolean;
}

const INTERNAL_ERROR_MESSAGE =
  'An unexpected error occurred. Try again later; if it persists, contact support.';

/**
 * Translates anything thrown while serving a request into its answer. An error
 * whose `code` is in the table is answered with that code, its message and its
 * details; anything else is answered as a generic 500 — the message and stack of
 * an unexpected error may hold internals (SQL, hostnames) and never leave the server.
 * That includes the errors meant for the host's developer (`invalid_agent`,
 * `invalid_option`): their codes are not in the table, so they reach `onError` only.
 */
export function toErrorAnswer(thrown: unknown): ErrorAnswer {
  const error = routerRefusal(thrown) ?? thrown;
  const code = deliberateCode(error);
  if (code === null || !(error instanceof Error)) {
    return {
      status: 500,
      body: { error: { code: 'internal_error', message: INTERNAL_ERROR_MESSAGE } },
      headers: {},
      unexpected: true,
    };
  }
  const details = (error as { details?: unknown }).details;
  return {
    status: statusOfCode(code),
    body: {
      error:
        details === undefined ? { code, message: error.message } : { code, message: error.message, details },
    },
    headers: headersOf(code, details),
    unexpected: false,
  };
}

/**
 * Express's router throws a `URIError` with status 400 when a path parameter is
 * not valid percent-encoding (`/deliveries/%zz`), before any handler runs: the
 * client's mistake, answered 400 `invalid_request` rather than 500.
 */
function routerRefusal(error: unknown): WebhookApiError | null {
  if (!(error instanceof URIError) || (error as { status?: unknown }).status !== 400) return null;
  return new WebhookApiError('invalid_request', 'The request path is not valid percent-encoding.', {
    cause: error,
  });
}

/**
 * The API code of a deliberate error, read from its `code` rather than its class
 * so that errors from a second copy of core (ESM and CJS both loaded) map alike.
 * `internal_error` is never taken from a thrown error: it is only the fallback.
 */
function deliberateCode(error: unknown): WebhookApiErrorCode | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  return isApiErrorCode(code) && code !== 'internal_error' ? code : null;
}

/** `Retry-After` in whole seconds (at least 1) for a refusal that says when to come back. */
function headersOf(code: WebhookApiErrorCode, details: unknown): Record<string, string> {
  const retryAfterMs = (details as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  if ((code !== 'rate_limited' && code !== 'store_unavailable') || typeof retryAfterMs !== 'number')
    return {};
  return { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
}
