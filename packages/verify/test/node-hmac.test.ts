import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256, hmacSha256Hex, hmacSha256WithCreateHmac } from '../src/node-hmac';

function reference(secret: string, t: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

const secret = fc.string({ minLength: 1, maxLength: 200, unit: 'binary' });
const t = fc.stringMatching(/^[0-9]{1,15}$/);
const body = fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array());

describe('hmacSha256 (one-shot hash with cached pads)', () => {
  it('equals createHmac for arbitrary secrets (shorter and longer than a block), timestamps and bodies', () => {
    fc.assert(
      fc.property(secret, t, body, (key, time, raw) => {
        expect(hmacSha256(key, time, raw).toString('hex')).toBe(reference(key, time, raw));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same digest as lowercase hex (the form signing uses) as it gives as bytes', () => {
    fc.assert(
      fc.property(secret, t, body, (key, time, raw) => {
        expect(hmacSha256Hex(key, time, raw)).toBe(reference(key, time, raw));
        expect(hmacSha256Hex(key, time, raw)).toBe(hmacSha256(key, time, raw).toString('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('equals createHmac for secrets of exactly 64 and 65 bytes and multi-byte characters', () => {
    for (const key of ['k'.repeat(64), 'k'.repeat(65), 'é'.repeat(32), 'é'.repeat(33), '🔑'.repeat(17)]) {
      expect(hmacSha256(key, '1', 'body').toString('hex')).toBe(reference(key, '1', 'body'));
    }
  });

  it('equals createHmac for bodies larger than its reusable buffer, as strings and as bytes', () => {
    const text = 'Ñandú 🚿 '.repeat(20_000);
    expect(hmacSha256('s', '5', text).toString('hex')).toBe(reference('s', '5', text));
    const bytes = new TextEncoder().encode(text);
    expect(hmacSha256('s', '5', bytes).toString('hex')).toBe(reference('s', '5', bytes));
  });

  it('is not disturbed by a large body verified in between (the reusable buffer is rewritten)', () => {
    const before = hmacSha256('s', '5', 'small').toString('hex');
    hmacSha256('s', '5', 'x'.repeat(10_000));
    expect(hmacSha256('s', '5', 'small').toString('hex')).toBe(before);
  });

  it('has a createHmac fallback that agrees', () => {
    fc.assert(
      fc.property(secret, t, body, (key, time, raw) => {
        expect(hmacSha256WithCreateHmac(key, time, raw).toString('hex')).toBe(reference(key, time, raw));
      }),
      { numRuns: 100 },
    );
  });
});
