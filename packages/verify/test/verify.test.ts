import { WebhookVerificationError } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import { entries, rejection } from './entries';
import { BODY, NOW, OTHER_SECRET, referenceHeader, SECRET } from './fixtures';

const at = { now: NOW };
const fresh = referenceHeader(BODY, SECRET, NOW - 1_000);

describe.each(entries)('$name', (entry) => {
  describe('accepts', () => {
    it('a delivery signed with the secret and returns the parsed envelope', async () => {
      const envelope = await entry.verify(BODY, fresh, SECRET, at);
      expect(envelope).toEqual(JSON.parse(BODY));
      expect(envelope.webhookId).toBe('whdel_01');
    });

    it('a string, a Buffer, a Uint8Array view with an offset and an ArrayBuffer body alike', async () => {
      const padded = new TextEncoder().encode(`xx${BODY}yy`);
      const bodies = [
        BODY,
        Buffer.from(BODY),
        padded.subarray(2, padded.length - 2),
        new TextEncoder().encode(BODY).buffer,
      ];
      for (const body of bodies)
        await expect(entry.verify(body, fresh, SECRET, at)).resolves.toMatchObject({ attempt: 1 });
    });

    it('when any of several secrets matches (rotation overlap)', async () => {
      await expect(entry.verifySignature(BODY, fresh, [OTHER_SECRET, SECRET], at)).resolves.toEqual({
        timestamp: NOW - 1_000,
      });
    });

    it('when any of several v1 signatures matches', async () => {
      const other = referenceHeader(BODY, OTHER_SECRET, NOW).split('v1=')[1];
      const header = `t=${NOW},v1=${other},${referenceHeader(BODY, SECRET, NOW).split(',')[1]}`;
      await expect(entry.verifySignature(BODY, header, SECRET, at)).resolves.toEqual({ timestamp: NOW });
    });

    it('a timestamp 5 minutes old or 5 minutes ahead (the window includes its edges)', async () => {
      for (const t of [NOW - 300_000, NOW + 300_000]) {
        await expect(
          entry.verifySignature(BODY, referenceHeader(BODY, SECRET, t), SECRET, at),
        ).resolves.toEqual({
          timestamp: t,
        });
      }
    });

    it('any timestamp when toleranceMs is Infinity', async () => {
      const header = referenceHeader(BODY, SECRET, 1_000);
      await expect(
        entry.verifySignature(BODY, header, SECRET, { now: NOW, toleranceMs: Infinity }),
      ).resolves.toEqual({
        timestamp: 1_000,
      });
    });

    it('with the current clock when now is not given', async () => {
      const header = referenceHeader(BODY, SECRET, Date.now());
      await expect(entry.verify(BODY, header, SECRET)).resolves.toMatchObject({ webhookId: 'whdel_01' });
    });
  });

  describe('rejects', () => {
    it('a timestamp 6 min old with timestamp_out_of_tolerance and advice on clock drift', async () => {
      const error = await rejection(
        entry.verify(BODY, referenceHeader(BODY, SECRET, NOW - 360_000), SECRET, at),
      );
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect(error.code).toBe('timestamp_out_of_tolerance');
      expect(error.message).toMatch(/360000 ms old.*clock/);
    });

    it('a timestamp 6 min in the future: the tolerance applies both ways', async () => {
      const error = await rejection(
        entry.verify(BODY, referenceHeader(BODY, SECRET, NOW + 360_000), SECRET, at),
      );
      expect(error.code).toBe('timestamp_out_of_tolerance');
      expect(error.message).toMatch(/in the future/);
    });

    it('a 10-digit t, saying it looks like seconds and that t is in milliseconds', async () => {
      const seconds = Math.floor(NOW / 1000);
      const error = await rejection(entry.verify(BODY, referenceHeader(BODY, SECRET, seconds), SECRET, at));
      expect(error.code).toBe('timestamp_out_of_tolerance');
      expect(error.message).toContain(`t=${seconds} looks like epoch seconds`);
      expect(error.message).toContain('Date.now()');
    });

    it('options.now given in seconds, naming the option', async () => {
      const error = await rejection(entry.verify(BODY, fresh, SECRET, { now: Math.floor(NOW / 1000) }));
      expect(error.code).toBe('timestamp_out_of_tolerance');
      expect(error.message).toContain('options.now');
    });

    it('the masked secret with invalid_secret, pointing at the full secret and rotation', async () => {
      const error = await rejection(
        entry.verify(BODY, fresh, `service_whsec_********${SECRET.slice(-4)}`, at),
      );
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(/masked form/);
      expect(error.message).toMatch(/rotate/);
    });

    it.each([
      ['an empty secret', '', /empty/],
      ['an empty list', [], /empty/],
      ['undefined', undefined, /No signing secret/],
      ['a list holding an empty secret', [SECRET, ''], /empty/],
      ['a number', 42, /number/],
    ])('%s as invalid_secret (fails closed)', async (_label, secret, message) => {
      const error = await rejection(entry.verify(BODY, fresh, secret as string, at));
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(message);
    });

    it('a parsed object as the body with invalid_body, saying to verify the raw body with express.raw', async () => {
      const error = await rejection(entry.verify(JSON.parse(BODY), fresh, SECRET, at));
      expect(error.code).toBe('invalid_body');
      expect(error.message).toMatch(/parsed object/);
      expect(error.message).toContain("express.raw({ type: 'application/json' })");
    });

    it('an undefined body with invalid_body', async () => {
      const error = await rejection(entry.verify(undefined as unknown as string, fresh, SECRET, at));
      expect(error.code).toBe('invalid_body');
      expect(error.message).toMatch(/nothing reached/);
    });

    it('a re-serialised body with signature_mismatch, naming raw body and rotation as causes', async () => {
      const reserialised = JSON.stringify(JSON.parse(BODY), null, 2);
      const error = await rejection(entry.verify(reserialised, fresh, SECRET, at));
      expect(error.code).toBe('signature_mismatch');
      expect(error.message).toMatch(/raw body/);
      expect(error.message).toMatch(/rotation/);
    });

    it('the old secret after a rotation with signature_mismatch', async () => {
      const error = await rejection(entry.verifySignature(BODY, fresh, OTHER_SECRET, at));
      expect(error.code).toBe('signature_mismatch');
    });

    it('a verified body that is not JSON with invalid_body, keeping the parse error as cause', async () => {
      const error = await rejection(entry.verify('{oops', referenceHeader('{oops', SECRET, NOW), SECRET, at));
      expect(error.code).toBe('invalid_body');
      expect(error.cause).toBeInstanceOf(SyntaxError);
    });

    it.each(['null', '42', '"text"', '[]'])('a verified body %s that is not a JSON object', async (body) => {
      const error = await rejection(entry.verify(body, referenceHeader(body, SECRET, NOW), SECRET, at));
      expect(error.code).toBe('invalid_body');
    });

    it('nothing in the signature-only check for a body that is not JSON: it does not parse', async () => {
      await expect(
        entry.verifySignature('{oops', referenceHeader('{oops', SECRET, NOW), SECRET, at),
      ).resolves.toEqual({
        timestamp: NOW,
      });
    });

    it.each([
      ['toleranceMs: -1', { toleranceMs: -1 }],
      ['toleranceMs: NaN', { toleranceMs: Number.NaN }],
      ['now: NaN', { now: Number.NaN }],
    ])(
      'a bad option (%s) with invalid_option, since it is a bug, not a bad delivery',
      async (_label, options) => {
        const error = await rejection(entry.verify(BODY, fresh, SECRET, options));
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect(error.code).toBe('invalid_option');
      },
    );
  });

  it.each([
    ['a parsed body', { body: {}, header: fresh, secret: SECRET }],
    ['a missing header', { body: BODY, header: undefined, secret: SECRET }],
    ['a malformed header', { body: BODY, header: 't=x,v1=zz', secret: SECRET }],
    ['the masked secret', { body: BODY, header: fresh, secret: 'service_whsec_********abcd' }],
    [
      'a stale timestamp',
      { body: BODY, header: referenceHeader(BODY, SECRET, NOW - 3_600_000), secret: SECRET },
    ],
    ['a wrong signature', { body: BODY, header: fresh, secret: OTHER_SECRET }],
  ])('rejects %s with a message that starts with the package name', async (_label, input) => {
    const error = await rejection(entry.verify(input.body as string, input.header, input.secret, at));
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.message).toMatch(/^@svc\/webhooks-verify: /);
  });

  describe('checks in order: body type, header, secret, tolerance, signature, JSON', () => {
    const stale = referenceHeader('{oops', OTHER_SECRET, NOW - 3_600_000);
    it.each([
      ['a parsed body beats a missing header', { body: {}, header: undefined, secret: '' }, 'invalid_body'],
      [
        'a missing header beats a bad secret',
        { body: BODY, header: undefined, secret: '' },
        'missing_header',
      ],
      ['a bad secret beats a stale timestamp', { body: BODY, header: stale, secret: '' }, 'invalid_secret'],
      [
        'a stale timestamp beats a wrong signature',
        { body: '{oops', header: stale, secret: SECRET },
        'timestamp_out_of_tolerance',
      ],
      [
        'a wrong signature beats a body that is not JSON',
        { body: '{oops', header: referenceHeader('{oops', OTHER_SECRET, NOW), secret: SECRET },
        'signature_mismatch',
      ],
    ])('%s', async (_label, input, code) => {
      const error = await rejection(entry.verify(input.body as string, input.header, input.secret, at));
      expect(error.code).toBe(code);
    });
  });
});
