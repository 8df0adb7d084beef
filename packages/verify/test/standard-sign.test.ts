import * as node from '@svc/webhooks-verify';
import * as web from '@svc/webhooks-verify/web';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { rejection } from './entries';
import {
  BODY,
  ID,
  NOW,
  NOW_SECONDS,
  referenceStandardSignature,
  SECRET,
  SECRET_WHSEC,
  thrown,
} from './fixtures';
import { standardEntries } from './standard-entries';

describe.each(standardEntries)('$name signStandardWebhook', (entry) => {
  it('returns v1,<base64> equal to the computation from the rules', async () => {
    const signature = await entry.sign(BODY, SECRET, ID, NOW_SECONDS);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(signature).toBe(referenceStandardSignature(BODY, SECRET));
  });

  it('signs alike with the hex secret and its whsec_ form, and bytes like the equal string', async () => {
    const text = '{"note":"Ñandú 🚿 日本"}';
    const byHex = await entry.sign(text, SECRET, ID, NOW_SECONDS);
    expect(await entry.sign(text, SECRET_WHSEC, ID, NOW_SECONDS)).toBe(byHex);
    expect(await entry.sign(new TextEncoder().encode(text), SECRET, ID, NOW_SECONDS)).toBe(byHex);
  });

  it('defaults the timestamp to the current second', async () => {
    vi.useFakeTimers({ now: NOW + 999, toFake: ['Date'] });
    try {
      expect(await entry.sign(BODY, SECRET, ID)).toBe(referenceStandardSignature(BODY, SECRET));
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ['an empty id', '', NOW_SECONDS, /id must be a non-empty string/],
    ['milliseconds', ID, NOW, /looks like epoch milliseconds/],
    ['a fraction', ID, 1.5, /non-negative integer of epoch seconds/],
    ['a negative timestamp', ID, -1, /non-negative integer of epoch seconds/],
  ])('refuses %s with invalid_option', async (_label, id, seconds, message) => {
    const error = await rejection(entry.sign(BODY, SECRET, id, seconds));
    expect(error.code).toBe('invalid_option');
    expect(error.message).toMatch(message);
  });

  it.each([
    ['an empty secret', ''],
    ['the masked secret', 'service_whsec_********abcd'],
    ['whsec_ alone', 'whsec_'],
    ['a public key', `whpk_${'A'.repeat(43)}=`],
    ['a private key', `whsk_${'A'.repeat(43)}=`],
  ])('refuses %s with invalid_secret', async (_label, secret) => {
    expect((await rejection(entry.sign(BODY, secret, ID, NOW_SECONDS))).code).toBe('invalid_secret');
  });
});

describe('toStandardSecret', () => {
  it('is whsec_ + base64 of the hex secret’s UTF-8 bytes, on both entries', () => {
    expect(node.toStandardSecret(SECRET)).toBe(SECRET_WHSEC);
    expect(web.toStandardSecret(SECRET)).toBe(SECRET_WHSEC);
    expect(Buffer.from(SECRET_WHSEC.slice(6), 'base64')).toHaveLength(64);
  });

  it('gives the standardwebhooks package the key the service signs with', () => {
    const library = new Webhook(node.toStandardSecret(SECRET));
    const signature = library.sign(ID, new Date(NOW), BODY);
    expect(signature).toBe(node.signStandardWebhook(BODY, SECRET, ID, NOW_SECONDS));
  });

  it.each([
    ['an empty secret', '', /empty/],
    ['the masked secret', 'service_whsec_********abcd', /masked/],
    ['a whsec_ secret', SECRET_WHSEC, /already in its whsec_ form/],
    ['a private key', `whsk_${'A'.repeat(43)}=`, /Ed25519 key/],
  ])('refuses %s with invalid_secret', (_label, secret, message) => {
    const error = thrown(() => node.toStandardSecret(secret));
    expect(error.code).toBe('invalid_secret');
    expect(error.message).toMatch(message);
  });
});

describe('constants', () => {
  it('name the Standard Webhooks headers in lower case, on both entries', () => {
    for (const entry of [node, web]) {
      expect(entry.STANDARD_WEBHOOK_HEADERS).toEqual({
        id: 'webhook-id',
        timestamp: 'webhook-timestamp',
        signature: 'webhook-signature',
      });
    }
  });
});

describe('node and web Standard Webhooks signers', () => {
  it('agree on v1 and v1a', async () => {
    const { privateKey } = node.generateStandardKeyPair();
    expect(await web.signStandardWebhookAsync(BODY, SECRET, ID, NOW_SECONDS)).toBe(
      node.signStandardWebhook(BODY, SECRET, ID, NOW_SECONDS),
    );
    expect(await web.signStandardWebhookAsymmetricAsync(BODY, privateKey, ID, NOW_SECONDS)).toBe(
      node.signStandardWebhookAsymmetric(BODY, privateKey, ID, NOW_SECONDS),
    );
  });

  it('sign bodies over the scratch buffer (16 KiB) like small ones', async () => {
    const large = JSON.stringify({ pad: 'é'.repeat(20_000) });
    expect(node.signStandardWebhook(large, SECRET_WHSEC, ID, NOW_SECONDS)).toBe(
      referenceStandardSignature(large, SECRET),
    );
    expect(await web.signStandardWebhookAsync(large, SECRET, ID, NOW_SECONDS)).toBe(
      referenceStandardSignature(large, SECRET),
    );
  });
});
