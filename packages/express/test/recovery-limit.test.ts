import type { WebhookServiceOptions } from '@svc/webhooks-core';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, TOKENS } from './router-harness';

/*
 * POST /deliveries/recover past the agency's recoveryLimit (dry runs and starts
 * share it): 429 rate_limited with Retry-After, nothing counted or started. The
 * service's clock is the test's, so the window passes without waiting.
 */

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

let h: Harness | undefined;
checkResponsesAgainstDocument(() => h);

function harness(service: Omit<WebhookServiceOptions, 'store' | 'queue'> = {}): Harness {
  h = createHarness({ service });
  return h;
}

function recover(app: Harness['app'], body: object, token: string = TOKENS.owner) {
  return request(app).post(`${BASE}/deliveries/recover`).set('authorization', token).send(body);
}

async function seedFailed(harness: Harness): Promise<void> {
  for (const createdAt of [T0 - 2_000, T0 - 1_000]) {
    await harness.seedDelivery({ agencyId: 'agency-1', status: 'failed', nextRetryAt: null, createdAt });
  }
}

describe('POST /deliveries/recover past the per-agency limit', () => {
  it('answers 429 rate_limited with Retry-After in whole seconds; nothing is counted or started; later it works again', async () => {
    let now = T0;
    const current = harness({ clock: () => now });
    const { app } = current;
    await seedFailed(current);
    const dryRun = { since: T0 - DAY, dryRun: true };
    for (let index = 0; index < 4; index++) expect((await recover(app, dryRun)).status).toBe(200);
    const started = await recover(app, { since: T0 - DAY });
    expect(started.status).toBe(202);
    await request(app)
      .post(`${BASE}/recoveries/${started.body.recoveryId}/cancel`)
      .set('authorization', TOKENS.owner)
      .expect(200);
    const before = await current.snapshot();

    now += 4_500;
    for (const body of [dryRun, { since: T0 - DAY }]) {
      const refused = await recover(app, body);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        error: {
          code: 'rate_limited',
          message: 'Too many bulk recovery requests (dry runs and starts) for this agency; try again in 8 s.',
          details: { agencyId: 'agency-1', retryAfterMs: 7_500 },
        },
      });
      // 5 a minute: the next one is earned back 12 s after the burst; 7.5 s are left, rounded up to 8.
      expect(refused.headers['retry-after']).toBe('8');
    }
    expect(await current.snapshot()).toBe(before);
    const recoveries = await request(app).get(`${BASE}/recoveries`).set('authorization', TOKENS.owner);
    expect(recoveries.body.recoveries, 'no recovery started past the limit').toHaveLength(1);

    now += 7_500;
    const again = await recover(app, { since: T0 - DAY });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ recoveryId: expect.any(String), matched: 2 });
  });

  it('counts per agency: another agency still recovers', async () => {
    const { app } = harness({ recoveryLimit: { max: 1, perMs: 60_000 } });
    expect((await recover(app, { since: T0, dryRun: true })).status).toBe(200);
    expect((await recover(app, { since: T0, dryRun: true })).status).toBe(429);
    expect((await recover(app, { since: T0, dryRun: true }, TOKENS.otherOwner)).status).toBe(200);
  });

  it('a refused request (400) uses none of the allowance', async () => {
    const { app } = harness({ recoveryLimit: { max: 1, perMs: 60_000 } });
    for (const body of [
      { since: T0, eventTypes: ['no_such_event'], dryRun: true },
      { since: T0, until: T0 - 1 },
      { until: T0 },
    ]) {
      expect((await recover(app, body)).status).toBe(400);
    }
    expect((await recover(app, { since: T0, dryRun: true })).status).toBe(200);
    expect((await recover(app, { since: T0, dryRun: true })).status).toBe(429);
  });

  it('recoveryLimit: false turns it off', async () => {
    const { app } = harness({ recoveryLimit: false });
    for (let index = 0; index < 20; index++) {
      expect((await recover(app, { since: T0, dryRun: true })).status).toBe(200);
    }
  });
});
