import { WebhookError } from '@svc/webhooks-core';
import type { WebhooksApiErrorCode } from './error-codes';

/**
 * A refusal decided by the router itself (authentication, role, routing, body
 * parsing), as opposed to the typed errors core throws. Its `code` is one of
 * the API's error codes; the status comes from the same table as core's.
 */
export class WebhooksApiError extends WebhookError {
  declare readonly code: WebhooksApiErrorCode;

  constructor(code: WebhooksApiErrorCode, message: string, options?: { cause?: unknown; details?: unknown }) {
    super(code, message, options);
  }
}
