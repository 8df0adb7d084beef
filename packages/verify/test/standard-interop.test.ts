import { toStandardSecret, WebhookVerificationError } from '@svc/webhooks-verify';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rejection } from './entries';
import { BODY, ID, NOW, NOW_SECONDS, REFERENCE, SECRET, SECRET_WHSEC, standardHeaders } from './fixtures';
import { standardEntries } from './standard-entries';

/*
 * Interoperability with the unmodified `standardwebhooks` package (the Standard Webhooks reference
 * library for JavaScript), in both directions, and the specification's reference vector.
 */

const at = { now: NOW };
const referenceAt = { now: REFERENCE.seconds * 1000 };

/** Runs `fn` with `Date.now()` at `now`: the reference library checks its tolerance against the clock. */
function atClock<T>(now: number, fn: () => T): T {
  vi.useFakeTimers({ now, toFake: ['Date'] });
  try {
    return fn();
  } finally {
    vi.useRealTimers();
  }
}

afterEach(() => vi.useRealTimers());

describe.each(standardEntries)('$name and the standardwebhooks package', (entry) => {
  it('signs the reference vector byte for byte', async () => {
    expect(await entry.sign(REFERENCE.body, REFERENCE.secret, REFERENCE.id, REFERENCE.seconds)).toBe(
      REFERENCE.signature,
    );
  });

  it('verifies the reference vector', async () => {
    const headers = standardHeaders(REFERENCE.signature, REFERENCE.id, REFERENCE.seconds);
    await expect(entry.verify(REFERENCE.body, headers, REFERENCE.secret, referenceAt)).resolves.toEqual({
      test: 2432232314,
    });
  });

  it('signs what the library verifies, keyed with the whsec_ form of the hex secret', async () => {
    const signature = await entry.sign(BODY, SECRET, ID, NOW_SECONDS);
    const library = new Webhook(toStandardSecret(SECRET));
    expect(atClock(NOW, () => library.verify(BODY, standardHeaders(signature)))).toEqual(JSON.parse(BODY));
  });

  it('verifies what the library signs, with the hex secret and with its whsec_ form', async () => {
    const library = new Webhook(SECRET_WHSEC);
    const signature = library.sign(ID, new Date(NOW), BODY);
    for (const secret of [SECRET, SECRET_WHSEC]) {
      await expect(entry.verify(BODY, standardHeaders(signature), secret, at)).resolves.toEqual(
        JSON.parse(BODY),
      );
    }
  });

  it('verifies what the library signs over bytes, unicode included', async () => {
    const text = '{"note":"Ñandú 🚿 日本"}';
    const signature = new Webhook(SECRET_WHSEC).sign(ID, new Date(NOW), Buffer.from(text));
    await expect(
      entry.verify(new TextEncoder().encode(text), standardHeaders(signature), SECRET, at),
    ).resolves.toEqual(JSON.parse(text));
  });

  describe('the reference suites’ negative cases', () => {
    const valid = REFERENCE.signature;
    const headersWith = (signature: string) => standardHeaders(signature, REFERENCE.id, REFERENCE.seconds);
    const verify = (signature: string, secret: string = REFERENCE.secret) =>
      entry.verify(REFERENCE.body, headersWith(signature), secret, referenceAt);

    it('refuses an altered signature with signature_mismatch', async () => {
      const altered = `v1,${valid.slice(3, 10)}X${valid.slice(11)}`;
      const error = await rejection(verify(altered));
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect(error.code).toBe('signature_mismatch');
      expect(error.message).toMatch(/no v1 signature matches/i);
    });

    it('refuses a header holding only a v2 signature with missing_signature, naming the version', async () => {
      const error = await rejection(verify(`v2,${valid.slice(3)}`));
      expect(error.code).toBe('missing_signature');
      expect(error.message).toMatch(/only versions this package does not know: v2/);
    });

    it('refuses an empty "v1," with malformed_header', async () => {
      const error = await rejection(verify('v1,'));
      expect(error.code).toBe('malformed_header');
      expect(error.message).toMatch(/v1 entry has no signature/);
    });

    it('accepts a valid signature third in the list', async () => {
      const list = `v1,${'A'.repeat(43)}= v2,${valid.slice(3)} ${valid}`;
      await expect(verify(list)).resolves.toEqual({ test: 2432232314 });
    });

    it.each([
      ['an empty secret', '', /empty/],
      ['a whsec_ secret with nothing after the prefix', 'whsec_', /nothing after it/],
    ])('refuses %s with invalid_secret', async (_label, secret, message) => {
      const error = await rejection(verify(valid, secret));
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(message);
    });
  });

  describe('the hex / whsec_ mix-up', () => {
    it('names a hex secret given as whsec_<hex> (invalid_secret), and does not accept the delivery', async () => {
      const signature = await entry.sign(BODY, SECRET, ID, NOW_SECONDS);
      const error = await rejection(entry.verify(BODY, standardHeaders(signature), `whsec_${SECRET}`, at));
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(/hex secret with "whsec_" put in front/);
      expect(error.message).toMatch(/toStandardSecret/);
      expect(error.message).toMatch(/not accepted/);
    });

    it('names a sender whose library base64-decoded the hex secret (a 48-byte key)', async () => {
      // What a Standard Webhooks library does when it is handed the hex: hex is valid base64.
      const library = new Webhook(SECRET);
      const signature = library.sign(ID, new Date(NOW), BODY);
      const error = await rejection(entry.verify(BODY, standardHeaders(signature), SECRET, at));
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(/hex secret read as base64 \(a different, 48-byte key\)/);
      expect(error.message).toMatch(/whsec_ form/);
    });

    it('names a sender that used the whsec_ string itself as the key', async () => {
      const library = new Webhook(SECRET_WHSEC, { format: 'raw' });
      const signature = library.sign(ID, new Date(NOW), BODY);
      const error = await rejection(entry.verify(BODY, standardHeaders(signature), SECRET_WHSEC, at));
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(/whole whsec_ string used as a plain-text key/);
    });

    it('names a whsec_ secret given without its prefix', async () => {
      const signature = new Webhook(REFERENCE.secret).sign(ID, new Date(NOW), BODY);
      const withoutPrefix = REFERENCE.secret.slice('whsec_'.length);
      const error = await rejection(entry.verify(BODY, standardHeaders(signature), withoutPrefix, at));
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(/without its "whsec_" prefix/);
    });

    it('still reports a plain mismatch when no reading of the key matches', async () => {
      const signature = new Webhook(toStandardSecret('f'.repeat(64))).sign(ID, new Date(NOW), BODY);
      const error = await rejection(entry.verify(BODY, standardHeaders(signature), SECRET, at));
      expect(error.code).toBe('signature_mismatch');
    });

    it('names the whsec_ form given to verify X-Service-Signature', async () => {
      const { signWebhook } = await import('@svc/webhooks-verify');
      const header = { 'x-service-signature': signWebhook(BODY, SECRET, NOW) };
      const error = await rejection(entry.verifyAny(BODY, header, SECRET_WHSEC, at));
      expect(error.code).toBe('invalid_secret');
      expect(error.message).toMatch(/carries X-Service-Signature, which is keyed with the hex secret/);
    });
  });
});

describe('the standardwebhooks package and a hex secret pasted as it is', () => {
  it('silently takes a different key (why the verifier names the mix-up): 48 bytes, not 64', () => {
    const signedByUs = atClock(NOW, () => new Webhook(SECRET).sign(ID, new Date(NOW), BODY));
    const signedRight = new Webhook(SECRET_WHSEC).sign(ID, new Date(NOW), BODY);
    expect(signedByUs).not.toBe(signedRight);
    expect(Buffer.from(SECRET, 'base64')).toHaveLength(48);
  });
});
