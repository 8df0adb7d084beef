import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import { InvalidOptionError } from '@svc/webhooks-core';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebhooksRouter, readAuthorizationToken, type WebhooksRouterOptions } from '../src/index';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, TOKENS } from './router-harness';

/*
 * Cookie mode (issue 37): when the router reads a session cookie, a browser attaches it to requests other
 * pages make. A form posted from another site or a sibling subdomain must change nothing; the host's own
 * pages, scripts sending X-Webhooks-Client and trusted origins keep working; bearer mode is as it was.
 * Test sends go to a real local receiver, so "nothing was sent" is what the receiver saw.
 */

const HOST = 'app.agency.test';
const OWN_ORIGIN = `http://${HOST}`;
const SESSION = `session=${TOKENS.owner}`;

let receiver: TestReceiver;
let h: Harness;
/** How often the router asked for the token: 0 means a request never reached authentication. */
let tokenReads = 0;
let replayableId: string;
let recoveryId: string;

const readSessionCookie: NonNullable<WebhooksRouterOptions['readToken']> = (req) => {
  tokenReads += 1;
  return /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1] ?? null;
};

function cookieHarness(router: Partial<WebhooksRouterOptions> = {}): Harness {
  return createHarness({
    service: { urlPolicy: { allowPrivateNetworks: true }, transport: { tls: { ca: receiver.ca } } },
    router: { readToken: readSessionCookie, ...router },
  });
}

/** The agency's configuration at the receiver, a failed delivery to replay and a running recovery to cancel. */
async function seed(harness: Harness): Promise<void> {
  await harness.service.putConfig('agency-1', {
    webhookUrl: receiver.url,
    enabled: true,
    subscribedEventTypes: ['job_created'],
  });
  await harness.seedDelivery({ agencyId: 'agency-1', status: 'failed', attempt: 5, nextRetryAt: null });
  replayableId = (
    await harness.seedDelivery({ agencyId: 'agency-1', status: 'failed', attempt: 5, nextRetryAt: null })
  ).id;
  const started = await harness.service.recoverDeliveries('agency-1', { since: 0 });
  if (!('recoveryId' in started)) throw new Error('the seeded recovery did not start');
  recoveryId = started.recoveryId;
  tokenReads = 0;
}

/** Configuration, deliveries, queue and the recovery: everything a forged change could alter. */
async function state(): Promise<string> {
  return JSON.stringify([await h.snapshot(), await h.service.getRecovery('agency-1', recoveryId)]);
}

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
beforeEach(async () => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 204, body: '' }));
  h = cookieHarness();
  await seed(h);
});
afterEach(() => h.service.close());
checkResponsesAgainstDocument(() => h);

/** Every change the API offers, as an HTML form would post it (urlencoded fields, or none). */
const CHANGES: [method: 'put' | 'post', path: string, form: string][] = [
  ['put', '/config', 'webhookUrl=https%3A%2F%2Fevil.example%2Fhook&enabled=true'],
  ['post', '/config/rotate-secret', ''],
  ['post', '/config/test', ''],
  ['post', '/config/rotate-signing-key', ''],
  ['post', '/deliveries/:delivery/replay', ''],
  ['post', '/deliveries/recover', 'since=0'],
  ['post', '/recoveries/:recovery/cancel', ''],
];

/** A path of {@link CHANGES} with the seeded delivery's and recovery's ids. */
function seeded(path: string): string {
  return path.replace(':delivery', replayableId).replace(':recovery', recoveryId);
}

/** What a browser sends with a form another page posts, besides the session cookie. */
const FORGERIES: [name: string, headers: Record<string, string>][] = [
  ['a form on another site', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
  [
    'a form on a sibling subdomain (a SameSite=Strict cookie goes along)',
    { origin: 'http://evil.agency.test', 'sec-fetch-site': 'same-site' },
  ],
  ['a form on another site, in a browser without Sec-Fetch-Site', { origin: 'https://evil.example' }],
  ['a sandboxed page (Origin: null)', { origin: 'null', 'sec-fetch-site': 'cross-site' }],
  ['a request that shows no origin at all', {}],
];

function forge(method: 'put' | 'post', path: string, headers: Record<string, string>) {
  return request(h.app)
    [method](`${BASE}${path}`)
    .set('host', HOST)
    .set('cookie', SESSION)
    .set(headers)
    .type('form');
}

describe.each(FORGERIES)('cookie mode refuses %s', (_name, headers) => {
  it.each(CHANGES)(
    '%s %s: 403 untrusted_origin, and nothing changed or was sent',
    async (method, path, form) => {
      const before = await state();
      const res = await forge(method, seeded(path), headers).send(form);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'untrusted_origin',
        message: expect.stringContaining('x-webhooks-client'),
        details: { origin: headers.origin ?? null, fetchSite: headers['sec-fetch-site'] ?? null },
      });
      expect(await state()).toBe(before);
      expect(receiver.requests).toEqual([]);
      expect(tokenReads).toBe(0);
    },
  );
});

describe('cookie mode accepts a change from the host’s own pages', () => {
  function change(path: string, headers: Record<string, string>) {
    return request(h.app).post(`${BASE}${path}`).set('host', HOST).set('cookie', SESSION).set(headers);
  }

  it('Sec-Fetch-Site: same-origin: a new secret, and a test send that reaches the receiver', async () => {
    const before = await h.service.store.getConfig('agency-1');
    const json = { 'sec-fetch-site': 'same-origin', origin: OWN_ORIGIN, 'content-type': 'application/json' };
    const rotated = await change('/config/rotate-secret', json);
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingSecret).not.toBe(before?.signingSecret);
    const sent = await change('/config/test', json);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ success: true, statusCode: 204 });
    expect(receiver.requests).toHaveLength(1);
  });

  it.each([
    ['Sec-Fetch-Site: none (the agent typed the address)', { 'sec-fetch-site': 'none' }],
    ['an Origin equal to its own, without Sec-Fetch-Site (an older browser)', { origin: OWN_ORIGIN }],
    [
      'an x-webhooks-client header and no origin at all (the portal, a script)',
      { 'x-webhooks-client': 'cli' },
    ],
  ])('%s', async (_name, headers) => {
    const res = await change('/config/rotate-secret', { ...headers, 'content-type': 'application/json' });
    expect(res.status).toBe(200);
  });

  it('a page of one of trustedOrigins, on a sibling subdomain', async () => {
    h = cookieHarness({ trustedOrigins: ['https://admin.agency.test'] });
    await seed(h);
    const res = await change(`/deliveries/${replayableId}/replay`, {
      origin: 'https://admin.agency.test',
      'sec-fetch-site': 'same-site',
      'content-type': 'application/json',
    });
    expect(res.status).toBe(202);
    const other = await change(`/deliveries/${replayableId}/replay`, {
      origin: 'https://other.agency.test',
      'sec-fetch-site': 'same-site',
      'content-type': 'application/json',
    });
    expect(other.body.error.code).toBe('untrusted_origin');
  });

  it('reads from any page: a GET needs no proof (the browser keeps its answer from another site)', async () => {
    const res = await request(h.app)
      .get(`${BASE}/config`)
      .set('cookie', SESSION)
      .set({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(200);
  });
});

describe('cookie mode takes every change as JSON', () => {
  it.each([
    ['a form posted by a page of the host', 'application/x-www-form-urlencoded'],
    ['text/plain, which a cross-site fetch may send without a preflight', 'text/plain'],
    ['no Content-Type at all, on a bodyless POST', null],
  ])('415 unsupported_media_type for %s, and the secret is unchanged', async (_name, contentType) => {
    const before = await state();
    let call = request(h.app)
      .post(`${BASE}/config/rotate-secret`)
      .set('cookie', SESSION)
      .set('x-webhooks-client', 'portal');
    if (contentType !== null) call = call.set('content-type', contentType);
    const res = await call;
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'unsupported_media_type', details: { contentType } });
    expect(await state()).toBe(before);
  });

  it('accepts a JSON content type with a UTF-8 charset on a bodyless POST', async () => {
    const res = await request(h.app)
      .post(`${BASE}/config/rotate-secret`)
      .set('cookie', SESSION)
      .set('x-webhooks-client', 'portal')
      .set('content-type', 'Application/JSON; charset=utf-8');
    expect(res.status).toBe(200);
  });
});

describe('bearer mode (the authorization header) is unchanged', () => {
  beforeEach(async () => {
    await h.service.close();
    h = createHarness({
      service: { urlPolicy: { allowPrivateNetworks: true }, transport: { tls: { ca: receiver.ca } } },
    });
    await seed(h);
  });

  it('a bodyless POST from another origin, without content type or custom header, is served', async () => {
    const res = await request(h.app)
      .post(`${BASE}/config/rotate-secret`)
      .set('authorization', `Bearer ${TOKENS.owner}`)
      .set({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(200);
  });

  it('a cross-site form with only the cookie is 401: the cookie is not a credential here', async () => {
    const before = await state();
    const res = await forge('post', '/config/rotate-secret', { origin: 'https://evil.example' }).send('');
    expect(res.status).toBe(401);
    expect(await state()).toBe(before);
  });
});

describe('the trustedOrigins option', () => {
  const build = (options: Partial<WebhooksRouterOptions>) => () =>
    createWebhooksRouter({ service: h.service, authenticate: () => null, ...options });

  it.each([
    ['https://admin.agency.test/', 'such as https://admin.agency.test'],
    ['https://Admin.agency.test', 'such as https://admin.agency.test'],
    ['https://admin.agency.test:443', 'such as https://admin.agency.test'],
    ['https://admin.agency.test/portal', 'such as https://admin.agency.test'],
    ['admin.agency.test', 'got "admin.agency.test"'],
    ['null', 'got "null"'],
  ])('refuses %j, which a browser never sends as Origin', (origin, said) => {
    const create = build({ readToken: readSessionCookie, trustedOrigins: [origin] });
    expect(create).toThrow(InvalidOptionError);
    expect(create).toThrow(said);
  });

  it('must be an array, and needs readToken (bearer mode has nothing to trust)', () => {
    expect(
      build({ readToken: readSessionCookie, trustedOrigins: 'https://a.test' as unknown as string[] }),
    ).toThrow(/trustedOrigins must be an array/);
    expect(build({ trustedOrigins: ['https://a.test'] })).toThrow(/cookie mode only/);
    expect(build({ readToken: readAuthorizationToken, trustedOrigins: ['https://a.test'] })).toThrow(
      /cookie mode only/,
    );
  });
});
