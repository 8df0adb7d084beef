import { InvalidOptionError, type WebhookService } from '@svc/webhooks-core';
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import {
  type Authenticate,
  agentOf,
  createAuthMiddleware,
  type ReadToken,
  readAuthorizationToken,
} from './authentication';
import { checkedOrigin, createCrossSiteGuard } from './cross-site-guard';
import { toErrorAnswer } from './error-response';
import { PACKAGE_NAME, WebhookApiError } from './errors';
import { createJsonBodyMiddleware } from './json-body';
import type { ApiRoute } from './route-contract';
import { apiRoutes } from './routes';

/** Options of {@link createWebhooksRouter}. */
export interface WebhooksRouterOptions {
  /** The service whose configurations and deliveries the endpoints manage. */
  service: WebhookService;
  /** Resolves the `authorization` token to an agent; see {@link Authenticate}. */
  authenticate: Authenticate;
  /**
   * Where a request's token is: the `authorization` header by default. Give a function
   * reading the host's session cookie to let signed-in agents use the API (and the
   * portal) without a token in JavaScript; see {@link ReadToken}.
   *
   * With a `readToken` the router is in cookie mode, where a browser may attach the
   * credential to a request another page makes. Every change (POST, PUT, PATCH, DELETE)
   * must then show it comes from the host's own pages, or is refused with 403
   * `untrusted_origin`: `Sec-Fetch-Site: same-origin` (or `none`), an `Origin` equal to
   * the request's own origin or one of `trustedOrigins`, or an `X-Webhooks-Client`
   * header (any value; the portal sends it, and a cross-site form cannot). Every change
   * must also be sent with `Content-Type: application/json`, bodyless POSTs included
   * (415 `unsupported_media_type`). Keep the cookie `HttpOnly`, `Secure` and
   * `SameSite=Lax` or `Strict`, ideally named with the `__Host-` prefix.
   * @default reads `authorization` (bearer mode: no origin check, since a browser never
   * sends that header on another page's behalf)
   */
  readToken?: ReadToken;
  /**
   * Cookie mode only (with `readToken`): origins besides the request's own whose pages may
   * make changes with the cookie, such as the host's admin app on another subdomain. Each
   * is an exact origin, as a browser sends it in `Origin`: scheme, host and port if not the
   * default, no path and no trailing slash. A request's own origin is read from
   * `req.protocol` and `Host`, so behind a proxy that ends TLS set Express's `trust proxy`
   * (or list the public origin here).
   * @default [] (the request's own origin only)
   * @example
   * ```ts
   * trustedOrigins: ['https://admin.example.com']
   * ```
   */
  trustedOrigins?: readonly string[];
  /**
   * Largest accepted JSON body, in bytes or as a string such as `'1mb'`; larger bodies get 413.
   * Must be more than zero.
   * @default '100kb'
   */
  bodyLimit?: string | number;
  /**
   * Called with every error answered as 500 `internal_error`, for logging: the
   * client sees only a generic message, so this is where the real error goes.
   * Deliberate refusals (4xx) are not reported. Must not throw.
   * @default undefined (nothing is logged)
   * @example
   * ```ts
   * onError: (error, req) => logger.error({ err: error, path: req.originalUrl }, 'webhooks API failed')
   * ```
   */
  onError?: (error: unknown, req: Request) => void;
  /**
   * Serve `GET /public-keys/:agencyId`, the JWK Set receivers verify Ed25519 (`v1a`) signatures
   * with. It is the one endpoint served without a token (public keys are not secrets), to anyone
   * who knows an agency id, and it tells whether that agency has a configuration (404 otherwise).
   * Set `false` to leave it out (it then answers 404 `not_found`, like any unknown path) and
   * publish the keys another way, such as from `webhooks.getPublicKeys(agencyId)` behind the
   * host's own access rules.
   * @default true
   */
  publicKeys?: boolean;
}

/**
 * Creates the Express 5 router of the management API: the seven endpoints of
 * the spec and the operations endpoints beside them (a delivery's attempts),
 * with authentication, role rules, JSON bodies and JSON errors. Every endpoint
 * needs an agent token but one: `GET /public-keys/:agencyId` (see `publicKeys`).
 *
 * Mount it at `/v1/agency/webhooks`. It owns everything under that path: it
 * parses its own JSON bodies (add no `express.json()` in front of it), answers an
 * unknown path with 404 `not_found` and a wrong method with 405 `method_not_allowed`,
 * and never passes a request on to the host's later handlers.
 *
 * @throws {InvalidOptionError} when `service` or `authenticate` is missing or of the
 *   wrong kind, `bodyLimit` is not a positive size, `onError` or `readToken` is not a
 *   function, `publicKeys` is not a boolean, or `trustedOrigins` is not a list of origins or is
 *   given without `readToken`
 * @example
 * ```ts
 * const app = express();
 * app.use('/v1/agency/webhooks', createWebhooksRouter({ service: webhooks, authenticate }));
 * ```
 */
export function createWebhooksRouter(options: WebhooksRouterOptions): Router {
  checkOptions(options);
  const router = express.Router({ caseSensitive: true });
  const authenticate = createAuthMiddleware(options.authenticate, options.readToken);
  const jsonBody = createJsonBodyMiddleware(options.bodyLimit ?? '100kb');
  // Before authentication: a forged change reaches neither the host's `authenticate` nor a handler.
  const crossSite = isCookieMode(options) ? [createCrossSiteGuard(options.trustedOrigins ?? [])] : [];
  router.use(noStore);
  for (const [path, routes] of routesByPath(mountedRoutes(options))) {
    const route = router.route(path);
    for (const definition of routes) {
      // Authentication is per route, never router-wide: a public route has no token to check.
      const access = definition.access === 'public' ? [] : [...crossSite, authenticate];
      const body =
        definition.body === undefined ? [] : definition.bodyOptional ? [whenBodySent(jsonBody)] : jsonBody;
      route[definition.method](...access, ...body, serve(definition, options.service));
    }
    route.all(methodNotAllowed(routes));
  }
  router.use(notFound);
  router.use(answerError(options.onError));
  return router;
}

/** Whether the credential may be one a browser attaches by itself (a cookie), not the `authorization` header. */
function isCookieMode(options: WebhooksRouterOptions): boolean {
  return options.readToken !== undefined && options.readToken !== readAuthorizationToken;
}

/** The service methods the endpoints call. */
const SERVICE_METHODS = [
  'putConfig',
  'getConfig',
  'rotateSecret',
  'sendTest',
  'listDeliveries',
  'getDelivery',
  'replay',
  'rotateSigningKey',
  'getPublicKeys',
] as const satisfies readonly (keyof WebhookService)[];

/** The routes this router mounts: every one, less those an option turns off. */
function mountedRoutes(options: WebhooksRouterOptions): ApiRoute[] {
  return apiRoutes.filter(
    (route) => route.optionalUnder === undefined || options[route.optionalUnder] !== false,
  );
}

/** `'100kb'`, `'1.5mb'`, `'512'`: sizes body-parser reads as written (bytes when no unit). */
const SIZE = /^(\d+ *b?|\d+(\.\d+)? *(kb|mb|gb|tb|pb))$/i;

/**
 * Refuses options the router cannot work with when it is created, at the
 * host's wiring, instead of failing on the first request (a missing service)
 * or refusing every body (a `bodyLimit` of 0 or below).
 */
function checkOptions(options: WebhooksRouterOptions): void {
  const { service, authenticate, readToken, bodyLimit, onError, publicKeys } = (options ??
    {}) as Partial<WebhooksRouterOptions>;
  const missing = SERVICE_METHODS.find((method) => typeof service?.[method] !== 'function');
  if (typeof service !== 'object' || service === null || missing !== undefined) {
    const got =
      typeof service === 'object' && service !== null ? `an object without ${missing}()` : describe(service);
    refuse('service', `service must be the WebhookService that createWebhookService() returns; got ${got}.`);
  }
  if (typeof authenticate !== 'function') {
    refuse(
      'authenticate',
      `authenticate must be a function (token, req) => agent | null; got ${describe(authenticate)}.`,
    );
  }
  if (bodyLimit !== undefined && !isPositiveSize(bodyLimit)) {
    refuse(
      'bodyLimit',
      `bodyLimit must be a number of bytes above 0 or a size such as '100kb' or '1mb'; got ${describe(bodyLimit)}.`,
    );
  }
  if (readToken !== undefined && typeof readToken !== 'function') {
    refuse('readToken', `readToken must be a function (req) => string | null; got ${describe(readToken)}.`);
  }
  checkTrustedOrigins(options);
  if (onError !== undefined && typeof onError !== 'function') {
    refuse('onError', `onError must be a function (error, req) => void; got ${describe(onError)}.`);
  }
  if (publicKeys !== undefined && typeof publicKeys !== 'boolean') {
    refuse('publicKeys', `publicKeys must be true or false; got ${describe(publicKeys)}.`);
  }
}

/**
 * `trustedOrigins` are compared as strings with the browser's `Origin`, so one written another way
 * (`https://a.example/`, upper case) would never match: refused with the form that would.
 */
function checkTrustedOrigins(options: WebhooksRouterOptions): void {
  const { trustedOrigins } = (options ?? {}) as Partial<WebhooksRouterOptions>;
  if (trustedOrigins === undefined) return;
  if (!Array.isArray(trustedOrigins)) {
    refuse('trustedOrigins', `trustedOrigins must be an array of origins; got ${describe(trustedOrigins)}.`);
  }
  if (!isCookieMode(options)) {
    refuse(
      'trustedOrigins',
      'trustedOrigins applies to cookie mode only: give readToken too, or leave trustedOrigins out (bearer tokens are never sent on another site’s behalf).',
    );
  }
  for (const origin of trustedOrigins) {
    if (checkedOrigin(origin) !== null) continue;
    const suggestion =
      typeof origin === 'string' && URL.canParse(origin) ? ` such as ${new URL(origin).origin}` : '';
    refuse(
      'trustedOrigins',
      `trustedOrigins must hold origins (scheme://host[:port], no path or trailing slash)${suggestion}; got ${describe(origin)}.`,
    );
  }
}

function isPositiveSize(limit: unknown): boolean {
  if (typeof limit === 'number') return Number.isFinite(limit) && limit > 0;
  return typeof limit === 'string' && SIZE.test(limit) && Number.parseFloat(limit) > 0;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  return value !== null && typeof value === 'object' ? 'an object' : String(value);
}

function refuse(option: keyof WebhooksRouterOptions, message: string): never {
  throw new InvalidOptionError(PACKAGE_NAME, option, message);
}

function routesByPath(routes: readonly ApiRoute[]): Map<string, ApiRoute[]> {
  const byPath = new Map<string, ApiRoute[]>();
  // Paths with fewer parameters first: `/deliveries/recover` must be matched before `/deliveries/:id`
  // takes it (and answers 405 for a POST). The sort is stable, so the list's order holds otherwise.
  const ordered = [...routes].sort((a, b) => parameterCount(a.path) - parameterCount(b.path));
  for (const route of ordered) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return byPath;
}

function parameterCount(path: string): number {
  return path.split('/').filter((segment) => segment.startsWith(':')).length;
}

function serve(definition: ApiRoute, service: WebhookService): RequestHandler {
  return async (req: Request, res: Response) => {
    const { status, body } = await definition.handle(service, agencyOf(definition, req, res), req);
    const headers = definition.responses.find((response) => response.status === status)?.headers;
    if (headers !== undefined) res.set(headers);
    res.status(status).json(body);
  };
}

/**
 * The agency a request is served for: the authenticated agent's, or, on a public route,
 * the one its path names (Express has decoded and matched `:agencyId`, so it is never empty).
 */
function agencyOf(definition: ApiRoute, req: Request, res: Response): string {
  return definition.access === 'public' ? String(req.params.agencyId) : agentOf(res).agencyId;
}

/**
 * Runs the body middleware only for a request that carries a body, for routes whose body is optional:
 * a request without one (no `Transfer-Encoding`, no or a zero `Content-Length`, as a bare
 * `curl -X POST` sends) goes on with `req.body` undefined, exactly as on a route without a body.
 */
function whenBodySent(handlers: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const length = req.headers['content-length'];
    const sent = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!sent) {
      next();
      return;
    }
    const run = (index: number, error?: unknown): void => {
      const handler = handlers[index];
      if (error !== undefined || handler === undefined) {
        next(error);
        return;
      }
      try {
        handler(req, res, (failure?: unknown) => run(index + 1, failure));
      } catch (thrown) {
        next(thrown);
      }
    };
    run(0);
  };
}

/**
 * Answers contain signing secrets and per-tenant data: no shared or browser cache may keep them.
 * A route's documented response headers may replace it (the public keys are cacheable).
 */
const noStore: RequestHandler = (_req: Request, res: Response, next: NextFunction) => {
  res.set('Cache-Control', 'no-store');
  next();
};

/** The `Allow` header of a path: its methods, with HEAD wherever GET is (Express serves HEAD from GET). */
function allowedMethods(routes: readonly Pick<ApiRoute, 'method'>[]): string[] {
  const methods = routes.map((route) => route.method.toUpperCase());
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

function methodNotAllowed(routes: readonly ApiRoute[]): RequestHandler {
  const allow = allowedMethods(routes);
  return (req: Request, res: Response) => {
    res.set('Allow', allow.join(', '));
    throw new WebhookApiError(
      'method_not_allowed',
      `${req.method} is not allowed here; use ${allow.join(' or ')}.`,
      {
        details: { allow },
      },
    );
  };
}

const notFound: RequestHandler = (req: Request) => {
  throw new WebhookApiError('not_found', `No endpoint ${req.method} ${req.baseUrl}${req.path}.`);
};

/** Calls the host's logger; a logger that throws must not turn one failure into two. */
function report(onError: WebhooksRouterOptions['onError'], error: unknown, req: Request): void {
  try {
    onError?.(error, req);
  } catch {
    // Deliberately ignored: the answer to the client matters more than the log line.
  }
}

function answerError(onError: WebhooksRouterOptions['onError']): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const answer = toErrorAnswer(error);
    if (answer.unexpected) report(onError, error, req);
    if (res.headersSent) {
      // Too late for an error body; ending here still keeps the host's handlers out.
      res.end();
      return;
    }
    res.status(answer.status).set(answer.headers).json(answer.body);
  };
}
