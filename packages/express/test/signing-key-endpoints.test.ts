import {
  publicKeyToJwk,
  signStandardWebhookAsymmetric,
  toStandardSecret,
  verifyStandardWebhookSignature,
} from '@svc/webhooks-verify';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { BASE, configBody, createHarness, type Harness, TOKENS } from './router-harness';

const T0 = 1_800_000_000_000;
const DAY = 86_400_000;

let now: number;
let h: Harness;
beforeEach(() => {
  now = T0;
  h = createHarness({ service: { clock: () => now } });
});
checkResponsesAgainstDocument(() => h);

function putConfig(body: unknown, token: string = TOKENS.owner) {
  return request(h.app)
    .put(`${BASE}/config`)
    .set('authorization', token)
    .send(body as object);
}

function rotateSigningKey(body?: unknown, token: string = TOKENS.owner) {
  const req = request(h.app).post(`${BASE}/config/rotate-signing-key`).set('authorization', token);
  return body === undefined ? req : req.send(body as object);
}

/** Creates agency-1's configuration under the standard scheme with asymmetric signatures on. */
async function createAsymmetric(): Promise<{ kid: string; publicKey: string }> {
  const res = await putConfig(configBody({ signatureScheme: 'standard', asymmetricSignatures: true }));
  expect(res.status).toBe(201);
  return res.body.signingPublicKeys[0];
}

describe('PUT /config with the signature fields', () => {
  it.each(['standard', 'both'] as const)(
    'creates under %s: 201 with the secret in full and its whsec_ form beside it',
    async (signatureScheme) => {
      const res = await putConfig(configBody({ signatureScheme }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ signatureScheme, asymmetricSignatures: false, signingPublicKeys: [] });
      expect(res.body.signingSecret).toMatch(/^[0-9a-f]{64}$/);
      expect(res.body.standardSigningSecret).toBe(toStandardSecret(res.body.signingSecret));
    },
  );

  it('creates under service (or without the field): no standardSigningSecret', async () => {
    const res = await putConfig(configBody({ signatureScheme: 'service' }));
    expect(res.status).toBe(201);
    expect(res.body.signatureScheme).toBe('service');
    expect(res.body).not.toHaveProperty('standardSigningSecret');
  });

  it('updates the scheme: 200, secret masked, no whsec_ form, the stored secret unchanged', async () => {
    const created = await putConfig(configBody());
    const res = await putConfig(configBody({ signatureScheme: 'both' }), TOKENS.admin);
    expect(res.status).toBe(200);
    expect(res.body.signatureScheme).toBe('both');
    expect(res.body.signingSecret).toBe(`service_whsec_********${created.body.signingSecret.slice(-4)}`);
    expect(res.body).not.toHaveProperty('standardSigningSecret');
    const stored = await h.service.store.getConfig('agency-1');
    expect(stored).toMatchObject({ signatureScheme: 'both', signingSecret: created.body.signingSecret });
  });

  it('keeps the scheme when a later PUT leaves it out', async () => {
    await putConfig(configBody({ signatureScheme: 'standard' }));
    const res = await putConfig(configBody({ enabled: false }));
    expect(res.body).toMatchObject({ signatureScheme: 'standard', enabled: false });
  });

  it('asymmetricSignatures: true makes one active key, published in the answer', async () => {
    const res = await putConfig(configBody({ signatureScheme: 'standard', asymmetricSignatures: true }));
    expect(res.status).toBe(201);
    expect(res.body.asymmetricSignatures).toBe(true);
    expect(res.body.signingPublicKeys).toEqual([
      {
        kid: expect.stringMatching(/^whkey_/),
        publicKey: expect.stringMatching(/^whpk_/),
        createdAt: T0,
        expiresAt: null,
      },
    ]);
    expect(JSON.stringify(res.body)).not.toContain('whsk_');
  });

  const refused: [string, Record<string, unknown>, string][] = [
    ['an unknown scheme', { signatureScheme: 'svix' }, 'signatureScheme'],
    ['a scheme in the wrong case', { signatureScheme: 'Standard' }, 'signatureScheme'],
    ['a scheme that is not a string', { signatureScheme: 1 }, 'signatureScheme'],
    ['a null scheme', { signatureScheme: null }, 'signatureScheme'],
    ['asymmetricSignatures not a boolean', { asymmetricSignatures: 'yes' }, 'asymmetricSignatures'],
    ['asymmetricSignatures under the service scheme', { asymmetricSignatures: true }, 'asymmetricSignatures'],
    [
      'asymmetricSignatures with the scheme set to service',
      { signatureScheme: 'service', asymmetricSignatures: true },
      'asymmetricSignatures',
    ],
  ];

  it.each(refused)(
    '%s → 400 validation_failed naming the field, nothing changed',
    async (_name, fields, path) => {
      await putConfig(configBody());
      const before = await h.snapshot();
      const res = await putConfig(configBody(fields));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(path);
      expect(await h.snapshot()).toBe(before);
    },
  );

  it('a bad scheme on the first PUT creates no configuration', async () => {
    const res = await putConfig(configBody({ signatureScheme: 'svix' }));
    expect(res.status).toBe(400);
    expect(await h.service.store.getConfig('agency-1')).toBeNull();
  });
});

describe('POST /config/rotate-signing-key', () => {
  it('makes a new active key; the previous one keeps signing for the overlap asked for', async () => {
    const first = await createAsymmetric();
    now = T0 + 1000;
    const res = await rotateSigningKey({ overlapMs: 3_600_000 });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body)).toEqual(['signingPublicKeys']);
    const [active, retiring] = res.body.signingPublicKeys;
    expect(res.body.signingPublicKeys).toHaveLength(2);
    expect(active).toEqual({
      kid: expect.stringMatching(/^whkey_/),
      publicKey: expect.stringMatching(/^whpk_/),
      createdAt: T0 + 1000,
      expiresAt: null,
    });
    expect(active.kid).not.toBe(first.kid);
    expect(retiring).toEqual({ ...first, expiresAt: T0 + 1000 + 3_600_000 });
    const read = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.admin);
    expect(read.body.signingPublicKeys).toEqual(res.body.signingPublicKeys);
  });

  it('without a body, the previous key overlaps for the service’s default, one day', async () => {
    await createAsymmetric();
    const res = await rotateSigningKey();
    expect(res.status).toBe(200);
    expect(res.body.signingPublicKeys[1].expiresAt).toBe(T0 + DAY);
  });

  it('an empty JSON object is the same as no body', async () => {
    await createAsymmetric();
    const res = await rotateSigningKey({});
    expect(res.status).toBe(200);
    expect(res.body.signingPublicKeys[1].expiresAt).toBe(T0 + DAY);
  });

  it('overlapMs 0 stops the previous key at once', async () => {
    const first = await createAsymmetric();
    const res = await rotateSigningKey({ overlapMs: 0 });
    expect(res.status).toBe(200);
    expect(res.body.signingPublicKeys.map((key: { kid: string }) => key.kid)).not.toContain(first.kid);
  });

  it('leaves the signing secret and the other fields alone', async () => {
    await createAsymmetric();
    const before = await h.service.store.getConfig('agency-1');
    await rotateSigningKey({ overlapMs: 1000 });
    const after = await h.service.store.getConfig('agency-1');
    expect(after).toMatchObject({
      signingSecret: before?.signingSecret,
      webhookUrl: before?.webhookUrl,
      signatureScheme: 'standard',
    });
  });

  const badBodies: [string, unknown][] = [
    ['a negative overlap', { overlapMs: -1 }],
    ['an overlap over 7 days', { overlapMs: 604_800_001 }],
    ['a fractional overlap', { overlapMs: 1.5 }],
    ['an overlap as a string', { overlapMs: '1000' }],
    ['a null overlap', { overlapMs: null }],
    ['an unknown field', { overlap: 1000 }],
    ['an array', [1000]],
  ];

  it.each(badBodies)('%s → 400 validation_failed, nothing changed', async (_name, body) => {
    await createAsymmetric();
    const before = await h.snapshot();
    const res = await rotateSigningKey(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(await h.snapshot()).toBe(before);
  });

  it('malformed JSON → 400 invalid_json, nothing changed', async () => {
    await createAsymmetric();
    const before = await h.snapshot();
    const res = await request(h.app)
      .post(`${BASE}/config/rotate-signing-key`)
      .set('authorization', TOKENS.owner)
      .set('content-type', 'application/json')
      .send('{"overlapMs": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    expect(await h.snapshot()).toBe(before);
  });

  it('a text body → 415 unsupported_media_type, nothing changed', async () => {
    await createAsymmetric();
    const before = await h.snapshot();
    const res = await request(h.app)
      .post(`${BASE}/config/rotate-signing-key`)
      .set('authorization', TOKENS.owner)
      .set('content-type', 'text/plain')
      .send('overlapMs=1000');
    expect(res.status).toBe(415);
    expect(await h.snapshot()).toBe(before);
  });

  it('an agent-role token → 403 forbidden, nothing changed', async () => {
    await createAsymmetric();
    const before = await h.snapshot();
    const res = await rotateSigningKey({ overlapMs: 1000 }, TOKENS.agent);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(await h.snapshot()).toBe(before);
  });

  it('with asymmetric signatures off → 400 validation_failed, nothing changed', async () => {
    await putConfig(configBody({ signatureScheme: 'standard' }));
    const before = await h.snapshot();
    const res = await rotateSigningKey();
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(await h.snapshot()).toBe(before);
  });

  it('404 config_not_found without a configuration, also when another agency has one', async () => {
    await createAsymmetric();
    const before = await h.snapshot();
    const res = await rotateSigningKey(undefined, TOKENS.otherOwner);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('config_not_found');
    expect(await h.snapshot()).toBe(before);
  });
});

describe('GET /public-keys/:agencyId', () => {
  function publicKeys(agencyId = 'agency-1') {
    return request(h.app).get(`${BASE}/public-keys/${encodeURIComponent(agencyId)}`);
  }

  it('answers the JWK Set without a token, cacheable for five minutes', async () => {
    const key = await createAsymmetric();
    const res = await publicKeys();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body).toEqual({ keys: [publicKeyToJwk(key.publicKey, key.kid)] });
    expect(res.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
  });

  it('never calls authenticate, and ignores any authorization header', async () => {
    const tokens: string[] = [];
    h = createHarness({
      service: { clock: () => now },
      router: {
        authenticate: (token) => {
          tokens.push(token);
          return null;
        },
      },
    });
    await h.service.putConfig(
      'agency-1',
      configBody({ signatureScheme: 'both', asymmetricSignatures: true }),
    );
    expect((await publicKeys()).status).toBe(200);
    expect((await publicKeys().set('authorization', 'tok-nobody')).status).toBe(200);
    expect(tokens).toEqual([]);
  });

  it('lets only itself through without a token: the other endpoints still answer 401', async () => {
    await createAsymmetric();
    const config = await request(h.app).get(`${BASE}/config`);
    expect(config.status).toBe(401);
    const rotate = await request(h.app).post(`${BASE}/config/rotate-signing-key`);
    expect(rotate.status).toBe(401);
    const sibling = await request(h.app).get(`${BASE}/public-keys`);
    expect(sibling.status).toBe(404);
    expect(sibling.body.error.code).toBe('not_found');
  });

  it('lists the retiring key after the active one until it expires, then the active one only', async () => {
    const first = await createAsymmetric();
    const rotated = await rotateSigningKey({ overlapMs: 60_000 });
    const [active] = rotated.body.signingPublicKeys;
    expect((await publicKeys()).body.keys.map((key: { kid: string }) => key.kid)).toEqual([
      active.kid,
      first.kid,
    ]);
    now = T0 + 60_001;
    expect((await publicKeys()).body.keys.map((key: { kid: string }) => key.kid)).toEqual([active.kid]);
  });

  it('is what a receiver verifies a v1a signature with', async () => {
    await createAsymmetric();
    const record = await h.service.store.getConfig('agency-1');
    const privateKey = record?.signingKeys[0]?.privateKey as string;
    const rawBody = '{"eventType":"webhook_test"}';
    const seconds = Math.floor(T0 / 1000);
    const headers = {
      'webhook-id': 'whdel_1',
      'webhook-timestamp': String(seconds),
      'webhook-signature': signStandardWebhookAsymmetric(rawBody, privateKey, 'whdel_1', seconds),
    };
    const jwks = (await publicKeys()).body;
    expect(verifyStandardWebhookSignature(rawBody, headers, { keys: jwks.keys }, { now: T0 })).toMatchObject({
      id: 'whdel_1',
    });
  });

  it('answers { keys: [] } when asymmetric signatures are off', async () => {
    await putConfig(configBody({ signatureScheme: 'standard' }));
    const res = await publicKeys();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ keys: [] });
  });

  it('answers a JSON 404 config_not_found, not cached, for an agency without a configuration', async () => {
    await createAsymmetric();
    const res = await publicKeys('agency-2');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.error.code).toBe('config_not_found');
  });

  it('reads the agency from the decoded path', async () => {
    await h.service.putConfig('agency 1/x', configBody());
    const res = await publicKeys('agency 1/x');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ keys: [] });
  });

  it('answers 405 to another method, without a token', async () => {
    const res = await request(h.app).post(`${BASE}/public-keys/agency-1`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('is left out with publicKeys: false: 404 not_found like any unknown path', async () => {
    h = createHarness({ service: { clock: () => now }, router: { publicKeys: false } });
    await createAsymmetric();
    const res = await publicKeys();
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.headers['cache-control']).toBe('no-store');
    // The keys are still managed through the API.
    expect((await rotateSigningKey({ overlapMs: 0 })).status).toBe(200);
  });
});
