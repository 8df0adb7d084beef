import { WebhookError } from '@svc/webhooks-core';
import { isWebhookVerificationError } from '@svc/webhooks-verify';
import { CommanderError } from 'commander';

/** Starts every message of ours, as in the other @svc/webhooks packages. */
export const PACKAGE_NAME = '@svc/webhooks-cli';

/**
 * The exit codes of `svc-webhooks`, stable for scripts.
 *
 * - `ok` (0): done; the receiver accepted, the signature is valid, the recovery completed.
 * - `rejected` (1): the command ran and the answer is no: the signature does not verify, the receiver
 *   answered a non-2xx status, the test event was not accepted, the recovery was cancelled.
 * - `usage` (2): a bad command line or input: unknown command or option, a missing or malformed value,
 *   an unknown event type, a `--set` that breaks the event's schema, an events module without a catalogue.
 * - `network` (3): no HTTP answer at all: connection refused, DNS, TLS, timeout.
 * - `api` (4): the management API refused the request (401, 403, 404, 409…); its error code is printed.
 * - `internal` (70): a bug in the CLI; the stack trace is printed.
 */
export const EXIT_CODES = {
  ok: 0,
  rejected: 1,
  usage: 2,
  network: 3,
  api: 4,
  internal: 70,
} as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** No HTTP answer came: the connection, DNS, TLS or the timeout failed. Exit code 3. */
export class RequestFailedError extends WebhookError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('request_failed', `${PACKAGE_NAME}: ${message}`, options);
  }
}

/** What the management API answered with an error status. */
export interface ManagementApiErrorDetails {
  /** HTTP status. */
  status: number;
  /** The API's `error.code`, or null when the body was not the API's error shape. */
  code: string | null;
}

/** The management API answered with an error (4xx or 5xx). Exit code 4. */
export class ManagementApiError extends WebhookError {
  declare readonly details: ManagementApiErrorDetails;
  constructor(message: string, details: ManagementApiErrorDetails) {
    super('management_api_error', `${PACKAGE_NAME}: ${message}`, { details });
  }
}

/** Codes of core's errors that mean the user's input is wrong, not the CLI. */
const INPUT_ERROR_CODES: ReadonlySet<string> = new Set([
  'invalid_option',
  'invalid_event_definition',
  'example_missing',
  'validation_failed',
  'unknown_event_type',
]);

/** The exit code for an error that ended a command; the one place errors map to codes. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CommanderError) {
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
      ? EXIT_CODES.ok
      : EXIT_CODES.usage;
  }
  if (error instanceof RequestFailedError) return EXIT_CODES.network;
  if (error instanceof ManagementApiError) return EXIT_CODES.api;
  // A signing secret or timestamp the verify package refuses is bad input to `sign` or `trigger`.
  if (isWebhookVerificationError(error)) return EXIT_CODES.usage;
  if (error instanceof WebhookError && INPUT_ERROR_CODES.has(error.code)) return EXIT_CODES.usage;
  return EXIT_CODES.internal;
}
