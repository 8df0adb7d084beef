import type { WebhookService } from '@svc/webhooks-core';
import { WebhookError } from '@svc/webhooks-core';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidAgentError } from '../src/index';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, configBody, createHarness, type Harness, TOKENS } from './router-harness';

let h: Harness;
let failedId: string;
beforeEach(async () => {
  h = createHarness();
  await h.service.putConfig('agency-1', configBody());
  failedId = (await h.seedDelivery({ agencyId: 'agency-1', status: 'failed', attempt: 5, nextRetryAt: null }))
    .id;
});
checkResponsesAgainstDocument(() => h);

type Method = 'get' | 'put' | 'post';
const ENDPOINTS: [Method, () => string][] = [
  ['put', () => '/config'],
  ['get', () => '/config'],
  ['post', () => '/config/rotate-secret'],
  ['post', () => '/config/test'],
  ['get', () => '/deliveries'],
  ['get', () => `/deliveries/${failedId}`],
  ['post', () => `/deliveries/${failedId}/replay`],
  ['get', () => `/deliveries/${failedId}/attempts`],
  ['post', () => '/config/rotate-signing-key'],
];

function call(method: Method, path: string, authorization?: string) {
  let req = request(h.app)[method](`${BASE}${path}`);
  if (authorization !== undefined) req = req.set('authorization', authorization);
  return method === 'put' ? req.send(configBody({ enabled: false })) : req;
}

const REFUSALS: [string, string | undefined, number, string][] = [
  ['no authorization header', undefined, 401, 'unauthorized'],
  ['an empty header', '', 401, 'unauthorized'],
  ['"Bearer" without a token', 'Bearer ', 401, 'unauthorized'],
  ['an unknown token', 'tok-nobody', 401, 'unauthorized'],
  ['an unknown Bearer token', 'Bearer tok-nobody', 401, 'unauthorized'],
  ['an agent-role token', TOKENS.agent, 403, 'forbidden'],
  ['an agent-role Bearer token', `Bearer ${TOKENS.agent}`, 403, 'forbidden'],
  ['a token of an inactive agency', TOKENS.inactiveOwner, 403, 'agency_inactive'],
];

describe.each(ENDPOINTS)('%s %s refuses', (method, path) => {
  it.each(REFUSALS)('%s → %i %s, nothing changed', async (_name, authorization, status, code) => {
    const before = await h.snapshot();
    const res = await call(method, path(), authorization);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(await h.snapshot()).toBe(before);
  });
});

describe('authenticate', () => {
  it('receives the bare token and the request', async () => {
    const seen: { token: string; path: string }[] = [];
    h = createHarness({
      router: {
        authenticate: async (token, req) => {
          seen.push({ token, path: req.path });
          return null;
        },
      },
    });
    await request(h.app).get(`${BASE}/config`).set('authorization', 'Bearer tok-x');
    expect(seen).toEqual([{ token: 'tok-x', path: '/config' }]);
  });

  it('is not called without a token', async () => {
    let calls = 0;
    h = createHarness({
      router: {
        authenticate: async () => {
          calls += 1;
          return null;
        },
      },
    });
    expect((await request(h.app).get(`${BASE}/config`)).status).toBe(401);
    expect(calls).toBe(0);
  });

  it('a throwing authenticate → 500 internal_error, reported to onError, nothing leaked', async () => {
    const failure = new Error('session store down: redis://:hunter2@10.0.0.3');
    h = createHarness({
      router: {
        authenticate: async () => {
          throw failure;
        },
      },
    });
    const res = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|session store|at /);
    expect(h.reported).toEqual([failure]);
  });

  it('an agent without an agencyId is a host bug → 500, never an unscoped request', async () => {
    h = createHarness({
      router: {
        authenticate: async () => ({ agentId: 'a', agencyId: '', role: 'owner', agencyActive: true }),
      },
    });
    const res = await request(h.app).get(`${BASE}/deliveries`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ code: 'internal_error', message: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toMatch(/agencyId|webhooks-express/);
    expect(h.reported).toHaveLength(1);
    expect(h.reported[0]).toBeInstanceOf(InvalidAgentError);
    expect(h.reported[0]).toMatchObject({
      code: 'invalid_agent',
      field: 'agencyId',
      message: expect.stringMatching(/^@svc\/webhooks-express: authenticate\(\) returned an agent without/),
    });
  });

  it('owner and admin are both allowed', async () => {
    for (const token of [TOKENS.owner, TOKENS.admin]) {
      expect((await request(h.app).get(`${BASE}/config`).set('authorization', token)).status).toBe(200);
    }
  });
});

describe('routing under the mount path', () => {
  it.each([
    ['an unknown path', 'get', '/configs'],
    ['a path below an endpoint', 'get', '/config/rotate-secret/now'],
    ['the mount root', 'get', '/'],
    ['a differently cased path', 'get', '/CONFIG'],
    ['an unknown path with a body', 'post', '/deliveries/x/retry'],
  ] as const)('%s → JSON 404 not_found, never the host’s handlers', async (_name, method, path) => {
    const res = await request(h.app)[method](`${BASE}${path}`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.error.code).toBe('not_found');
  });

  it.each([
    ['delete', '/config', 'PUT, GET, HEAD'],
    ['post', '/config', 'PUT, GET, HEAD'],
    ['get', '/config/rotate-secret', 'POST'],
    ['get', '/config/test', 'POST'],
    ['put', '/deliveries', 'GET, HEAD'],
    ['patch', '/deliveries/abc', 'GET, HEAD'],
    ['get', '/deliveries/abc/replay', 'POST'],
    ['post', '/deliveries/abc/attempts', 'GET, HEAD'],
  ] as const)(
    '%s %s → 405 method_not_allowed with Allow: %s, nothing changed',
    async (method, path, allow) => {
      const before = await h.snapshot();
      const res = await request(h.app)[method](`${BASE}${path}`).set('authorization', TOKENS.owner);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.body.error).toMatchObject({
        code: 'method_not_allowed',
        details: { allow: allow.split(', ') },
      });
      expect(await h.snapshot()).toBe(before);
    },
  );

  it('answers HEAD where GET is allowed', async () => {
    const res = await request(h.app).head(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(200);
  });

  it('accepts a trailing slash on an endpoint', async () => {
    const res = await request(h.app).get(`${BASE}/config/`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(200);
  });

  it('leaves paths outside the mount to the host', async () => {
    const res = await request(h.app).get('/v1/agency/jobs');
    expect(res.status).toBe(418);
  });
});

describe('unexpected errors', () => {
  function failingService(error: unknown): WebhookService {
    const real = createHarness().service;
    return { ...real, getConfig: async () => Promise.reject(error) };
  }

  it.each([
    ['a plain Error', new Error('SELECT * FROM webhook_configs failed: password=hunter2')],
    ['a core error with no HTTP meaning', new WebhookError('store_error', 'relation "x" does not exist')],
    ['a thrown string', 'boom'],
  ])('%s → 500 internal_error, generic message, no stack, reported once', async (_name, error) => {
    const reported: unknown[] = [];
    h = createHarness({ router: { service: failingService(error), onError: (e) => reported.push(e) } });
    const res = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(500);
    expect(Object.keys(res.body.error)).toEqual(['code', 'message']);
    expect(res.body.error.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|relation|boom|\.ts:|at /);
    expect(reported).toEqual([error]);
  });

  it('a throwing onError still answers the 500', async () => {
    h = createHarness({
      router: {
        service: failingService(new Error('x')),
        onError: () => {
          throw new Error('logger down');
        },
      },
    });
    const res = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
  });

  it('deliberate refusals are not reported to onError', async () => {
    await request(h.app).get(`${BASE}/deliveries/missing`).set('authorization', TOKENS.owner);
    await request(h.app).get(`${BASE}/config`);
    expect(h.reported).toEqual([]);
  });
});
