import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signWebhook } from '@svc/webhooks-verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTolerantReceiver } from '../examples/troubleshooting-receiver';

const previous = '1'.repeat(64);
const current = '2'.repeat(64);
const log: string[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createTolerantReceiver([current, previous], (line) => log.push(line));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const body = '{"webhookId":"whdel_1", "eventType":"job_created","metadata":{"b":1,"a":2}}';

async function post(rawBody: string, header: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': header },
    body: rawBody,
  });
  return { status: response.status, body: await response.text() };
}

describe('troubleshooting: the four receiver failure causes', () => {
  it('accepts the raw bytes as sent', async () => {
    await expect(post(body, signWebhook(body, current))).resolves.toMatchObject({ status: 204 });
    expect(log.at(-1)).toBe('accepted whdel_1');
  });

  it('1. a re-serialised body never verifies: signature_mismatch', async () => {
    const reserialised = JSON.stringify(JSON.parse(body));
    const result = await post(reserialised, signWebhook(body, current));
    expect(result).toEqual({ status: 401, body: '{"error":"signature_mismatch"}' });
  });

  it('2. a layer that alters some bodies (here: trims trailing whitespace) breaks those only', async () => {
    const withNewline = `${body}\n`;
    const altered = withNewline.trimEnd();
    await expect(post(altered, signWebhook(withNewline, current))).resolves.toMatchObject({ status: 401 });
    await expect(post(body, signWebhook(body, current))).resolves.toMatchObject({ status: 204 });
  });

  it('3. clock drift: 9 minutes is tolerated by the 10-minute window, 11 minutes is not', async () => {
    const minutesAgo = (minutes: number) => Date.now() - minutes * 60_000;
    await expect(post(body, signWebhook(body, current, minutesAgo(9)))).resolves.toMatchObject({
      status: 204,
    });
    await expect(post(body, signWebhook(body, current, minutesAgo(11)))).resolves.toEqual({
      status: 401,
      body: '{"error":"timestamp_out_of_tolerance"}',
    });
  });

  it('4. after a rotation, the previous secret still verifies while listed; an unknown one never', async () => {
    await expect(post(body, signWebhook(body, previous))).resolves.toMatchObject({ status: 204 });
    await expect(post(body, signWebhook(body, '3'.repeat(64)))).resolves.toEqual({
      status: 401,
      body: '{"error":"signature_mismatch"}',
    });
  });
});
