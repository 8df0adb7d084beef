import { createMemoryQueue, createMemoryStore, createWebhookService } from '@svc/webhooks-core';
import express from 'express';
import request from 'supertest';
import { expect, it } from 'vitest';
import { mountWebhookSettings } from '../examples/portal-host';
import { renewTokenOnUnauthorized } from '../examples/portal-sign-in';

it('docs/examples/portal-host.ts: the page is served and the API takes the session cookie', async () => {
  const service = createWebhookService({ store: createMemoryStore(), queue: createMemoryQueue() });
  const app = express();
  mountWebhookSettings(app, service, (token) =>
    token === 'sess-1' ? { agentId: 'a1', agencyId: 'agency-a', role: 'owner', agencyActive: true } : null,
  );
  try {
    const page = await request(app).get('/settings/webhooks');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<link rel="stylesheet" href="/brand/webhooks.css">');
    expect(page.headers['content-security-policy']).toContain("style-src 'self'");
    const signedIn = await request(app)
      .get('/v1/agency/webhooks/event-types')
      .set('cookie', 'session=sess-1');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.eventTypes.length).toBeGreaterThan(0);
    const signedOut = await request(app).get('/v1/agency/webhooks/event-types');
    expect(signedOut.status).toBe(401);
  } finally {
    await service.close();
  }
});

it('docs/examples/portal-sign-in.ts: an unauthorized event gets the portal a new token', async () => {
  const portal = Object.assign(new EventTarget(), { token: 'expired' as string | undefined });
  renewTokenOnUnauthorized(portal, async () => 'fresh');
  portal.dispatchEvent(new Event('unauthorized'));
  await expect.poll(() => portal.token).toBe('fresh');
});
