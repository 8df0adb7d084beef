import { WebhookError } from '@svc/webhooks-core';

/**
 * Starts the message of every error meant for the host's developer (a wiring
 * mistake such as a missing option), so the log line says where it came from.
 * Errors that answer an API client's request name no package.
 */
export const PACKAGE_NAME = '@svc/webhooks-express';

/**
 * Every error code the management API answers with, each with its HTTP status
 * and a one-line summary (used in the OpenAPI document). This is the one table
 * that maps a `code` to a status: core's errors carry a stable `code` and no
 * status, and the router's own refusals (auth, routing, body parsing) use codes
 * from the same table, so every error answer is decided here.
 */
export const apiErrorCodes = {
  invalid_json: { status: 400, summary: 'The request body is not a JSON object or array.' },
  invalid_request: {
    status: 400,
    summary:
      'The request could not be read: a body aborted, of the wrong length or not inflatable, a path that is not valid percent-encoding, or more than one `authorization` header.',
  },
  validation_failed: {
    status: 400,
    summary: 'A body field or query parameter is invalid; see `details.issues`.',
  },
  invalid_webhook_url: {
    status: 400,
    summary:
      'The webhook URL breaks the URL policy; `details.reason` is `invalid_url`, `not_https`, `unresolvable_host` or `private_address`.',
  },
  unknown_event_type: { status: 400, summary: 'A subscribed event type is not in the event catalogue.' },
  invalid_metadata: { status: 400, summary: 'Event metadata does not match its event type.' },
  unauthorized: { status: 401, summary: 'The `authorization` header is missing or the token is not valid.' },
  forbidden: {
    status: 403,
    summary: 'The agent’s role may not manage webhooks (only `owner` and `admin` may).',
  },
  agency_inactive: { status: 403, summary: 'The agent’s agency is not active.' },
  untrusted_origin: {
    status: 403,
    summary:
      'Cookie mode only (the router reads a session cookie): a change that does not show it comes from the host’s own pages. Send it from the same origin, or with an `X-Webhooks-Client` header. Nothing was changed.',
  },
  not_found: { status: 404, summary: 'No endpoint has this path.' },
  config_not_found: { status: 404, summary: 'The agency has no webhook configuration yet.' },
  delivery_not_found: { status: 404, summary: 'The agency has no delivery with this id.' },
  recovery_not_found: { status: 404, summary: 'The agency has no bulk recovery with this id.' },
  method_not_allowed: {
    status: 405,
    summary: 'The path exists but not with this method; see the `Allow` header.',
  },
  delivery_not_replayable: { status: 409, summary: 'Only a `failed` delivery can be replayed.' },
  recovery_in_progress: {
    status: 409,
    summary:
      'The agency has a running bulk recovery; wait for it or cancel it first. `details.recoveryId` names it.',
  },
  recovery_not_running: { status: 409, summary: 'Only a running bulk recovery can be cancelled.' },
  payload_too_large: { status: 413, summary: 'The request body is larger than the router’s `bodyLimit`.' },
  unsupported_media_type: {
    status: 415,
    summary:
      'The request body must be sent as `Content-Type: application/json` (UTF-8); in cookie mode every change must, also without a body.',
  },
  rate_limited: {
    status: 429,
    summary:
      'Too many requests of this kind for the agency (test sends; bulk recovery dry runs and starts, which share one allowance); nothing was sent, counted or started. Retry after the `Retry-After` header’s seconds.',
  },
  internal_error: {
    status: 500,
    summary: 'Something unexpected failed; the details are logged, not returned.',
  },
  store_unavailable: {
    status: 503,
    summary:
      'The store could not be reached for a moment (a Redis failover, say); the request may or may not have taken effect. Retry it unchanged after the `Retry-After` header’s seconds.',
  },
} as const satisfies Record<string, { status: number; summary: string }>;

/** Every `error.code` the management API answers with. Renaming one is a breaking change. */
export type WebhookApiErrorCode = keyof typeof apiErrorCodes;

/**
 * A refusal decided by the router itself (authentication, role, routing, body
 * parsing), as opposed to the typed errors core throws. Its `code` is one of
 * the API's error codes; the status comes from the same table as core's.
 * It answers the API client, so its message names no package.
 */
export class WebhookApiError extends WebhookError {
  declare readonly code: WebhookApiErrorCode;

  constructor(code: WebhookApiErrorCode, message: string, options?: { cause?: unknown; details?: unknown }) {
    super(code, message, options);
  }
}

/** Whether `code` is one of the API's error codes. */
export function isApiErrorCode(code: unknown): code is WebhookApiErrorCode {
  return typeof code === 'string' && Object.hasOwn(apiErrorCodes, code);
}

/** The HTTP status of an API error code. */
export function statusOfCode(code: WebhookApiErrorCode): number {
  return apiErrorCodes[code].status;
}

/** The codes answered with `status`, in table order (for documentation). */
export function codesWithStatus(status: number): WebhookApiErrorCode[] {
  return (Object.keys(apiErrorCodes) as WebhookApiErrorCode[]).filter(
    (code) => apiErrorCodes[code].status === status,
  );
}

/**
 * The host's `authenticate` returned an agent the router cannot scope a request
 * to (an empty or non-string `agencyId`). A bug in the host, not in the request:
 * the client gets a plain 500 `internal_error`, and this error, with its code
 * `invalid_agent`, goes to the router's `onError`.
 */
export class InvalidAgentError extends WebhookError {
  declare readonly code: 'invalid_agent';
  /** The field of the returned agent that is wrong, such as `agencyId`. */
  readonly field: string;
  constructor(field: string, message: string) {
    super('invalid_agent', `${PACKAGE_NAME}: ${message}`, { details: { field } });
    this.field = field;
  }
}
