import { createHmac } from 'node:crypto';
import {
  signStandardWebhook,
  verifyStandardWebhookSignature,
  WebhookVerificationError,
} from '@svc/webhooks-verify';
import { signStandardWebhookAsync, verifyStandardWebhookSignatureAsync } from '@svc/webhooks-verify/web';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64, isBase64 } from '../src/base64';
import { standardHmac } from '../src/node-hmac';
import { parseStandardHeaders } from '../src/standard-header';
import { NOW, NOW_SECONDS, SECRET } from './fixtures';

const anyTime = { now: NOW, toleranceMs: Number.POSITIVE_INFINITY };
const body = fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array());
const id = fc.string({ minLength: 1, unit: 'binary' }).filter((text) => text.trim() !== '');
const keyBytes = fc.uint8Array({ minLength: 1, maxLength: 100 });

describe('standardHmac (one-shot hash with cached pads)', () => {
  it('equals createHmac for raw and whsec_ keys, any id and any body', () => {
    fc.assert(
      fc.property(
        keyBytes,
        fc.string({ minLength: 1, maxLength: 100 }),
        id,
        body,
        (bytes, text, msgId, raw) => {
          const prefix = `${msgId}.${NOW_SECONDS}.`;
          const whsec = { text: `whsec_${Buffer.from(bytes).toString('base64')}`, form: 'whsec' as const };
          const expectedWhsec = createHmac('sha256', bytes).update(prefix).update(raw).digest('base64');
          expect(standardHmac(whsec, prefix, raw, 'base64')).toBe(expectedWhsec);
          const expectedRaw = createHmac('sha256', text).update(prefix).update(raw).digest('base64');
          expect(standardHmac({ text, form: 'raw' }, prefix, raw, 'base64')).toBe(expectedRaw);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('base64', () => {
  it('encodes as Buffer does and decodes back, and every encoding passes isBase64', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 100 }), (bytes) => {
        const text = encodeBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(isBase64(text)).toBe(true);
        expect(isBase64(text.replace(/=+$/, ''))).toBe(true);
        expect(decodeBase64(text)).toEqual(Uint8Array.from(bytes));
      }),
    );
  });

  it.each(['', 'A', 'AB=', 'A===', 'ab-_', 'a b=', '=AAA'])('refuses %j', (text) => {
    expect(isBase64(text)).toBe(false);
  });
});

describe('Standard Webhooks header parsing', () => {
  const pieces = fc
    .array(
      fc.oneof(
        fc.constantFrom('v1,', 'v1a,', 'v2,', ',', ' ', '\t', '=', '==', 'AAAA', '+/', 'é'),
        fc.stringMatching(/^[A-Za-z0-9+/]{0,44}={0,2}$/),
        fc.string(),
      ),
      { maxLength: 10 },
    )
    .map((parts) => parts.join(''));

  it('throws nothing but WebhookVerificationError, whatever the headers hold', () => {
    fc.assert(
      fc.property(pieces, fc.string(), fc.string(), (signature, msgId, seconds) => {
        try {
          parseStandardHeaders({
            'webhook-id': msgId,
            'webhook-timestamp': seconds,
            'webhook-signature': signature,
          });
        } catch (error) {
          expect(error).toBeInstanceOf(WebhookVerificationError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('sign then verify', () => {
  it('round-trips any body and id on both entries, and fails on any flipped signature bit', async () => {
    await fc.assert(
      fc.asyncProperty(body, id, fc.nat(255), async (raw, msgId, bit) => {
        const signature = signStandardWebhook(raw, SECRET, msgId, NOW_SECONDS);
        expect(await signStandardWebhookAsync(raw, SECRET, msgId, NOW_SECONDS)).toBe(signature);
        const headers = {
          'webhook-id': msgId,
          'webhook-timestamp': String(NOW_SECONDS),
          'webhook-signature': signature,
        };
        expect(verifyStandardWebhookSignature(raw, headers, SECRET, anyTime).id).toBe(msgId);
        await expect(
          verifyStandardWebhookSignatureAsync(raw, headers, SECRET, anyTime),
        ).resolves.toBeDefined();
        const mac = Buffer.from(signature.slice(3), 'base64');
        mac[bit >> 3] = (mac[bit >> 3] as number) ^ (1 << (bit & 7));
        const flipped = { ...headers, 'webhook-signature': `v1,${mac.toString('base64')}` };
        expect(() => verifyStandardWebhookSignature(raw, flipped, SECRET, anyTime)).toThrow(
          WebhookVerificationError,
        );
      }),
      { numRuns: 200 },
    );
  });
});
