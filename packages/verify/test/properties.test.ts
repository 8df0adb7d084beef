import {
  parseSignatureHeader,
  signWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
} from '@svc/webhooks-verify';
import { signWebhookAsync, verifyWebhookSignatureAsync } from '@svc/webhooks-verify/web';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOW, SECRET } from './fixtures';

const anyTime = { now: NOW, toleranceMs: Number.POSITIVE_INFINITY };

/** Header-shaped strings: the pieces the parser reacts to, in any order, so runs reach deep branches. */
const headerLike = fc
  .array(
    fc.oneof(
      fc.constantFrom('t=', 'v1=', 'v0=', ',', '=', ' ', '\t', 't', 'v1', '-', '.', 'é', '\u0000'),
      fc.stringMatching(/^[0-9]{1,17}$/),
      fc.stringMatching(/^[0-9a-fA-F]{0,66}$/),
      fc.string(),
    ),
    { maxLength: 12 },
  )
  .map((pieces) => pieces.join(''));

/** Secrets a receiver could hold: any non-empty string except the masked form. */
const secret = fc.string({ minLength: 1, unit: 'binary' }).filter((s) => !s.startsWith('service_whsec_'));
const body = fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array());
const timestamp = fc.integer({ min: 0, max: 999_999_999_999_999 });

function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = bytes.slice();
  const index = Math.floor(bit / 8) % copy.length;
  copy[index] = (copy[index] as number) ^ (1 << (bit % 8));
  return copy;
}

function onlyVerificationErrors(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
  }
}

describe('properties', () => {
  it('the parser throws nothing but WebhookVerificationError on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), headerLike), (header) => {
        onlyVerificationErrors(() => parseSignatureHeader(header));
      }),
      { numRuns: 2_000 },
    );
  });

  it('verification throws nothing but WebhookVerificationError on arbitrary headers', () => {
    fc.assert(
      fc.property(headerLike, (header) => {
        onlyVerificationErrors(() => verifyWebhookSignature('{}', header, SECRET, anyTime));
      }),
      { numRuns: 1_000 },
    );
  });

  it('the node and web entries reach the same outcome on arbitrary headers', async () => {
    const outcome = async (run: () => unknown) => {
      try {
        await run();
        return 'valid';
      } catch (error) {
        return (error as WebhookVerificationError).code;
      }
    };
    await fc.assert(
      fc.asyncProperty(headerLike, async (header) => {
        const node = await outcome(() => verifyWebhookSignature('{}', header, SECRET, anyTime));
        const web = await outcome(() => verifyWebhookSignatureAsync('{}', header, SECRET, anyTime));
        expect(web).toBe(node);
      }),
      { numRuns: 300 },
    );
  });

  it('sign then verify round-trips for arbitrary bodies, secrets and timestamps (node)', () => {
    fc.assert(
      fc.property(body, secret, timestamp, (raw, key, t) => {
        const header = signWebhook(raw, key, t);
        expect(verifyWebhookSignature(raw, header, key, { now: t })).toEqual({ timestamp: t });
      }),
    );
  });

  it('sign then verify round-trips across entries (web signs, node verifies and back)', async () => {
    await fc.assert(
      fc.asyncProperty(body, secret, timestamp, async (raw, key, t) => {
        const header = await signWebhookAsync(raw, key, t);
        expect(header).toBe(signWebhook(raw, key, t));
        await expect(verifyWebhookSignatureAsync(raw, header, key, { now: t })).resolves.toEqual({
          timestamp: t,
        });
      }),
      { numRuns: 50 },
    );
  });

  it('a one-bit change anywhere in the body fails', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1 }), fc.nat(), (raw, bit) => {
        const header = signWebhook(raw, SECRET, NOW);
        expect(() => verifyWebhookSignature(flipBit(raw, bit), header, SECRET, anyTime)).toThrow(
          expect.objectContaining({ code: 'signature_mismatch' }),
        );
      }),
    );
  });

  it('a one-bit change anywhere in the text of t fails', () => {
    fc.assert(
      fc.property(fc.string(), timestamp, fc.nat(), (raw, t, bit) => {
        const header = signWebhook(raw, SECRET, t);
        const tText = new TextEncoder().encode(String(t));
        const changed = new TextDecoder().decode(flipBit(tText, bit));
        const forged = header.replace(/^t=\d+/, `t=${changed}`);
        expect(() => verifyWebhookSignature(raw, forged, SECRET, anyTime)).toThrow(WebhookVerificationError);
      }),
    );
  });

  it('a one-bit change anywhere in the signature bytes fails', () => {
    fc.assert(
      fc.property(fc.string(), fc.nat({ max: 255 }), (raw, bit) => {
        const header = signWebhook(raw, SECRET, NOW);
        const signature = Buffer.from(header.split('v1=')[1] as string, 'hex');
        const forged = `t=${NOW},v1=${Buffer.from(flipBit(signature, bit)).toString('hex')}`;
        expect(() => verifyWebhookSignature(raw, forged, SECRET, anyTime)).toThrow(
          expect.objectContaining({ code: 'signature_mismatch' }),
        );
      }),
    );
  });
});
