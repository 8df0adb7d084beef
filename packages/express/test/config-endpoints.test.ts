import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import {
  BASE,
  configBody,
  createHarness,
  type Harness,
  PRIVATE_URL,
  PUBLIC_URL,
  TOKENS,
} from './router-harness';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
checkResponsesAgainstDocument(() => h);

const CONFIG_KEYS = [
  'asymmetricSignatures',
  'enabled',
  'id',
  'signatureScheme',
  'signingPublicKeys',
  'signingSecret',
  'subscribedEventTypes',
  'webhookUrl',
];

function putConfig(body: unknown, token: string = TOKENS.owner) {
  return request(h.app)
    .put(`${BASE}/config`)
    .set('authorization', token)
    .send(body as object);
}

async function createConfig(): Promise<{ id: string; signingSecret: string }> {
  const res = await putConfig(configBody());
  expect(res.status).toBe(201);
  return res.body;
}

describe('PUT /config', () => {
  it('creates the configuration: 201 with the five fields, the signature fields and the full secret', async () => {
    const res = await putConfig(configBody());
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(CONFIG_KEYS);
    expect(res.body).toMatchObject({
      webhookUrl: PUBLIC_URL,
      enabled: true,
      subscribedEventTypes: ['job_created', 'job_cancelled'],
      signatureScheme: 'service',
      asymmetricSignatures: false,
      signingPublicKeys: [],
    });
    expect(res.body.signingSecret).toMatch(/^[0-9a-f]{64}$/);
  });

  it('updates it: 200, same id, secret masked and unchanged, duplicates removed', async () => {
    const created = await createConfig();
    const res = await putConfig(
      configBody({
        webhookUrl: 'https://other.example.test/in',
        enabled: false,
        subscribedEventTypes: ['job_created', 'job_created'],
      }),
      `Bearer ${TOKENS.admin}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: created.id,
      webhookUrl: 'https://other.example.test/in',
      signingSecret: `service_whsec_********${created.signingSecret.slice(-4)}`,
      enabled: false,
      subscribedEventTypes: ['job_created'],
      signatureScheme: 'service',
      asymmetricSignatures: false,
      signingPublicKeys: [],
    });
    expect((await h.service.store.getConfig('agency-1'))?.signingSecret).toBe(created.signingSecret);
  });

  it('writes only the caller’s agency', async () => {
    await createConfig();
    const other = await putConfig(
      configBody({ webhookUrl: 'https://other.example.test/b' }),
      TOKENS.otherOwner,
    );
    expect(other.status).toBe(201);
    expect((await h.service.store.getConfig('agency-1'))?.webhookUrl).toBe(PUBLIC_URL);
    expect((await h.service.store.getConfig('agency-2'))?.webhookUrl).toBe('https://other.example.test/b');
  });

  const invalidBodies: [string, unknown, string, string][] = [
    ['webhookUrl missing', { enabled: true, subscribedEventTypes: [] }, 'validation_failed', 'webhookUrl'],
    ['enabled missing', { webhookUrl: PUBLIC_URL, subscribedEventTypes: [] }, 'validation_failed', 'enabled'],
    [
      'subscribedEventTypes missing',
      { webhookUrl: PUBLIC_URL, enabled: true },
      'validation_failed',
      'subscribedEventTypes',
    ],
    ['webhookUrl not a string', configBody({ webhookUrl: 42 }), 'validation_failed', 'webhookUrl'],
    ['webhookUrl empty', configBody({ webhookUrl: '' }), 'validation_failed', 'webhookUrl'],
    [
      'webhookUrl over 2048 characters',
      configBody({ webhookUrl: `https://hooks.example.test/${'a'.repeat(2100)}` }),
      'validation_failed',
      'webhookUrl',
    ],
    ['enabled not a boolean', configBody({ enabled: 'yes' }), 'validation_failed', 'enabled'],
    [
      'subscribedEventTypes not an array',
      configBody({ subscribedEventTypes: 'job_created' }),
      'validation_failed',
      'subscribedEventTypes',
    ],
    [
      'an event type not a string',
      configBody({ subscribedEventTypes: ['job_created', 7] }),
      'validation_failed',
      'subscribedEventTypes.1',
    ],
    ['an unknown field', configBody({ secret: 'mine' }), 'validation_failed', ''],
    ['an array body', [], 'validation_failed', ''],
  ];

  it.each(invalidBodies)('%s → 400 %s at "%s", nothing changed', async (_name, body, code, path) => {
    await createConfig();
    const before = await h.snapshot();
    const res = await putConfig(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(path);
    expect(await h.snapshot()).toBe(before);
  });

  const refusedUrls: [string, string, string][] = [
    ['http', 'http://hooks.example.test/webhooks', 'not_https'],
    ['not a URL', 'hooks.example.test/webhooks', 'invalid_url'],
    ['a private address', PRIVATE_URL, 'private_address'],
    ['a loopback literal', 'https://127.0.0.1/webhooks', 'private_address'],
    ['an unresolvable host', 'https://nowhere.example.test/webhooks', 'unresolvable_host'],
  ];

  it.each(refusedUrls)(
    '%s URL → 400 invalid_webhook_url (%s), nothing changed',
    async (_name, webhookUrl, reason) => {
      await createConfig();
      const before = await h.snapshot();
      const res = await putConfig(configBody({ webhookUrl }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_webhook_url', details: { reason } });
      expect(await h.snapshot()).toBe(before);
    },
  );

  it('an unknown event type → 400 unknown_event_type, nothing changed', async () => {
    await createConfig();
    const before = await h.snapshot();
    const res = await putConfig(configBody({ subscribedEventTypes: ['job_created', 'job_exploded'] }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'unknown_event_type',
      details: { eventType: 'job_exploded' },
    });
    expect(await h.snapshot()).toBe(before);
  });

  it('a refused first PUT creates no configuration', async () => {
    const res = await putConfig(configBody({ webhookUrl: 'http://hooks.example.test/' }));
    expect(res.status).toBe(400);
    expect(await h.service.store.getConfig('agency-1')).toBeNull();
  });

  it('malformed JSON → 400 invalid_json, nothing changed', async () => {
    await createConfig();
    const before = await h.snapshot();
    const res = await request(h.app)
      .put(`${BASE}/config`)
      .set('authorization', TOKENS.owner)
      .set('content-type', 'application/json')
      .send('{"webhookUrl": "https://hooks.example.test/",');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    expect(await h.snapshot()).toBe(before);
  });

  it('a bare JSON string → 400 invalid_json (an object is expected)', async () => {
    const res = await request(h.app)
      .put(`${BASE}/config`)
      .set('authorization', TOKENS.owner)
      .set('content-type', 'application/json')
      .send('"https://hooks.example.test/"');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['form data', 'application/x-www-form-urlencoded'],
  ])('a %s body → 415 unsupported_media_type, nothing changed', async (_name, contentType) => {
    await createConfig();
    const before = await h.snapshot();
    const res = await request(h.app)
      .put(`${BASE}/config`)
      .set('authorization', TOKENS.owner)
      .set('content-type', contentType)
      .send(JSON.stringify(configBody({ enabled: false })));
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'unsupported_media_type', details: { contentType } });
    expect(await h.snapshot()).toBe(before);
  });

  it('no body and no content type → 415', async () => {
    const res = await request(h.app).put(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('a non-UTF-8 charset → 415', async () => {
    const res = await request(h.app)
      .put(`${BASE}/config`)
      .set('authorization', TOKENS.owner)
      .set('content-type', 'application/json; charset=latin1')
      .send(JSON.stringify(configBody()));
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('a body over the limit → 413 payload_too_large, nothing changed', async () => {
    await createConfig();
    const before = await h.snapshot();
    const res = await putConfig(
      configBody({ subscribedEventTypes: Array.from({ length: 6000 }, () => 'job_created_padding') }),
    );
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'payload_too_large', details: { limitBytes: 102_400 } });
    expect(await h.snapshot()).toBe(before);
  });

  it('honours a custom bodyLimit', async () => {
    h = createHarness({ router: { bodyLimit: 64 } });
    const res = await putConfig(configBody());
    expect(res.status).toBe(413);
    expect(res.body.error.details.limitBytes).toBe(64);
  });
});

describe('GET /config', () => {
  it('answers the configuration with the secret masked', async () => {
    const created = await createConfig();
    const res = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created,
      signingSecret: `service_whsec_********${created.signingSecret.slice(-4)}`,
    });
  });

  it('404 config_not_found before one exists, also when another agency has one', async () => {
    await createConfig();
    const res = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.otherOwner);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('config_not_found');
  });
});

describe('POST /config/rotate-secret', () => {
  it('answers a new full secret; reads then show the new one masked', async () => {
    const created = await createConfig();
    const res = await request(h.app).post(`${BASE}/config/rotate-secret`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['signingSecret']);
    expect(res.body.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.signingSecret).not.toBe(created.signingSecret);
    expect((await h.service.store.getConfig('agency-1'))?.signingSecret).toBe(res.body.signingSecret);
    const read = await request(h.app).get(`${BASE}/config`).set('authorization', TOKENS.owner);
    expect(read.body.signingSecret).toBe(`service_whsec_********${res.body.signingSecret.slice(-4)}`);
  });

  it('404 config_not_found without a configuration; another agency’s secret is untouched', async () => {
    await createConfig();
    const before = await h.snapshot();
    const res = await request(h.app)
      .post(`${BASE}/config/rotate-secret`)
      .set('authorization', TOKENS.otherOwner);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('config_not_found');
    expect(await h.snapshot()).toBe(before);
  });

  it('ignores a request body (the endpoint takes none)', async () => {
    await createConfig();
    const res = await request(h.app)
      .post(`${BASE}/config/rotate-secret`)
      .set('authorization', TOKENS.owner)
      .set('content-type', 'application/json')
      .send('{not json');
    expect(res.status).toBe(200);
  });
});

describe('POST /config/test without a configuration', () => {
  it('404 config_not_found', async () => {
    const res = await request(h.app).post(`${BASE}/config/test`).set('authorization', TOKENS.owner);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('config_not_found');
  });
});
