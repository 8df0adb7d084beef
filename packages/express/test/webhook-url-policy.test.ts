import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, configBody, createHarness, type Harness, TOKENS } from './router-harness';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
checkResponsesAgainstDocument(() => h);

function putConfig(webhookUrl: string) {
  return request(h.app)
    .put(`${BASE}/config`)
    .set('authorization', TOKENS.owner)
    .send(configBody({ webhookUrl }));
}

describe('PUT /config stores the URL deliveries go to', () => {
  it('answers and stores the normalised href, not the string as typed', async () => {
    // A backslash is a slash in an https URL: the host is hooks.example.test, and the rest is its path.
    const res = await putConfig('https://hooks.example.test\\@other.example.test/in');
    expect(res.status).toBe(201);
    expect(res.body.webhookUrl).toBe('https://hooks.example.test/@other.example.test/in');
    const read = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(read.body.webhookUrl).toBe('https://hooks.example.test/@other.example.test/in');
  });

  it('lower-cases the scheme and host, drops the default port and resolves dot segments', async () => {
    const res = await putConfig('HTTPS://HOOKS.Example.TEST:443/a/./b/../webhooks?x=1');
    expect(res.body.webhookUrl).toBe('https://hooks.example.test/a/webhooks?x=1');
  });

  it.each([
    ['port 0', 'https://hooks.example.test:0/webhooks', 'invalid_url'],
    ['a port above 65535', 'https://hooks.example.test:65536/webhooks', 'invalid_url'],
    ['the Azure WireServer address', 'https://168.63.129.16/webhooks', 'private_address'],
    ['the NAT64 local-use prefix', 'https://[64:ff9b:1::5db8:d822]/webhooks', 'private_address'],
  ])('%s → 400 invalid_webhook_url (%s), nothing changed', async (_name, webhookUrl, reason) => {
    await putConfig('https://hooks.example.test/webhooks');
    const before = await h.snapshot();
    const res = await putConfig(webhookUrl);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_webhook_url', details: { reason } });
    expect(await h.snapshot()).toBe(before);
  });
});
