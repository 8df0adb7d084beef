/**
 * The one table that maps an error `code` to its HTTP status. Core's errors carry
 * a stable `code` and no status; the router's own refusals (auth, routing, body
 * parsing) use codes from the same table, so every error answer is decided here.
 */
export const webhooksApiErrors = {
  invalid_json: { status: 400, summary: 'The request body is not a JSON object or array.' },
  invalid_request: { status: 400, summary: 'The request body could not be read (aborted or wrong length).' },
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
  not_found: { status: 404, summary: 'No endpoint has this path.' },
  config_not_found: { status: 404, summary: 'The agency has no webhook configuration yet.' },
  delivery_not_found: { status: 404, summary: 'The agency has no delivery with this id.' },
  method_not_allowed: {
    status: 405,
    summary: 'The path exists but not with this method; see the `Allow` header.',
  },
  delivery_not_replayable: { status: 409, summary: 'Only a `failed` delivery can be replayed.' },
  payload_too_large: { status: 413, summary: 'The request body is larger than the router’s `bodyLimit`.' },
  unsupported_media_type: {
    status: 415,
    summary: 'The request body must be sent as `Content-Type: application/json` (UTF-8).',
  },
  internal_error: {
    status: 500,
    summary: 'Something unexpected failed; the details are logged, not returned.',
  },
} as const satisfies Record<string, { status: number; summary: string }>;

/** Every `error.code` the management API answers with. Renaming one is a breaking change. */
export type WebhooksApiErrorCode = keyof typeof webhooksApiErrors;

/** Whether `code` is one of the API's error codes. */
export function isApiErrorCode(code: unknown): code is WebhooksApiErrorCode {
  return typeof code === 'string' && Object.hasOwn(webhooksApiErrors, code);
}

/** The HTTP status of an API error code. */
export function statusOfCode(code: WebhooksApiErrorCode): number {
  return webhooksApiErrors[code].status;
}

/** The codes answered with `status`, in table order (for documentation). */
export function codesWithStatus(status: number): WebhooksApiErrorCode[] {
  return (Object.keys(webhooksApiErrors) as WebhooksApiErrorCode[]).filter(
    (code) => webhooksApiErrors[code].status === status,
  );
}
