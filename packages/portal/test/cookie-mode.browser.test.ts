import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  type WebhookService,
} from '@svc/webhooks-core';
import express, { type CookieOptions, type Express } from 'express';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// The portal package does not depend on the router (the router depends on it), so its sources are
// imported by path: a host signing agents in by cookie needs `readToken`, which the example host does not set.
import {
  type AuthenticatedAgent,
  createWebhooksRouter,
  WEBHOOK_API_BASE_PATH,
} from '../../express/src/index';
import { createWebhooksPortal } from '../../express/src/portal';
import { CHROMIUM_PATH, canRunBrowser, PORTAL_AGENCY, saveScreenshot } from './browser-harness';

/*
 * Cookie mode in a real browser (issue 37): a host whose agents sign in with a session cookie, and pages
 * of an attacker that post forms to it. Chromium resolves every name below to 127.0.0.1, so the host,
 * a sibling subdomain (same site: even a SameSite=Strict cookie goes along) and another site are three
 * origins of one machine.
 */

const HOST = 'app.agency.test';
const SIBLING = 'evil.agency.test';
const OTHER_SITE = 'attacker.test';
const TOKEN = 'tok_cookie_owner';
const PORTAL_PATH = '/settings/webhooks';
const WAIT = { timeout: 10_000 };

const AGENT: AuthenticatedAgent = {
  agentId: 'agent-cookie',
  agencyId: PORTAL_AGENCY,
  role: 'owner',
  agencyActive: true,
};

/** A request that reached the management API, and whether the browser attached the session cookie. */
interface SeenRequest {
  method: string;
  path: string;
  withCookie: boolean;
  status: number;
}

function sessionToken(req: express.Request): string | null {
  return /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1] ?? null;
}

/**
 * The host: `/sign-in?sameSite=…` sets the session cookie (no `Secure`: the test speaks plain HTTP, which
 * also rules out `__Host-`) and opens the portal; the API reads the cookie.
 */
function hostApp(service: WebhookService, seen: SeenRequest[]): Express {
  const app = express();
  app.get('/sign-in', (req, res) => {
    const sameSite = req.query.sameSite as CookieOptions['sameSite'] | undefined;
    res.cookie('session', TOKEN, { httpOnly: true, path: '/', ...(sameSite ? { sameSite } : {}) });
    res.redirect(`${PORTAL_PATH}/`);
  });
  app.use(WEBHOOK_API_BASE_PATH, (req, res, next) => {
    res.on('finish', () => {
      const withCookie = sessionToken(req) === TOKEN;
      seen.push({ method: req.method, path: req.path, withCookie, status: res.statusCode });
    });
    next();
  });
  app.use(
    WEBHOOK_API_BASE_PATH,
    createWebhooksRouter({
      service,
      authenticate: (token) => (token === TOKEN ? AGENT : null),
      readToken: sessionToken,
      onError: (error) => console.error(error),
    }),
  );
  app.use(PORTAL_PATH, createWebhooksPortal({ agencyId: () => PORTAL_AGENCY }));
  return app;
}

/** The attacker: `/forge?action=…` is a page whose form posts itself to `action` as soon as it loads. */
function attackerApp(): Express {
  const app = express();
  app.get('/forge', (req, res) => {
    const action = String(req.query.action).replace(/[^\w:/.-]/g, '');
    res.type('html').send(`<!doctype html><title>You won a prize</title>
<form method="post" action="${action}"><input type="hidden" name="enabled" value="false"></form>
<script>document.forms[0].submit()</script>`);
  });
  return app;
}

async function listen(app: Express): Promise<{ server: Server; port: number }> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

describe.skipIf(!canRunBrowser)('cookie mode in Chromium', () => {
  let receiver: TestReceiver;
  let service: WebhookService;
  let browser: Browser;
  let servers: Server[];
  let hostOrigin: string;
  let attackerPort: number;
  const seen: SeenRequest[] = [];

  beforeAll(async () => {
    receiver = await startTestReceiver();
    service = createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      urlPolicy: { allowPrivateNetworks: true },
      transport: { tls: { ca: receiver.ca } },
    });
    const host = await listen(hostApp(service, seen));
    const attacker = await listen(attackerApp());
    servers = [host.server, attacker.server];
    hostOrigin = `http://${HOST}:${host.port}`;
    attackerPort = attacker.port;
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1, MAP ${SIBLING} 127.0.0.1, MAP ${OTHER_SITE} 127.0.0.1`,
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    for (const server of servers ?? []) {
      server.closeAllConnections();
      server.close();
    }
    await service?.close();
    await receiver?.close();
  });

  beforeEach(async () => {
    seen.length = 0;
    receiver.requests.length = 0;
    await service.putConfig(PORTAL_AGENCY, {
      webhookUrl: receiver.url,
      enabled: true,
      subscribedEventTypes: ['job_created'],
    });
  });

  /** A fresh browser profile, signed in to the host with the session cookie set as `sameSite` says. */
  async function signedIn(sameSite: 'strict' | 'lax' | null): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${hostOrigin}/sign-in${sameSite ? `?sameSite=${sameSite}` : ''}`);
    await page.locator('svc-webhooks-portal').waitFor();
    return page;
  }

  it.each([
    // A cookie without SameSite: Chromium sends it on a top-level cross-site POST in the two minutes after
    // it was set ("Lax+POST"), as every browser did before Lax became the default.
    ['another site, with a cookie without SameSite', OTHER_SITE, null],
    ['a sibling subdomain, with a SameSite=Strict cookie', SIBLING, 'strict'],
  ] as const)('a form auto-submitted from %s changes nothing', async (_name, attacker, sameSite) => {
    const page = await signedIn(sameSite);
    const secretBefore = (await service.store.getConfig(PORTAL_AGENCY))?.signingSecret;
    for (const path of ['/config/rotate-secret', '/config/test']) {
      const action = `${hostOrigin}${WEBHOOK_API_BASE_PATH}${path}`;
      await page.goto(`http://${attacker}:${attackerPort}/forge?action=${encodeURIComponent(action)}`);
      await page.waitForURL(action, WAIT);
      expect(JSON.parse((await page.locator('body').textContent()) ?? '')).toMatchObject({
        error: { code: 'untrusted_origin' },
      });
    }
    // The browser did send the cookie: without the router's check, both forms would have been served.
    // (The portal's own GETs of the sign-in are in `seen` too.)
    expect(seen.filter((request) => request.method !== 'GET')).toEqual([
      { method: 'POST', path: '/config/rotate-secret', withCookie: true, status: 403 },
      { method: 'POST', path: '/config/test', withCookie: true, status: 403 },
    ]);
    expect((await service.store.getConfig(PORTAL_AGENCY))?.signingSecret).toBe(secretBefore);
    expect(receiver.requests).toEqual([]);
    await page.context().close();
  });

  it('the portal itself keeps working by cookie: it loads the configuration, sends a test and rotates', async () => {
    const page = await signedIn('strict');
    const secretBefore = (await service.store.getConfig(PORTAL_AGENCY))?.signingSecret;
    await page.getByRole('heading', { name: 'Endpoint settings' }).waitFor(WAIT);
    expect(await page.getByLabel('Webhook URL').inputValue()).toBe(receiver.url);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.locator('svc-wh-endpoint-test-send .result').getByText('Success').waitFor(WAIT);
    expect(receiver.requests).toHaveLength(1);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Confirm rotation' }).click();
    await page.locator('svc-wh-endpoint-secret [data-secret="full"]').waitFor(WAIT);
    expect((await service.store.getConfig(PORTAL_AGENCY))?.signingSecret).not.toBe(secretBefore);
    expect(seen.every((request) => request.withCookie && request.status < 400)).toBe(true);
    console.log('cookie-mode screenshot:', await saveScreenshot(page, 'cookie-mode-desktop'));
    await page.context().close();
  });
});
