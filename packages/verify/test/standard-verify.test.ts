import { WebhookVerificationError } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import { rejection } from './entries';
import {
  BODY,
  ID,
  NOW,
  NOW_SECONDS,
  OTHER_SECRET,
  referenceStandardSignature,
  SECRET,
  SECRET_WHSEC,
  standardHeaders,
} from './fixtures';
import { standardEntries } from './standard-entries';

const at = { now: NOW };
const signature = referenceStandardSignature(BODY, SECRET);
const fresh = standardHeaders(signature);

describe.each(standardEntries)('$name Standard Webhooks verification', (entry) => {
  describe('accepts', () => {
    it('a delivery signed with the secret, returning the envelope, and id and timestamp (ms)', async () => {
      await expect(entry.verify(BODY, fresh, SECRET, at)).resolves.toEqual(JSON.parse(BODY));
      await expect(entry.verifySignature(BODY, fresh, SECRET, at)).resolves.toEqual({
        id: ID,
        timestamp: NOW,
      });
    });

    it('a Headers object, and a record whose names are not lower-case', async () => {
      await expect(entry.verifySignature(BODY, new Headers(fresh), SECRET, at)).resolves.toMatchObject({
        id: ID,
      });
      const mixedCase = {
        'Webhook-Id': ID,
        'WEBHOOK-TIMESTAMP': String(NOW_SECONDS),
        'Webhook-Signature': signature,
      };
      await expect(entry.verifySignature(BODY, mixedCase, SECRET, at)).resolves.toMatchObject({ id: ID });
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

    it('the whsec_ form of the secret, and any of several secrets (rotation)', async () => {
      await expect(entry.verify(BODY, fresh, SECRET_WHSEC, at)).resolves.toMatchObject({
        webhookId: 'whdel_01',
      });
      await expect(entry.verify(BODY, fresh, [OTHER_SECRET, SECRET], at)).resolves.toMatchObject({
        attempt: 1,
      });
      await expect(
        entry.verify(BODY, fresh, { secrets: [OTHER_SECRET, SECRET_WHSEC] }, at),
      ).resolves.toBeDefined();
    });

    it('a signature list given as an array, or joined with ", " as Node joins a repeated header', async () => {
      const other = referenceStandardSignature(BODY, OTHER_SECRET);
      const asArray = { ...fresh, 'webhook-signature': [other, signature] };
      await expect(entry.verifySignature(BODY, asArray, SECRET, at)).resolves.toMatchObject({ id: ID });
      const joined = { ...fresh, 'webhook-signature': `${other}, ${signature}` };
      await expect(entry.verifySignature(BODY, joined, SECRET, at)).resolves.toMatchObject({ id: ID });
    });

    it('an id with any characters, signed as sent', async () => {
      const id = 'msg.ünïcode 1';
      const headers = standardHeaders(referenceStandardSignature(BODY, SECRET, id), id);
      await expect(entry.verifySignature(BODY, headers, SECRET, at)).resolves.toMatchObject({ id });
    });

    it('a timestamp 5 minutes old or ahead, and any timestamp with toleranceMs: Infinity', async () => {
      for (const seconds of [NOW_SECONDS - 300, NOW_SECONDS + 300]) {
        const headers = standardHeaders(referenceStandardSignature(BODY, SECRET, ID, seconds), ID, seconds);
        await expect(entry.verifySignature(BODY, headers, SECRET, at)).resolves.toMatchObject({
          timestamp: seconds * 1000,
        });
      }
      const old = standardHeaders(referenceStandardSignature(BODY, SECRET, ID, 1000), ID, 1000);
      await expect(
        entry.verifySignature(BODY, old, SECRET, { now: NOW, toleranceMs: Infinity }),
      ).resolves.toBeDefined();
    });
  });

  describe('rejects', () => {
    it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
      'a missing %s with missing_header',
      async (name) => {
        const headers: Record<string, string> = { ...fresh };
        delete headers[name];
        const error = await rejection(entry.verify(BODY, headers, SECRET, at));
        expect(error.code).toBe('missing_header');
        expect(error.message).toContain(`The ${name} header is missing`);
      },
    );

    it('headers that are not an object with missing_header', async () => {
      const error = await rejection(entry.verify(BODY, undefined as unknown as Headers, SECRET, at));
      expect(error.code).toBe('missing_header');
      expect(error.message).toMatch(/req\.headers/);
    });

    it.each([['1.5'], ['-1'], ['17e8'], ['1234567890123456']])(
      'webhook-timestamp %s with malformed_header',
      async (t) => {
        const error = await rejection(entry.verify(BODY, { ...fresh, 'webhook-timestamp': t }, SECRET, at));
        expect(error.code).toBe('malformed_header');
        expect(error.message).toMatch(/epoch seconds/);
      },
    );

    it.each([
      ['an entry without a comma', 'abc', /not <version>,<signature>/],
      ['a v1 value that is not base64', 'v1,not*base64', /not base64/],
      ['a v1a value that is not base64', 'v1a,%%%', /not base64/],
    ])('%s with malformed_header', async (_label, value, message) => {
      const error = await rejection(entry.verify(BODY, { ...fresh, 'webhook-signature': value }, SECRET, at));
      expect(error.code).toBe('malformed_header');
      expect(error.message).toMatch(message);
    });

    it('a timestamp 6 minutes old, or ahead, with timestamp_out_of_tolerance', async () => {
      for (const [seconds, words] of [
        [NOW_SECONDS - 360, /360000 ms old/],
        [NOW_SECONDS + 360, /in the future/],
      ] as const) {
        const headers = standardHeaders(referenceStandardSignature(BODY, SECRET, ID, seconds), ID, seconds);
        const error = await rejection(entry.verify(BODY, headers, SECRET, at));
        expect(error.code).toBe('timestamp_out_of_tolerance');
        expect(error.message).toMatch(words);
      }
    });

    it('a webhook-timestamp in milliseconds, saying Standard Webhooks carries seconds', async () => {
      const headers = standardHeaders(referenceStandardSignature(BODY, SECRET, ID, NOW), ID, NOW);
      const error = await rejection(entry.verify(BODY, headers, SECRET, at));
      expect(error.code).toBe('timestamp_out_of_tolerance');
      expect(error.message).toMatch(/looks like epoch milliseconds.*carries epoch seconds/);
    });

    it.each([
      ['the masked secret', 'service_whsec_********abcd', /masked form/],
      ['undefined', undefined, /No key was given/],
      ['an empty list', [], /empty/],
      ['a whsec_ secret that is not base64', 'whsec_***', /not base64/],
      ['a private key', `whsk_${'A'.repeat(43)}=`, /whsk_ private key was given where a secret belongs/],
      ['a damaged public key', 'whpk_abc', /not the base64 of 32 bytes/],
      ['an empty JWKS', { keys: [] }, /Ed25519 \(v1a\) signatures are off/],
    ])('%s with invalid_secret', async (_label, secret, message) => {
      const error = await rejection(entry.verify(BODY, fresh, secret as string, at));
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(message);
    });

    it('a re-serialised body with signature_mismatch, naming the raw body and rotation', async () => {
      const error = await rejection(
        entry.verify(JSON.stringify(JSON.parse(BODY), null, 2), fresh, SECRET, at),
      );
      expect(error.code).toBe('signature_mismatch');
      expect(error.message).toMatch(/raw body/);
      expect(error.message).toMatch(/rotation/);
    });

    it('v1 signatures checked against public keys only, saying the secret is needed', async () => {
      const error = await rejection(entry.verify(BODY, fresh, `whpk_${'A'.repeat(43)}=`, at));
      expect(error.code).toBe('signature_mismatch');
      expect(error.message).toMatch(/only v1 \(HMAC-SHA256\) signatures, and only public keys/);
    });

    it('a parsed body with invalid_body, and a verified body that is not a JSON object', async () => {
      expect((await rejection(entry.verify(JSON.parse(BODY), fresh, SECRET, at))).code).toBe('invalid_body');
      const headers = standardHeaders(referenceStandardSignature('[1]', SECRET));
      expect((await rejection(entry.verify('[1]', headers, SECRET, at))).code).toBe('invalid_body');
      await expect(entry.verifySignature('[1]', headers, SECRET, at)).resolves.toMatchObject({ id: ID });
    });

    it.each([[{ toleranceMs: -1 }], [{ now: Number.NaN }]])(
      'a bad option %o with invalid_option',
      async (options) => {
        const error = await rejection(entry.verify(BODY, fresh, SECRET, options));
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect(error.code).toBe('invalid_option');
      },
    );
  });

  describe('checks in order: body type, headers, keys, tolerance, signature', () => {
    const stale = standardHeaders(referenceStandardSignature(BODY, OTHER_SECRET, ID, 1000), ID, 1000);
    it.each([
      ['a parsed body beats missing headers', {}, {}, '', 'invalid_body'],
      ['missing headers beat a bad secret', BODY, {}, '', 'missing_header'],
      ['a bad secret beats a stale timestamp', BODY, stale, '', 'invalid_secret'],
      ['a stale timestamp beats a wrong signature', BODY, stale, SECRET, 'timestamp_out_of_tolerance'],
    ])('%s', async (_label, body, headers, secret, code) => {
      const error = await rejection(entry.verify(body as string, headers, secret, at));
      expect(error.code).toBe(code);
      expect(error.message).toMatch(/^@svc\/webhooks-verify: /);
    });
  });
});
