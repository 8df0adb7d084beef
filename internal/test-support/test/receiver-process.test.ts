import { request } from 'node:https';
import { spawnReceiverProcess } from '@svc/test-support';
import { signWebhook } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';

const secret = 'a'.repeat(64);

/** POSTs `body` with an optional signature header; resolves with the status. */
function post(url: string, ca: string, body: string, signature?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (signature) headers['x-service-signature'] = signature;
    const req = request(url, { method: 'POST', ca, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('spawnReceiverProcess', () => {
  it('verifies signatures in the child and counts results (401 for a bad one)', async () => {
    const receiver = await spawnReceiverProcess({ verify: true, secret });
    try {
      const body = '{"webhookId":"whdel_1"}';
      expect(await post(receiver.url, receiver.ca, body, signWebhook(body, secret))).toBe(200);
      expect(await post(receiver.url, receiver.ca, body, signWebhook(body, 'b'.repeat(64)))).toBe(401);
      expect(await post(receiver.url, receiver.ca, body)).toBe(401);
      expect(await receiver.stats()).toEqual({ received: 3, verified: 1, failed: 2 });
      receiver.reset();
      expect(await receiver.stats()).toEqual({ received: 0, verified: 0, failed: 0 });
    } finally {
      await receiver.close();
    }
    await expect(receiver.stats()).rejects.toThrow(/not running/);
  });

  it('answers 200 to anything with verification off', async () => {
    const receiver = await spawnReceiverProcess();
    try {
      expect(await post(receiver.url, receiver.ca, 'not even json')).toBe(200);
      expect(await receiver.stats()).toEqual({ received: 1, verified: 0, failed: 0 });
    } finally {
      await receiver.close();
    }
  });

  it('refuses verify without a secret', async () => {
    await expect(spawnReceiverProcess({ verify: true })).rejects.toThrow(/secret/);
  });
});
