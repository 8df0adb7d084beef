import { readFileSync } from 'node:fs';
import { InvalidOptionError } from '@svc/webhooks-core';
import { standaloneScriptPath } from '@svc/webhooks-portal/assets';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createWebhooksPortal, type WebhooksPortalOptions } from '../src/portal';

function appWith(options?: WebhooksPortalOptions) {
  const app = express();
  app.use('/settings/webhooks', createWebhooksPortal(options));
  return app;
}

describe('createWebhooksPortal serves a standalone page of the portal', () => {
  it('serves the page at its mount point, loading the script beside it, pointed at the API', async () => {
    const res = await request(appWith()).get('/settings/webhooks');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<script type="module" src="/settings/webhooks/portal.js"></script>');
    expect(res.text).toContain(
      '<svc-webhooks-portal api-base="/v1/agency/webhooks" url-state></svc-webhooks-portal>',
    );
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('sends a content security policy that runs only its own scripts and talks only to the API', async () => {
    const res = await request(appWith({ apiBase: 'https://api.example.com/v1/agency/webhooks' })).get(
      '/settings/webhooks/',
    );
    const policy = res.headers['content-security-policy'] as string;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self' https://api.example.com");
    expect(policy).toContain("frame-ancestors 'self'");
    expect(policy).not.toContain('unsafe');
  });

  it('writes the title, API base and stylesheet as text, never as markup', async () => {
    const res = await request(
      appWith({ title: 'Acme <script>alert(1)</script>', apiBase: '/api"><b>', stylesheet: '/theme.css' }),
    ).get('/settings/webhooks');
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).toContain('<title>Acme &lt;script&gt;alert(1)&lt;/script&gt;</title>');
    expect(res.text).toContain('api-base="/api&quot;&gt;&lt;b&gt;"');
    expect(res.text).toContain('<link rel="stylesheet" href="/theme.css">');
  });

  it('marks the element to take its token from the address only when asked', async () => {
    expect((await request(appWith()).get('/settings/webhooks')).text).not.toContain('token-from-fragment');
    expect((await request(appWith({ tokenFromFragment: true })).get('/settings/webhooks')).text).toContain(
      'api-base="/v1/agency/webhooks" token-from-fragment',
    );
  });

  it("gives the element the signed-in agent's agency, for the address of its public keys", async () => {
    const app = appWith({ agencyId: async (req) => (req.query.as === 'none' ? undefined : 'agency_"7"') });
    expect((await request(app).get('/settings/webhooks')).text).toContain(
      '<svc-webhooks-portal api-base="/v1/agency/webhooks" agency-id="agency_&quot;7&quot;" url-state></svc-webhooks-portal>',
    );
    expect((await request(app).get('/settings/webhooks?as=none')).text).toContain(
      '<svc-webhooks-portal api-base="/v1/agency/webhooks" url-state></svc-webhooks-portal>',
    );
  });

  it('answers 500 and shows no page when agencyId answers something other than a string', async () => {
    const app = appWith({ agencyId: () => 42 as unknown as string });
    const res = await request(app).get('/settings/webhooks');
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('<svc-webhooks-portal');
  });

  it("serves the portal's standalone script as JavaScript, revalidated by its ETag", async () => {
    const app = appWith();
    const res = await request(app).get('/settings/webhooks/portal.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.text).toBe(readFileSync(standaloneScriptPath, 'utf8'));
    const etag = res.headers.etag as string;
    const again = await request(app).get('/settings/webhooks/portal.js').set('if-none-match', etag);
    expect(again.status).toBe(304);
  });

  it.each([
    ['an empty apiBase', { apiBase: '' }, 'apiBase'],
    ['a title that is not a string', { title: 42 }, 'title'],
    ['a tokenFromFragment that is not a boolean', { tokenFromFragment: 'yes' }, 'tokenFromFragment'],
    ['an agencyId that is not a function', { agencyId: 'agency_1' }, 'agencyId'],
  ])('refuses %s with InvalidOptionError', (_name, options, option) => {
    let error: unknown;
    try {
      createWebhooksPortal(options as WebhooksPortalOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'invalid_option', option });
  });
});
