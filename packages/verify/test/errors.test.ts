import * as node from '@svc/webhooks-verify';
import * as web from '@svc/webhooks-verify/web';
import { describe, expect, it } from 'vitest';

describe('WebhookVerificationError', () => {
  it('carries name, code, message and cause', () => {
    const cause = new Error('inner');
    const error = new node.WebhookVerificationError('signature_mismatch', 'no match', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WebhookVerificationError');
    expect(error.code).toBe('signature_mismatch');
    expect(error.message).toBe('@svc/webhooks-verify: no match');
    expect(error.cause).toBe(cause);
    expect(String(error)).toBe('WebhookVerificationError: @svc/webhooks-verify: no match');
  });

  it('is recognised by instanceof and isWebhookVerificationError across separately bundled entries', () => {
    // Simulates another bundle's copy of the class: a distinct constructor with the same registry brand.
    const foreign = Object.defineProperty(
      new Error('x'),
      Symbol.for('@svc/webhooks-verify/WebhookVerificationError'),
      {
        value: true,
      },
    );
    expect(foreign instanceof node.WebhookVerificationError).toBe(true);
    expect(web.isWebhookVerificationError(foreign)).toBe(true);
  });

  it('is not claimed by unrelated errors or values', () => {
    for (const value of [new Error('x'), new TypeError('x'), { code: 'signature_mismatch' }, null, 'error']) {
      expect(value instanceof node.WebhookVerificationError).toBe(false);
      expect(node.isWebhookVerificationError(value)).toBe(false);
    }
  });
});

describe('constants', () => {
  it('name the header in lower case and default the tolerance to 5 minutes, on both entries', () => {
    for (const entry of [node, web]) {
      expect(entry.SIGNATURE_HEADER).toBe('x-service-signature');
      expect(entry.DEFAULT_TOLERANCE_MS).toBe(300_000);
    }
  });
});
