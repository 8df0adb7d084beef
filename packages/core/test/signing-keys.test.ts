import { generateStandardKeyPair, signWebhook, verifyStandardWebhookSignature } from '@svc/webhooks-verify';
import { describe, expect, it } from 'vitest';
import type { SigningKeyRecord } from '../src/config/config';
import {
  hasActiveKey,
  liveSigningKeys,
  rotateSigningKeys,
  signingKeysFor,
  toSigningPublicKeys,
} from '../src/config/signing-keys';
import type { WebhookEnvelope } from '../src/delivery/envelope';
import { serializeEnvelope } from '../src/delivery/envelope';
import { putSignatureFields } from '../src/service/signing-key-access';
import { buildSignedDelivery } from '../src/transport/signed-request';

const NOW = 1_700_000_000_000;

function key(name: string, expiresAt: number | null): SigningKeyRecord {
  return {
    kid: `whkey_${name}`,
    privateKey: `whsk_${name}`,
    publicKey: `whpk_${name}`,
    createdAt: NOW - 10,
    expiresAt,
  };
}

describe('signing key lists', () => {
  it.each([
    ['active only', [key('a', null)], ['a']],
    ['a retiring key before its expiry', [key('a', null), key('b', NOW + 1)], ['a', 'b']],
    ['a retiring key at its expiry (expired)', [key('a', null), key('b', NOW)], ['a']],
    ['a retiring key past its expiry', [key('a', null), key('b', NOW - 1)], ['a']],
    ['none', [], []],
  ])('liveSigningKeys: %s', (_name, keys, live) => {
    expect(liveSigningKeys(keys, NOW).map((k) => k.kid)).toEqual(live.map((n) => `whkey_${n}`));
  });

  it.each([
    ['overlap 0 drops the old key', [key('a', null)], 0, [['new', null]]],
    [
      'an overlap retires it',
      [key('a', null)],
      60_000,
      [
        ['new', null],
        ['a', NOW + 60_000],
      ],
    ],
    [
      'retiring keys stay while live, expired ones go',
      [key('a', null), key('b', NOW + 5), key('c', NOW)],
      100,
      [
        ['new', null],
        ['a', NOW + 100],
        ['b', NOW + 5],
      ],
    ],
  ] as const)('rotateSigningKeys: %s', (_name, keys, overlap, expected) => {
    const rotated = rotateSigningKeys(keys, NOW, overlap);
    expect(rotated[0]).toMatchObject({
      kid: expect.stringMatching(/^whkey_/),
      createdAt: NOW,
      expiresAt: null,
    });
    expect(rotated[0]?.privateKey).toMatch(/^whsk_/);
    const rest = rotated.slice(1).map((k) => [k.kid.slice('whkey_'.length), k.expiresAt]);
    expect([['new', null], ...rest]).toEqual(expected);
    expect(
      keys.map((k) => k.expiresAt),
      'the given list is not changed',
    ).toContain(null);
  });

  it.each([
    ['undefined keeps the list', [key('a', null)], undefined, 'keep'],
    ['on while on keeps it', [key('a', null)], true, 'keep'],
    ['off while off keeps it', [], false, 'keep'],
    ['on while off makes one key', [], true, 1],
    ['off while on drops every key', [key('a', null), key('b', NOW + 5)], false, 0],
  ] as const)('signingKeysFor: %s', (_name, keys, asymmetric, expected) => {
    const result = signingKeysFor(keys, asymmetric, NOW);
    if (expected === 'keep') expect(result).toBeUndefined();
    else expect(result).toHaveLength(expected);
  });

  it('the view lists live keys without private keys', () => {
    const view = toSigningPublicKeys([key('a', null), key('b', NOW - 1)], NOW);
    expect(view).toEqual([{ kid: 'whkey_a', publicKey: 'whpk_a', createdAt: NOW - 10, expiresAt: null }]);
    expect(hasActiveKey([key('b', NOW + 1)])).toBe(false);
  });

  it.each([
    ['a create with nothing', null, {}, {}],
    ['a create under standard', null, { signatureScheme: 'standard' }, { signatureScheme: 'standard' }],
    [
      'an update turning keys off with the scheme',
      'on',
      { signatureScheme: 'service', asymmetricSignatures: false },
      {
        signatureScheme: 'service',
        signingKeys: [],
      },
    ],
  ] as const)('putSignatureFields: %s', (_name, existing, body, expected) => {
    const record =
      existing === null ? null : { signatureScheme: 'both' as const, signingKeys: [key('a', null)] };
    expect(putSignatureFields(record as never, body, NOW)).toEqual(expected);
  });
});

describe('buildSignedDelivery', () => {
  const secret = 'ab'.repeat(32);
  const envelope: WebhookEnvelope = {
    webhookId: 'whdel_0190a1b2-c3d4-7e5f-8a6b-000000000001',
    eventType: 'job_cancelled',
    entityType: 'job',
    entityId: 'job-1',
    parentEntityId: null,
    createdById: null,
    createdByRole: null,
    metadata: { jobId: 'job-1' },
    createdOn: NOW - 5_000,
    deliveredAt: NOW + 999,
    attempt: 1,
  };

  it("'service' sends exactly the spec's three headers, as before", () => {
    const body = serializeEnvelope(envelope);
    const sent = buildSignedDelivery('https://h.test/', envelope, {
      signatureScheme: 'service',
      signingSecret: secret,
      signingKeys: [key('unused', null)],
    });
    expect(sent.body).toBe(body);
    expect(Object.entries(sent.headers)).toEqual([
      ['x-service-signature', signWebhook(body, secret, envelope.deliveredAt)],
      ['x-service-webhook-id', envelope.webhookId],
      ['x-service-event-type', 'job_cancelled'],
    ]);
  });

  it("'standard' and 'both' sign v1 with the attempt's whole seconds; 'both' adds the spec header", () => {
    const standard = buildSignedDelivery('https://h.test/', envelope, {
      signatureScheme: 'standard',
      signingSecret: secret,
      signingKeys: [],
    });
    expect(standard.headers).toEqual({
      'webhook-id': envelope.webhookId,
      'webhook-timestamp': String((NOW + 999 - ((NOW + 999) % 1000)) / 1000),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
      'x-service-webhook-id': envelope.webhookId,
      'x-service-event-type': 'job_cancelled',
    });
    const both = buildSignedDelivery('https://h.test/', envelope, {
      signatureScheme: 'both',
      signingSecret: secret,
      signingKeys: [],
    });
    expect(both.headers).toEqual({
      ...standard.headers,
      'x-service-signature': signWebhook(both.body, secret, envelope.deliveredAt),
    });
  });

  it('each live key adds a v1a after v1, active first; a key at its expiry signs no more', () => {
    const active = generateStandardKeyPair();
    const retiring = generateStandardKeyPair();
    const expired = generateStandardKeyPair();
    const keys: SigningKeyRecord[] = [
      { kid: 'whkey_1', ...active, createdAt: NOW, expiresAt: null },
      { kid: 'whkey_2', ...retiring, createdAt: NOW, expiresAt: envelope.deliveredAt + 1 },
      { kid: 'whkey_3', ...expired, createdAt: NOW, expiresAt: envelope.deliveredAt },
    ];
    const sent = buildSignedDelivery('https://h.test/', envelope, {
      signatureScheme: 'standard',
      signingSecret: secret,
      signingKeys: keys,
    });
    const entries = (sent.headers['webhook-signature'] ?? '').split(' ');
    expect(entries.map((entry) => entry.split(',')[0])).toEqual(['v1', 'v1a', 'v1a']);
    const options = { toleranceMs: Number.MAX_SAFE_INTEGER };
    for (const [index, publicKey] of [active.publicKey, retiring.publicKey].entries()) {
      const alone = { ...sent.headers, 'webhook-signature': entries[index + 1] ?? '' };
      expect(verifyStandardWebhookSignature(sent.body, alone, [publicKey], options).id).toBe(
        envelope.webhookId,
      );
    }
    const onlyExpired = { ...sent.headers, 'webhook-signature': entries.slice(1).join(' ') };
    expect(() =>
      verifyStandardWebhookSignature(sent.body, onlyExpired, [expired.publicKey], options),
    ).toThrow();
  });
});
