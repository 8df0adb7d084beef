import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { WebhookApiError } from './errors';

/*
 * Why cookie mode needs this and bearer mode does not: a browser attaches a cookie to a request
 * another page makes (a cross-site form with `SameSite=None` or without the attribute, or a form on
 * a sibling subdomain, which is same-site, so even `SameSite=Strict` lets it through), but never an
 * `authorization` header. So when the router reads a cookie, a change must show that it comes from
 * the host's own pages, in one of three ways a cross-site form cannot fake: the browser's
 * `Sec-Fetch-Site`, the browser's `Origin`, or a custom header (which a form cannot send and a
 * cross-origin `fetch` cannot send without a CORS preflight the host would have to allow).
 * A JSON content type is required on top (a form cannot send one either), also without a body.
 */

/**
 * The header the portal sends with every request, and that any other client of a router in cookie
 * mode (a script, the host's own front end) sends to pass the same-origin check: any non-empty value.
 */
export const CLIENT_HEADER = 'x-webhooks-client';

/** The methods that change state; the others (GET, HEAD, OPTIONS) never do. */
const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `Sec-Fetch-Site` values of a request the page's own origin (or the user, typing it) made. */
const OWN_FETCH_SITES: ReadonlySet<string> = new Set(['same-origin', 'none']);

/**
 * Middleware of a router in cookie mode: refuses a state-changing request that does not show it comes
 * from the host's own origin or one of `trustedOrigins` (403 `untrusted_origin`), then one whose
 * `Content-Type` is not `application/json` (415 `unsupported_media_type`). Other requests pass.
 *
 * @param trustedOrigins - origins besides the request's own whose pages may make changes, such as
 *   `https://admin.example.com` (checked exactly; {@link checkedOrigin} normalizes them)
 */
export function createCrossSiteGuard(trustedOrigins: readonly string[]): RequestHandler {
  const trusted: ReadonlySet<string> = new Set(trustedOrigins);
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!STATE_CHANGING_METHODS.has(req.method)) {
      next();
      return;
    }
    assertOwnPage(req, trusted);
    assertJsonContentType(req);
    next();
  };
}

function assertOwnPage(req: Request, trusted: ReadonlySet<string>): void {
  const fetchSite = req.get('sec-fetch-site') ?? null;
  const origin = req.get('origin') ?? null;
  if (req.get(CLIENT_HEADER)?.trim()) return;
  if (fetchSite !== null && OWN_FETCH_SITES.has(fetchSite)) return;
  if (origin !== null && (origin === ownOrigin(req) || trusted.has(origin))) return;
  throw new WebhookApiError(
    'untrusted_origin',
    `Changes are accepted only from this site's own pages. Send the request from the same origin, or with an ${CLIENT_HEADER} header (the portal sends it).`,
    { details: { origin, fetchSite } },
  );
}

/**
 * The origin the request was sent to, as Express sees it: `req.protocol` follows the app's
 * `trust proxy` setting, so behind a proxy that ends TLS the host sets it (or lists the origin).
 */
function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? ''}`;
}

function assertJsonContentType(req: Request): void {
  const contentType = req.get('content-type') ?? null;
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/json') return;
  throw new WebhookApiError(
    'unsupported_media_type',
    'Every change is sent as JSON here: send it with Content-Type: application/json, also when it has no body.',
    { details: { contentType } },
  );
}

/**
 * `value` when it is exactly an origin (`scheme://host[:port]`, no path, no trailing slash, lower-case,
 * no default port), else null: what a browser sends in `Origin`, so that a match is a string comparison.
 */
export function checkedOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || !URL.canParse(value)) return null;
  const { origin } = new URL(value);
  return origin !== 'null' && origin === value ? origin : null;
}
