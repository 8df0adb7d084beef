import { signWebhook, WebhookVerificationError } from '@svc/webhooks-verify';
import { signWebhookAsync } from '@svc/webhooks-verify/web';
import { describe, expect, it, vi } from 'vitest';
import { entries, rejection } from './entries';
import { BODY, NOW, referenceHeader, SECRET } from './fixtures';

describe.each(entries)('$name sign', (entry) => {
  it('returns t=<ms>,v1=<lower-case hex> equal to the spec computation', async () => {
    const header = await entry.sign(BODY, SECRET, NOW);
    expect(header).toMatch(/^t=\d{13},v1=[0-9a-f]{64}$/);
    expect(header).toBe(referenceHeader(BODY, SECRET, NOW));
  });

  it('signs bytes and the equal string identically, unicode included', async () => {
    const text = `{"note":"Ñandú 🚿 日本"}`;
    expect(await entry.sign(new TextEncoder().encode(text), SECRET, NOW)).toBe(
      await entry.sign(text, SECRET, NOW),
    );
    expect(await entry.sign(text, SECRET, NOW)).toBe(referenceHeader(text, SECRET, NOW));
  });

  it('defaults the timestamp to Date.now()', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    try {
      expect(await entry.sign(BODY, SECRET)).toBe(referenceHeader(BODY, SECRET, NOW));
    } finally {
      vi.useRealTimers();
    }
  });

  it('produces a header its own verify accepts', async () => {
    const header = await entry.sign(BODY, SECRET, NOW);
    await expect(entry.verify(BODY, header, SECRET, { now: NOW })).resolves.toEqual(JSON.parse(BODY));
  });

  it('refuses the masked secret and an empty secret with invalid_secret', async () => {
    for (const secret of ['', 'service_whsec_********abcd']) {
      const error = await rejection(entry.sign(BODY, secret, NOW));
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect(error.code).toBe('invalid_secret');
    }
  });

  it.each([1.5, -1, Number.NaN, 2 ** 60])('refuses timestamp %s with invalid_option', async (timestamp) => {
    const error = await rejection(entry.sign(BODY, SECRET, timestamp));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.code).toBe('invalid_option');
    expect(error.message).toContain('timestamp');
  });
});

describe('node and web signers', () => {
  it('agree on a body the other one signed', async () => {
    expect(await signWebhookAsync(BODY, SECRET, NOW)).toBe(signWebhook(BODY, SECRET, NOW));
  });
});
