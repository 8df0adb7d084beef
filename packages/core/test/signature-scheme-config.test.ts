import { hostResolver } from '@svc/test-support';
import { toStandardSecret } from '@svc/webhooks-verify';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigNotFoundError,
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  InvalidOptionError,
  type PutConfigBody,
  type WebhookService,
  WebhookValidationError,
} from '../src/index';

const HOST = 'hooks.example.test';
const resolve = hostResolver({ [HOST]: '93.184.216.34' });
const BODY = { webhookUrl: `https://${HOST}/hooks`, enabled: true, subscribedEventTypes: ['job_cancelled'] };
const UUID_V7 = '[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

let webhooks: WebhookService;
let now: number;

beforeEach(() => {
  now = 1_700_000_000_000;
  webhooks = createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    urlPolicy: { resolve },
    clock: () => now,
  });
});

function put(extra: Record<string, unknown> = {}) {
  return webhooks.putConfig('agency-a', { ...BODY, ...extra } as PutConfigBody);
}

/** The stored record, to compare before and after a refused call. */
function stored() {
  return webhooks.store.getConfig('agency-a');
}

async function refusal(call: Promise<unknown>): Promise<WebhookValidationError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WebhookValidationError);
  return error as WebhookValidationError;
}

describe('PUT /config signature fields', () => {
  it("a create without them is the spec's scheme, no keys, and no whsec_ form", async () => {
    const created = await put();
    expect(created).toMatchObject({
      signatureScheme: 'service',
      asymmetricSignatures: false,
      signingPublicKeys: [],
    });
    expect(created).not.toHaveProperty('standardSigningSecret');
    expect(await webhooks.rotateSecret('agency-a')).not.toHaveProperty('standardSigningSecret');
  });

  it('a create under a Standard Webhooks scheme shows the whsec_ form once, beside the hex secret', async () => {
    const created = await put({ signatureScheme: 'both' });
    expect(created.standardSigningSecret).toBe(toStandardSecret(created.signingSecret));
    const read = await webhooks.getConfig('agency-a');
    expect(read).toMatchObject({ signatureScheme: 'both' });
    expect(read).not.toHaveProperty('standardSigningSecret');
    const updated = await put();
    expect(updated).not.toHaveProperty('standardSigningSecret');
  });

  it('omitted fields keep the stored scheme and keys; given ones replace them', async () => {
    const created = await put({ signatureScheme: 'both', asymmetricSignatures: true });
    const [key] = created.signingPublicKeys;
    expect(key).toEqual({
      kid: expect.stringMatching(new RegExp(`^whkey_${UUID_V7}$`)),
      publicKey: expect.stringMatching(/^whpk_[A-Za-z0-9+/]{43}=$/),
      createdAt: now,
      expiresAt: null,
    });
    now += 1_000;
    expect(await put({ enabled: false })).toMatchObject({
      signatureScheme: 'both',
      asymmetricSignatures: true,
      signingPublicKeys: [key],
    });
    expect(await put({ asymmetricSignatures: true }), 'asking for what is on keeps the key').toMatchObject({
      signingPublicKeys: [key],
    });
    expect(await put({ signatureScheme: 'standard' })).toMatchObject({
      signatureScheme: 'standard',
      signingPublicKeys: [key],
    });
    expect(await put({ signatureScheme: 'service', asymmetricSignatures: false })).toMatchObject({
      signatureScheme: 'service',
      asymmetricSignatures: false,
      signingPublicKeys: [],
    });
    expect((await stored())?.signingKeys).toEqual([]);
  });

  it.each([
    ['an unknown scheme', { signatureScheme: 'svix' }, 'signatureScheme'],
    ['a scheme of the wrong type', { signatureScheme: 1 }, 'signatureScheme'],
    ['asymmetricSignatures not a boolean', { asymmetricSignatures: 'yes' }, 'asymmetricSignatures'],
    [
      'asymmetricSignatures on a create without a scheme',
      { asymmetricSignatures: true },
      'asymmetricSignatures',
    ],
    [
      "asymmetricSignatures with the 'service' scheme",
      { signatureScheme: 'service', asymmetricSignatures: true },
      'asymmetricSignatures',
    ],
  ])(
    'a create with %s is refused (400, naming the field) and nothing is stored',
    async (_name, extra, field) => {
      const error = await refusal(put(extra));
      expect(error).toMatchObject({ code: 'validation_failed' });
      expect(error.details.issues[0]?.path).toBe(field);
      expect(await stored()).toBeNull();
    },
  );

  it.each([
    ['an unknown scheme', { signatureScheme: 'v2' }, 'signatureScheme'],
    [
      "the 'service' scheme while asymmetric signatures stay on",
      { signatureScheme: 'service' },
      'asymmetricSignatures',
    ],
    [
      "the 'service' scheme with asymmetric signatures on",
      { signatureScheme: 'service', asymmetricSignatures: true },
      'asymmetricSignatures',
    ],
  ])('an update with %s is refused and changes nothing', async (_name, extra, field) => {
    await put({ signatureScheme: 'standard', asymmetricSignatures: true });
    const before = await stored();
    now += 1_000;
    const error = await refusal(put({ ...extra, enabled: false }));
    expect(error.details.issues[0]?.path).toBe(field);
    expect(error.message).toMatch(/asymmetricSignatures|signatureScheme/);
    expect(await stored()).toEqual(before);
  });

  it("asymmetric signatures on under the 'service' scheme of an existing configuration are refused", async () => {
    await put();
    const before = await stored();
    const error = await refusal(put({ asymmetricSignatures: true }));
    expect(error.message).toMatch(/'standard' or 'both'/);
    expect(await stored()).toEqual(before);
  });
});

describe('rotateSigningKey and getPublicKeys', () => {
  it.each([
    ['overlapMs -1', { overlapMs: -1 }],
    ['overlapMs 1e12', { overlapMs: 1e12 }],
    ['overlapMs 604_800_001', { overlapMs: 604_800_001 }],
    ['a non-integer overlapMs', { overlapMs: 1.5 }],
    ['overlapMs as a string', { overlapMs: '60000' }],
    ['an unknown field', { overlap: 5 }],
  ])('refuses %s (400 validation_failed) and changes nothing', async (_name, body) => {
    await put({ signatureScheme: 'standard', asymmetricSignatures: true });
    const before = await stored();
    const error = await refusal(webhooks.rotateSigningKey('agency-a', body as never));
    expect(error).toMatchObject({ code: 'validation_failed' });
    expect(await stored()).toEqual(before);
  });

  it('accepts the bounds 0 and 604_800_000', async () => {
    await put({ signatureScheme: 'standard', asymmetricSignatures: true });
    expect(
      (await webhooks.rotateSigningKey('agency-a', { overlapMs: 604_800_000 })).signingPublicKeys[1],
    ).toMatchObject({ expiresAt: now + 604_800_000 });
    expect((await webhooks.rotateSigningKey('agency-a', { overlapMs: 0 })).signingPublicKeys).toHaveLength(2);
  });

  it('refuses a rotation while asymmetric signatures are off, naming how to turn them on', async () => {
    await put({ signatureScheme: 'standard' });
    const before = await stored();
    const error = await refusal(webhooks.rotateSigningKey('agency-a'));
    expect(error.message).toMatch(/asymmetricSignatures: true/);
    expect(await stored()).toEqual(before);
  });

  it('an agency without a configuration: ConfigNotFoundError for both', async () => {
    await expect(webhooks.rotateSigningKey('agency-x')).rejects.toBeInstanceOf(ConfigNotFoundError);
    await expect(webhooks.getPublicKeys('agency-x')).rejects.toBeInstanceOf(ConfigNotFoundError);
  });

  it('the JWKS is empty while off, and lists each key still signing as an Ed25519 JWK', async () => {
    await put({ signatureScheme: 'standard' });
    expect(await webhooks.getPublicKeys('agency-a')).toEqual({ keys: [] });
    const { signingPublicKeys } = await put({ asymmetricSignatures: true });
    const publicKey = signingPublicKeys[0]?.publicKey ?? '';
    const x = Buffer.from(publicKey.slice('whpk_'.length), 'base64').toString('base64url');
    expect(await webhooks.getPublicKeys('agency-a')).toEqual({
      keys: [{ kty: 'OKP', crv: 'Ed25519', x, kid: signingPublicKeys[0]?.kid, use: 'sig', alg: 'EdDSA' }],
    });
  });

  it('a rotation keeps a disabled configuration disabled', async () => {
    await put({ signatureScheme: 'standard', asymmetricSignatures: true });
    const record = await stored();
    await webhooks.store.disableConfig('agency-a', {
      reason: 'receiver_gone',
      now,
      expectedUpdatedAt: record?.updatedAt ?? 0,
    });
    await webhooks.rotateSigningKey('agency-a');
    expect(await stored()).toMatchObject({ enabled: false, disabledReason: 'receiver_gone' });
  });
});

describe('the signingKeyOverlapMs option', () => {
  it.each([-1, 1.5, 604_800_001, Number.NaN])('refuses %s with InvalidOptionError', (value) => {
    expect(() =>
      createWebhookService({
        store: createMemoryStore(),
        queue: createMemoryQueue(),
        signingKeyOverlapMs: value,
      }),
    ).toThrow(InvalidOptionError);
  });

  it('takes 0: a rotation then retires the old key at once', async () => {
    webhooks = createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      urlPolicy: { resolve },
      clock: () => now,
      signingKeyOverlapMs: 0,
    });
    await put({ signatureScheme: 'standard', asymmetricSignatures: true });
    expect((await webhooks.rotateSigningKey('agency-a')).signingPublicKeys).toHaveLength(1);
  });
});
