import type { WebhookService } from '@svc/webhooks-core';
import { type Authenticate, createWebhooksRouter } from '@svc/webhooks-express';
import { createWebhooksPortal } from '@svc/webhooks-express/portal';
import type express from 'express';

/** The host's own session cookie, set by its sign-in page (HttpOnly, Secure, SameSite=Lax). */
function sessionToken(req: express.Request): string | null {
  return /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1] ?? null;
}

/**
 * Agents who signed in to the host manage their agency's webhooks at /settings/webhooks: the API reads
 * the same session cookie as the rest of the host, so the page needs no token in JavaScript.
 */
export function mountWebhookSettings(
  app: express.Express,
  service: WebhookService,
  authenticate: Authenticate,
) {
  app.use('/v1/agency/webhooks', createWebhooksRouter({ service, authenticate, readToken: sessionToken }));
  app.use(
    '/settings/webhooks',
    createWebhooksPortal({
      title: 'Webhooks',
      stylesheet: '/brand/webhooks.css',
      // The page shows receivers the full address of the agency's public keys (v1a signatures).
      agencyId: async (req) => {
        const token = sessionToken(req);
        return token === null ? undefined : (await authenticate(token, req))?.agencyId;
      },
    }),
  );
}
