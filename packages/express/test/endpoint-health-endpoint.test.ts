import type { CircuitState } from '@svc/webhooks-core';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, PUBLIC_URL, TOKENS } from './router-harness';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
checkResponsesAgainstDocument(() => h);

const T0 = 1_700_000_000_000;

const FAILING: CircuitState = {
  status: 'closed',
  consecutiveFailures: 0,
  failingSince: null,
  lastFailureAt: T0 + 9_000,
  lastSuccessAt: T0 - 60_000,
  openedAt: null,
  openUntil: null,
  openings: 0,
  unsuccessfulAttempts: 14,
  unsuccessfulSince: T0,
};

function health(token: string = TOKENS.owner) {
  return request(h.app).get(`${BASE}/config/health`).set('authorization', token);
}

function put(enabled: boolean) {
  return request(h.app)
    .put(`${BASE}/config`)
    .set('authorization', TOKENS.owner)
    .send({ webhookUrl: PUBLIC_URL, enabled, subscribedEventTypes: ['job_created'] });
}

describe('GET /config/health', () => {
  it('404 config_not_found before a configuration exists, also when another agency has one', async () => {
    await request(h.app)
      .put(`${BASE}/config`)
      .set('authorization', TOKENS.otherOwner)
      .send({ webhookUrl: PUBLIC_URL, enabled: true, subscribedEventTypes: [] });
    const res = await health();
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('config_not_found');
  });

  it('a new configuration is healthy: exactly the eight fields, counters zero, times null', async () => {
    await put(true);
    const res = await health();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      state: 'healthy',
      consecutiveFailures: 0,
      lastSuccessAt: null,
      lastFailureAt: null,
      failingSince: null,
      disabledAt: null,
      pausedUntil: null,
      disabledReason: null,
    });
  });

  it('failing, then disabled automatically (GET /config unchanged in shape), then healthy again after a PUT enabling it', async () => {
    await put(true);
    await h.service.store.saveCircuit('agency-1', null, FAILING);
    expect((await health()).body).toEqual({
      state: 'failing',
      consecutiveFailures: 14,
      lastSuccessAt: T0 - 60_000,
      lastFailureAt: T0 + 9_000,
      failingSince: T0,
      disabledAt: null,
      pausedUntil: null,
      disabledReason: null,
    });

    const config = await h.service.store.getConfig('agency-1');
    await h.service.store.disableConfig('agency-1', {
      reason: 'auto_disabled_failing',
      now: T0 + 10_000,
      expectedUpdatedAt: config?.updatedAt as number,
    });
    expect((await health()).body).toMatchObject({
      state: 'disabled',
      consecutiveFailures: 14,
      disabledAt: T0 + 10_000,
      disabledReason: 'auto_disabled_failing',
    });
    const shown = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(Object.keys(shown.body).sort()).toEqual([
      'asymmetricSignatures',
      'enabled',
      'id',
      'signatureScheme',
      'signingPublicKeys',
      'signingSecret',
      'subscribedEventTypes',
      'webhookUrl',
    ]);
    expect(shown.body.enabled).toBe(false);

    const enabled = await put(true);
    expect(enabled.status).toBe(200);
    expect(Object.keys(enabled.body), 'PUT answers the configuration fields only').toHaveLength(8);
    expect((await health()).body).toEqual({
      state: 'healthy',
      consecutiveFailures: 0,
      lastSuccessAt: T0 - 60_000,
      lastFailureAt: T0 + 9_000,
      failingSince: null,
      disabledAt: null,
      pausedUntil: null,
      disabledReason: null,
    });
  });

  it('while the breaker is open: pausedUntil is the end of the open period', async () => {
    await put(true);
    const openUntil = Date.now() + 30_000;
    await h.service.store.saveCircuit('agency-1', null, {
      ...FAILING,
      status: 'open',
      openedAt: Date.now(),
      openUntil,
      openings: 1,
    });
    expect((await health()).body).toMatchObject({ state: 'failing', pausedUntil: openUntil });
  });

  it('a configuration the agency disabled is disabled, without a reason', async () => {
    await put(false);
    expect((await health()).body).toMatchObject({
      state: 'disabled',
      disabledAt: null,
      pausedUntil: null,
      disabledReason: null,
    });
  });

  it('admins may read it; agents may not (403); no token is 401; POST is 405', async () => {
    await put(true);
    expect((await health(TOKENS.admin)).status).toBe(200);
    expect((await health(TOKENS.agent)).status).toBe(403);
    expect((await request(h.app).get(`${BASE}/config/health`)).status).toBe(401);
    const post = await request(h.app).post(`${BASE}/config/health`).set('authorization', TOKENS.owner);
    expect(post.status).toBe(405);
    expect(post.body.error.code).toBe('method_not_allowed');
  });
});
