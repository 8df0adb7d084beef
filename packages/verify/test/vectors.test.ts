import {
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookVerificationErrorCode,
} from '@svc/webhooks-verify';
import { verifyWebhookAsync, verifyWebhookSignatureAsync } from '@svc/webhooks-verify/web';
import { describe, expect, it } from 'vitest';
import { type TestVector, vectors } from './vectors';

type Outcome = { valid: true } | { valid: false; code: WebhookVerificationErrorCode };

async function outcome(run: () => unknown): Promise<Outcome> {
  try {
    await run();
    return { valid: true };
  } catch (error) {
    return { valid: false, code: (error as { code: WebhookVerificationErrorCode }).code };
  }
}

// A signature check does not parse, so a body that is not a JSON object is fine for it.
function signatureOnly(expected: TestVector['expected']): TestVector['expected'] {
  return expected.code === 'invalid_body' ? { valid: true } : expected;
}

const entries = [
  ['verifyWebhook (node:crypto)', (v: TestVector) => verifyWebhook(v.body, v.header, v.secret, v), false],
  [
    'verifyWebhookAsync (Web Crypto)',
    (v: TestVector) => verifyWebhookAsync(v.body, v.header, v.secret, v),
    false,
  ],
  [
    'verifyWebhook with a Buffer body',
    (v: TestVector) => verifyWebhook(Buffer.from(v.body), v.header, v.secret, v),
    false,
  ],
  [
    'verifyWebhookAsync with Uint8Array bytes',
    (v: TestVector) => verifyWebhookAsync(new TextEncoder().encode(v.body), v.header, v.secret, v),
    false,
  ],
  ['verifyWebhookSignature', (v: TestVector) => verifyWebhookSignature(v.body, v.header, v.secret, v), true],
  [
    'verifyWebhookSignatureAsync',
    (v: TestVector) => verifyWebhookSignatureAsync(v.body, v.header, v.secret, v),
    true,
  ],
] as const;

describe('test-vectors.json', () => {
  it('holds at least 25 cases covering every error code', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(25);
    const codes = new Set(vectors.map((v) => v.expected.code).filter(Boolean));
    expect([...codes].sort()).toEqual([
      'invalid_body',
      'invalid_secret',
      'malformed_header',
      'missing_header',
      'missing_signature',
      'missing_timestamp',
      'signature_mismatch',
      'timestamp_out_of_tolerance',
    ]);
  });

  for (const [entry, verify, skipsParsing] of entries) {
    describe(entry, () => {
      it.each(vectors.map((v) => [v.name, v] as const))('%s', async (_name, vector) => {
        const expected = skipsParsing ? signatureOnly(vector.expected) : vector.expected;
        expect(await outcome(() => verify(vector))).toEqual(expected);
      });
    });
  }
});
