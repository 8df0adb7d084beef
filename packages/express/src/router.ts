import type { WebhookService } from '@svc/webhooks-core';
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import { WebhooksApiError } from './api-error';
import { type Authenticate, agentOf, createAuthMiddleware } from './authentication';
import { toErrorAnswer } from './error-response';
import { createJsonBodyMiddleware } from './json-body';
import { type WebhooksRoute, webhooksRoutes } from './routes';

/** Options of {@link createWebhooksRouter}. */
export interface WebhooksRouterOptions {
  /** The service whose configurations and deliveries the endpoints manage. */
  service: WebhookService;
  /** Resolves the `authorization` token to an agent; see {@link Authenticate}. */
  authenticate: Authenticate;
  /**
   * Largest accepted JSON body, in bytes or as a string such as `'1mb'`; larger bodies get 413.
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
}

/**
 * Creates the Express 5 router of the management API: the seven endpoints of
 * the spec, with authentication, role rules, JSON bodies and JSON errors.
 *
 * Mount it at `/v1/agency/webhooks`. It owns everything under that path: it
 * parses its own JSON bodies (add no `express.json()` in front of it), answers an
 * unknown path with 404 `not_found` and a wrong method with 405 `method_not_allowed`,
 * and never passes a request on to the host's later handlers.
 *
 * @example
 * ```ts
 * const app = express();
 * app.use('/v1/agency/webhooks', createWebhooksRouter({ service: webhooks, authenticate }));
 * ```
 */
export function createWebhooksRouter(options: WebhooksRouterOptions): Router {
  const router = express.Router({ caseSensitive: true });
  const authenticate = createAuthMiddleware(options.authenticate);
  const jsonBody = createJsonBodyMiddleware(options.bodyLimit ?? '100kb');
  router.use(noStore);
  for (const [path, routes] of routesByPath(webhooksRoutes)) {
    const route = router.route(path);
    for (const definition of routes) {
      const body = definition.body === undefined ? [] : jsonBody;
      route[definition.method](authenticate, ...body, serve(definition, options.service));
    }
    route.all(methodNotAllowed(routes));
  }
  router.use(notFound);
  router.use(answerError(options.onError));
  return router;
}

function routesByPath(routes: readonly WebhooksRoute[]): Map<string, WebhooksRoute[]> {
  const byPath = new Map<string, WebhooksRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return byPath;
}

function serve(definition: WebhooksRoute, service: WebhookService): RequestHandler {
  return async (req: Request, res: Response) => {
    const { status, body } = await definition.handle(service, agentOf(res).agencyId, req);
    res.status(status).json(body);
  };
}

/** Answers contain signing secrets and per-tenant data: no shared or browser cache may keep them. */
const noStore: RequestHandler = (_req: Request, res: Response, next: NextFunction) => {
  res.set('Cache-Control', 'no-store');
  next();
};

/** The `Allow` header of a path: its methods, with HEAD wherever GET is (Express serves HEAD from GET). */
function allowedMethods(routes: readonly Pick<WebhooksRoute, 'method'>[]): string[] {
  const methods = routes.map((route) => route.method.toUpperCase());
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

function methodNotAllowed(routes: readonly WebhooksRoute[]): RequestHandler {
  const allow = allowedMethods(routes);
  return (req: Request, res: Response) => {
    res.set('Allow', allow.join(', '));
    throw new WebhooksApiError(
      'method_not_allowed',
      `${req.method} is not allowed here; use ${allow.join(' or ')}.`,
      {
        details: { allow },
      },
    );
  };
}

const notFound: RequestHandler = (req: Request) => {
  throw new WebhooksApiError('not_found', `No endpoint ${req.method} ${req.baseUrl}${req.path}.`);
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
    res.status(answer.status).json(answer.body);
  };
}
