import { verifyWebhookSignatureAsync, WebhookVerificationError } from '@svc/webhooks-verify/web';
import { describe, expect, it, vi } from 'vitest';
import { BODY, NOW, OTHER_SECRET, referenceHeader, SECRET } from './fixtures';

describe('web entry key cache', () => {
  it('imports each secret once and reuses it across verifications, concurrent ones included', async () => {
    const secret = `${SECRET.slice(0, 60)}cafe`;
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    try {
      const header = referenceHeader(BODY, secret, NOW);
      await Promise.all(
        Array.from({ length: 5 }, () => verifyWebhookSignatureAsync(BODY, header, secret, { now: NOW })),
      );
      await verifyWebhookSignatureAsync(BODY, header, secret, { now: NOW });
      expect(importKey).toHaveBeenCalledTimes(1);
    } finally {
      importKey.mockRestore();
    }
  });

  it('keeps the keys of different secrets apart', async () => {
    await verifyWebhookSignatureAsync(BODY, referenceHeader(BODY, SECRET, NOW), SECRET, { now: NOW });
    const other = referenceHeader(BODY, OTHER_SECRET, NOW);
    await expect(verifyWebhookSignatureAsync(BODY, other, SECRET, { now: NOW })).rejects.toMatchObject({
      code: 'signature_mismatch',
    });
    await expect(verifyWebhookSignatureAsync(BODY, other, OTHER_SECRET, { now: NOW })).resolves.toEqual({
      timestamp: NOW,
    });
  });

  it('evicts the oldest key once more secrets are used than it holds, and re-imports it on demand', async () => {
    const secrets = Array.from({ length: 80 }, (_, i) => `evict-${i}`);
    const verify = (secret: string) =>
      verifyWebhookSignatureAsync(BODY, referenceHeader(BODY, secret, NOW), secret, { now: NOW });
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    try {
      for (const secret of secrets) await verify(secret);
      expect(importKey).toHaveBeenCalledTimes(80);
      await verify(secrets[79] as string);
      expect(importKey).toHaveBeenCalledTimes(80);
      await expect(verify(secrets[0] as string)).resolves.toEqual({ timestamp: NOW });
      expect(importKey).toHaveBeenCalledTimes(81);
    } finally {
      importKey.mockRestore();
    }
  });
});

describe('web entry without Web Crypto', () => {
  it('rejects with web_crypto_unavailable, naming the Node entry', async () => {
    vi.stubGlobal('crypto', undefined);
    try {
      const error = await verifyWebhookSignatureAsync(BODY, referenceHeader(BODY, SECRET, NOW), SECRET, {
        now: NOW,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect(error).toMatchObject({
        code: 'web_crypto_unavailable',
        message: expect.stringContaining('import the Node entry'),
      });
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
