/**
 * Express middleware of `@svc/webhooks-verify` (`@svc/webhooks-verify/express`). It uses structural
 * request and response types, so the package has no dependency on Express; it works with Express 4
 * and 5 and anything with the same `req.body` / `res.status().json()` shape.
 *
 * @packageDocumentation
 * @module @svc/webhooks-verify/express
 */
import type { WebhookEvent } from './envelope';
import { invalidOption, rejectsDelivery, toVerificationErrorBody, WebhookVerificationError } from './errors';
import { SIGNATURE_HEADER } from './header';
import { verifyWebhook } from './index';
import { resolveVerifyOptions } from './options';
import { EXPRESS_RAW_HINT } from './raw-body';
import { readSecrets, type WebhookSecret } from './secret';

export type { VerificationErrorBody } from './errors';

declare global {
  // Express declares this open interface for extensions; merging into it types `req.webhook` in handlers.
  namespace Express {
    interface Request {
      /**
       * The verified delivery envelope, set by `verifyWebhookMiddleware`; checking `eventType` narrows
       * `metadata` for the built-in event types.
       */
      webhook?: WebhookEvent;
    }
  }
}

/** The parts of an Express request the middleware reads and writes. */
export interface WebhookMiddlewareRequest {
  /** The raw body `express.raw()` produced: a `Buffer`. */
  body?: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** Set to the verified envelope before `next()` is called. */
  webhook?: WebhookEvent;
}

/** The parts of an Express response the middleware uses to answer 401. */
export interface WebhookMiddlewareResponse {
  status(code: number): { json(body: unknown): unknown };
}

/** Express's `next`. */
export type WebhookMiddlewareNext = (error?: unknown) => void;

/** Looks up the secret per request, e.g. per tenant from the URL; `undefined` rejects the request. */
export type WebhookSecretLookup<TRequest> = (
  req: TRequest,
) => WebhookSecret | undefined | Promise<WebhookSecret | undefined>;

/** Where the middleware gets its secret: exactly one of `secret`, `secrets` or `getSecret`. */
export type WebhookSecretSource<TRequest> =
  | { secret: WebhookSecret; secrets?: never; getSecret?: never }
  | { secrets: readonly string[]; secret?: never; getSecret?: never }
  | { getSecret: WebhookSecretLookup<TRequest>; secret?: never; secrets?: never };

/** Options of {@link verifyWebhookMiddleware}. */
export type VerifyWebhookMiddlewareOptions<TRequest = WebhookMiddlewareRequest> =
  WebhookSecretSource<TRequest> & {
    /**
     * How far `t` may lie from now, in milliseconds, in either direction.
     * @default 300_000
     * @example { secret, toleranceMs: 600_000 }
     */
    toleranceMs?: number;
  };

/** An Express request handler. */
export type WebhookMiddleware<TRequest> = (
  req: TRequest,
  res: WebhookMiddlewareResponse,
  next: WebhookMiddlewareNext,
) => void;

/**
 * Verifies the delivery in `req.body` (a `Buffer` from `express.raw`) and the `X-Service-Signature`
 * header. On success it sets `req.webhook` to the envelope and calls `next()`; on failure it answers
 * 401 with a {@link VerificationErrorBody}, `{ "error": { "code", "message" } }`. Other errors (a throwing
 * `getSecret`) go to `next(error)`.
 *
 * @throws {@link @svc/webhooks-verify!WebhookVerificationError} at setup: `invalid_option` when not exactly
 * one of `secret`, `secrets` and `getSecret` is given or `toleranceMs` is unusable; `invalid_secret` for an
 * unusable static secret.
 *
 * @example
 * ```ts
 * app.post(
 *   '/webhooks',
 *   express.raw({ type: 'application/json' }),
 *   verifyWebhookMiddleware({ secret: process.env.WEBHOOK_SECRET! }),
 *   (req, res) => {
 *     console.log(req.webhook?.eventType);
 *     res.sendStatus(204);
 *   },
 * );
 * ```
 */
export function verifyWebhookMiddleware<TRequest extends WebhookMiddlewareRequest = WebhookMiddlewareRequest>(
  options: VerifyWebhookMiddlewareOptions<TRequest>,
): WebhookMiddleware<TRequest> {
  const lookup = secretLookup(options);
  const { toleranceMs } = resolveVerifyOptions({ toleranceMs: options.toleranceMs, now: 0 });
  return (req, res, next) => {
    verifyRequest(req, lookup, toleranceMs).then(
      (envelope) => {
        req.webhook = envelope;
        next();
      },
      (error: unknown) => {
        if (rejectsDelivery(error)) res.status(401).json(toVerificationErrorBody(error));
        else next(error);
      },
    );
  };
}

async function verifyRequest<TRequest extends WebhookMiddlewareRequest>(
  req: TRequest,
  lookup: WebhookSecretLookup<TRequest>,
  toleranceMs: number,
): Promise<WebhookEvent> {
  const body = rawBodyOf(req);
  const secret = await lookup(req);
  // verifyWebhook fails closed on an undefined secret (invalid_secret).
  return verifyWebhook(body, req.headers[SIGNATURE_HEADER], secret as WebhookSecret, { toleranceMs });
}

/**
 * Resolves the secret option once, at setup. A static secret is checked here, so a missing environment
 * variable or a masked secret stops the app at boot instead of turning every delivery into a 401.
 */
function secretLookup<TRequest>(
  options: VerifyWebhookMiddlewareOptions<TRequest>,
): WebhookSecretLookup<TRequest> {
  // Counts keys, not values: `{ secret: process.env.UNSET }` must report the missing secret itself.
  const given = SECRET_OPTIONS.filter((key) => key in options);
  if (given.length !== 1) {
    throw invalidOption(
      `verifyWebhookMiddleware needs exactly one of the options secret, secrets or getSecret; got ${
        given.length === 0 ? 'none' : given.join(' and ')
      }.`,
    );
  }
  if (typeof options.getSecret === 'function') return options.getSecret;
  const secrets = readSecrets(options.secret ?? options.secrets);
  return () => secrets;
}

const SECRET_OPTIONS = ['secret', 'secrets', 'getSecret'] as const;

/** Returns the raw body, or explains which middleware setup mistake left something else in `req.body`. */
function rawBodyOf(req: WebhookMiddlewareRequest): string | Uint8Array {
  const { body } = req;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  const problem =
    body === undefined || body === null
      ? 'req.body is empty: no raw body parser ran on this route (or the request is not Content-Type: application/json).'
      : 'req.body is a parsed object: a JSON body parser such as express.json() ran before verifyWebhookMiddleware, ' +
        'so the exact bytes that were signed are gone.';
  throw new WebhookVerificationError('invalid_body', `${problem} ${EXPRESS_RAW_HINT}`);
}
