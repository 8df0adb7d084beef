import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, createHarness, type Harness, TOKENS } from './router-harness';

/*
 * POST /config/test past the agency's limit: 429 rate_limited with Retry-After,
 * nothing sent, nothing changed. Sends go to the real local HTTPS receiver.
 */

let receiver: TestReceiver;
let h: Harness;

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.requests.length = 0;
  h = createHarness({
    service: {
      urlPolicy: { allowPrivateNetworks: true },
      transport: { tls: { ca: receiver.ca } },
      testSendLimit: { max: 2, perMs: 60_000 },
    },
  });
});
afterEach(() => h.service.close());
checkResponsesAgainstDocument(() => h);

const as = (token: string) => ({
  put: (body: object) => request(h.app).put(`${BASE}/config`).set('authorization', token).send(body),
  test: () => request(h.app).post(`${BASE}/config/test`).set('authorization', token),
});

describe('POST /config/test past the per-agency limit', () => {
  it('answers 429 rate_limited with Retry-After in seconds; nothing is sent and nothing changes', async () => {
    const owner = as(TOKENS.owner);
    await owner.put({ webhookUrl: receiver.url, enabled: true, subscribedEventTypes: [] });
    expect((await owner.test()).status).toBe(200);
    expect((await owner.test()).status).toBe(200);
    const before = await h.snapshot();
    const refused = await owner.test();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: 'rate_limited', details: { agencyId: 'agency-1', retryAfterMs: expect.any(Number) } },
    });
    // 2 sends per minute: the next one is earned back 30 s after the last.
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(receiver.requests, 'requests the receiver got').toHaveLength(2);
    expect(await h.snapshot()).toBe(before);
  });

  it('counts per agency: another agency still sends', async () => {
    const owner = as(TOKENS.owner);
    const other = as(TOKENS.otherOwner);
    await owner.put({ webhookUrl: receiver.url, enabled: true, subscribedEventTypes: [] });
    await other.put({ webhookUrl: receiver.url, enabled: true, subscribedEventTypes: [] });
    await owner.test();
    await owner.test();
    expect((await owner.test()).status).toBe(429);
    expect((await other.test()).status).toBe(200);
  });

  it('a request for an agency without a configuration is a 404 and uses none of its allowance', async () => {
    const owner = as(TOKENS.owner);
    expect((await owner.test()).status).toBe(404);
    expect((await owner.test()).status).toBe(404);
    await owner.put({ webhookUrl: receiver.url, enabled: true, subscribedEventTypes: [] });
    expect((await owner.test()).status).toBe(200);
    expect((await owner.test()).status).toBe(200);
  });
});
