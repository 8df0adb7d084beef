import { WebhookError } from '@svc/webhooks-core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { InvalidAgentError, PACKAGE_NAME, WebhookApiError } from './errors';

/** Role of an agent within its agency. Only `owner` and `admin` may manage webhooks. */
export type AgentRole = 'owner' | 'admin' | 'agent';

/** Who made a request, as the host's {@link Authenticate} function reports it. */
export interface AuthenticatedAgent {
  agentId: string;
  /** Every read and change of the request is scoped to this agency. */
  agencyId: string;
  role: AgentRole;
  /** False when the agency is suspended or closed: the request is refused with 403 `agency_inactive`. */
  agencyActive: boolean;
}

/**
 * Resolves an agent token to the agent, or to `null` when the token is not valid
 * (answered 401 `unauthorized`). Throwing is answered 500, so reserve it for
 * failures (the user store is down), not for bad tokens.
 *
 * @param token - the `authorization` header with an optional `Bearer ` prefix removed
 * @param req - the request, for hosts that need more than the token (tracing ids, client address)
 * @example
 * ```ts
 * const authenticate: Authenticate = async (token) => {
 *   const session = await sessions.find(token);
 *   if (!session) return null;
 *   return { agentId: session.agentId, agencyId: session.agencyId, role: session.role, agencyActive: session.agency.active };
 * };
 * ```
 */
export type Authenticate = (
  token: string,
  req: Request,
) => Promise<AuthenticatedAgent | null> | AuthenticatedAgent | null;

const AGENT_LOCAL = 'svcWebhooksAgent';
const MANAGING_ROLES: ReadonlySet<string> = new Set<AgentRole>(['owner', 'admin']);
const BEARER_PREFIX = /^bearer\s+/i;

/**
 * The token of an `authorization` header value: the raw value, or what follows
 * `Bearer ` (any case). Null when the header is missing or holds no token.
 */
export function readAgentToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const trimmed = header.trim();
  const token = BEARER_PREFIX.test(trimmed) ? trimmed.replace(BEARER_PREFIX, '') : trimmed;
  return token === '' || /^bearer$/i.test(token) ? null : token;
}

/**
 * Finds the agent's token in a request: the `authorization` header by default
 * ({@link readAgentToken}). A host whose agents sign in with a session cookie reads
 * the cookie here instead, so that its own pages (the portal among them) need no
 * token in JavaScript. Null means "no credentials" (401 `unauthorized`).
 *
 * @example
 * ```ts
 * readToken: (req) => parseCookie(req.headers.cookie ?? '').session ?? null
 * ```
 */
export type ReadToken = (req: Request) => string | null;

/** The default {@link ReadToken}: the `authorization` header, raw or as `Bearer <token>`. */
export const readAuthorizationToken: ReadToken = (req) => readAgentToken(req.headers.authorization);

/**
 * Middleware that authenticates the request and applies the role rules, in the
 * order a client can fix them: one `authorization` header (400
 * `invalid_request`), who you are (401), whether your agency is active
 * (403 `agency_inactive`), whether your role may manage webhooks (403 `forbidden`).
 */
export function createAuthMiddleware(
  authenticate: Authenticate,
  readToken: ReadToken = readAuthorizationToken,
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    assertOneAuthorization(req);
    const token = readToken(req);
    if (token === null || token === '') {
      throw new WebhookApiError(
        'unauthorized',
        readToken === readAuthorizationToken
          ? 'Send an agent token in the authorization header (raw or as "Bearer <token>").'
          : 'Sign in first: this request carries no credentials.',
      );
    }
    const agent = await authenticate(token, req);
    if (agent === null || agent === undefined) {
      throw new WebhookApiError('unauthorized', 'The agent token is not valid.');
    }
    assertAgentShape(agent);
    if (agent.agencyActive !== true) {
      throw new WebhookApiError('agency_inactive', 'The agency of this agent is not active.');
    }
    if (!MANAGING_ROLES.has(agent.role)) {
      throw new WebhookApiError('forbidden', 'Only agents with the owner or admin role may manage webhooks.');
    }
    res.locals[AGENT_LOCAL] = agent;
    next();
  };
}

/**
 * Refuses a request with more than one `authorization` header (400
 * `invalid_request`). Node keeps only the first in `req.headers`, and a proxy
 * in front may have read the last: two parties could each authenticate a
 * different agent for one request. Counted in `headersDistinct`, which keeps them all.
 */
function assertOneAuthorization(req: Request): void {
  const count = req.headersDistinct.authorization?.length ?? 0;
  if (count > 1) {
    throw new WebhookApiError(
      'invalid_request',
      `Send exactly one authorization header; this request has ${count}.`,
      { details: { header: 'authorization', count } },
    );
  }
}

/** The agent that {@link createAuthMiddleware} authenticated for this response. */
export function agentOf(res: Response): AuthenticatedAgent {
  const agent = res.locals[AGENT_LOCAL] as AuthenticatedAgent | undefined;
  // Reaching a handler without the middleware is a bug in this package, never a client error:
  // it is answered 500 (its code is not an API code) and reported to `onError`.
  if (!agent) {
    throw new WebhookError(
      'agent_missing',
      `${PACKAGE_NAME}: no authenticated agent on this request (the auth middleware did not run). This is a bug in ${PACKAGE_NAME}; please report it.`,
    );
  }
  return agent;
}

/**
 * Tenant isolation hangs on `agencyId`: an `authenticate` that returns an empty
 * or non-string id is a host bug, answered 500 rather than scoped to nothing.
 */
function assertAgentShape(agent: AuthenticatedAgent): void {
  if (typeof agent.agencyId !== 'string' || agent.agencyId === '') {
    throw new InvalidAgentError(
      'agencyId',
      'authenticate() returned an agent without a non-empty string agencyId. Return the agent with the id of its agency, or null when the token is not valid.',
    );
  }
}
