import type { WebhookService } from '@svc/webhooks-core';
import type { Request } from 'express';
import type { WebhookApiErrorCode } from './errors';

/*
 * What a route of the management API is: the contract the route table (routes.ts)
 * fills in, the router mounts and the OpenAPI document describes.
 */

/**
 * A schema that can describe itself as JSON Schema: what the OpenAPI document
 * needs from core's zod schemas (kept structural so this package needs no zod import).
 */
export interface JsonSchemaSource {
  toJSONSchema(params?: { target?: 'draft-2020-12'; io?: 'input' | 'output' }): object;
}

/** What a handler answers: a status and a JSON body. */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

/** One success response of a route, for the OpenAPI document. */
export interface RouteResponse {
  status: number;
  description: string;
  schema: JsonSchemaSource;
  /**
   * Headers this answer always carries, by name: the router sets them and the document lists them.
   * A `Cache-Control` here replaces the router's `no-store`.
   */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Who may call a route. `'agent'`: an agent token of an owner or admin, and the route serves that
 * agent's agency. `'public'`: no token at all, and the route serves the agency named by the
 * `:agencyId` path parameter; only for answers meant for anyone (the public signing keys).
 */
export type RouteAccess = 'agent' | 'public';

/**
 * One endpoint of the management API. The router mounts exactly these and the
 * OpenAPI document describes exactly these, so the two cannot drift apart.
 */
export interface ApiRoute {
  method: 'get' | 'put' | 'post';
  /** Express path under the mount point, such as `/deliveries/:id`. */
  path: string;
  operationId: string;
  /**
   * Who may call it; see {@link RouteAccess}.
   * @default 'agent'
   */
  access?: RouteAccess;
  /** The router option that leaves this route out when set to `false`. */
  optionalUnder?: 'publicKeys';
  summary: string;
  description: string;
  /** JSON request body; the router requires `application/json` and parses it. */
  body?: JsonSchemaSource;
  /**
   * The body may be left out: a request without one (no `Content-Length` or 0, no `Transfer-Encoding`)
   * reaches the handler with `req.body` undefined; one with a body is parsed as above.
   */
  bodyOptional?: boolean;
  /** Query parameters (the service validates them with this same schema). */
  query?: JsonSchemaSource;
  /** Descriptions of parameters for the document, by name (the schemas describe values, not their use). */
  parameterDescriptions?: Readonly<Record<string, string>>;
  responses: readonly RouteResponse[];
  /** Error codes this route can answer besides the ones every route of its access and method can ({@link commonErrorCodes}). */
  errors: readonly WebhookApiErrorCode[];
  /**
   * Serves the request for its agency (the authenticated agent's, or the path's for a public
   * route); the service validates the input.
   */
  handle(service: WebhookService, agencyId: string, req: Request): Promise<RouteAnswer>;
}

/**
 * Error codes every route can answer: a repeated `authorization` header, authentication, role, the
 * generic 500, and the 503 of a store that cannot be reached for a moment.
 */
export const COMMON_ERROR_CODES: readonly WebhookApiErrorCode[] = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'agency_inactive',
  'internal_error',
  'store_unavailable',
];

/**
 * Error codes a public route can answer whatever it does: a path parameter that is not valid
 * percent-encoding, the generic 500 and the store's 503. No token is read, so none of the
 * authentication codes.
 */
export const PUBLIC_ERROR_CODES: readonly WebhookApiErrorCode[] = [
  'invalid_request',
  'internal_error',
  'store_unavailable',
];

/**
 * Error codes every change (a route that is not a GET) can answer when the router reads a session
 * cookie: a request that does not show it comes from the host's own pages, and one not sent as JSON.
 */
export const COOKIE_MODE_ERROR_CODES: readonly WebhookApiErrorCode[] = [
  'untrusted_origin',
  'unsupported_media_type',
];

/** The error codes every route of this access and method can answer. */
export function commonErrorCodes(route: Pick<ApiRoute, 'access' | 'method'>): readonly WebhookApiErrorCode[] {
  if (route.access === 'public') return PUBLIC_ERROR_CODES;
  return route.method === 'get' ? COMMON_ERROR_CODES : [...COMMON_ERROR_CODES, ...COOKIE_MODE_ERROR_CODES];
}

/** Error codes of reading a JSON body, added to every route that takes one. */
export const BODY_ERROR_CODES: readonly WebhookApiErrorCode[] = [
  'invalid_json',
  'invalid_request',
  'payload_too_large',
  'unsupported_media_type',
];
