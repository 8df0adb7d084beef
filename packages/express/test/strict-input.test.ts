import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { listen, type RawRequest, type RawResponse, type RawServer } from './raw-request';
import { BASE, configBody, createHarness, type Harness, TOKENS } from './router-harness';

/*
 * The management API reads exactly what was sent or refuses it: bodies are
 * UTF-8 JSON, one agent token per request, numbers in plain decimal digits.
 * Every refusal is a JSON error and changes nothing. Requests go over a real
 * socket with the bytes and headers each case needs.
 */

let h: Harness;
let server: RawServer;
let failedId: string;

beforeEach(async () => {
  h = createHarness();
  await h.service.putConfig('agency-1', configBody({ enabled: false }));
  failedId = (await h.seedDelivery({ agencyId: 'agency-1', status: 'failed', attempt: 5, nextRetryAt: null }))
    .id;
  server = await listen(h.app);
});
afterEach(async () => {
  await server.close();
});
checkResponsesAgainstDocument(() => h);

const UPDATE = JSON.stringify(configBody({ enabled: true }));

function putConfig(body: Buffer, headers: Record<string, string | string[]> = {}) {
  return server.send({
    method: 'PUT',
    path: `${BASE}/config`,
    headers: { authorization: TOKENS.owner, 'content-type': 'application/json', ...headers },
    body,
  });
}

/** Sends `raw`, expects a JSON refusal with `status` and `code`, and that nothing changed. */
async function expectRefusal(raw: () => Promise<RawResponse>, status: number, code: string) {
  const before = await h.snapshot();
  const res = await raw();
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.json).toMatchObject({ error: { code, message: expect.any(String) } });
  expect(await h.snapshot()).toBe(before);
  return res;
}

describe('request bodies are UTF-8 JSON', () => {
  it.each([
    ['utf-16le, with UTF-16 bytes', 'application/json; charset=utf-16le', Buffer.from(UPDATE, 'utf16le')],
    ['utf-16', 'application/json; charset=utf-16', Buffer.from(UPDATE, 'utf16le')],
    ['utf-32', 'application/json; charset=utf-32', Buffer.from(UPDATE)],
    ['latin1', 'application/json; charset=latin1', Buffer.from(UPDATE, 'latin1')],
    ['windows-1252', 'application/json; charset=windows-1252', Buffer.from(UPDATE)],
    ['quoted utf-16', 'application/json; charset="utf-16"', Buffer.from(UPDATE, 'utf16le')],
    ['utf-8 and then latin1', 'application/json; charset=utf-8; charset=latin1', Buffer.from(UPDATE)],
    ['an empty charset', 'application/json; charset=', Buffer.from(UPDATE)],
  ])('charset %s → 415 unsupported_media_type, nothing changed', async (_name, contentType, body) => {
    await expectRefusal(
      () => putConfig(body, { 'content-type': contentType }),
      415,
      'unsupported_media_type',
    );
  });

  it.each([
    ['no charset', 'application/json'],
    ['utf-8', 'application/json; charset=utf-8'],
    ['UTF-8', 'application/json; charset=UTF-8'],
    ['the utf8 alias', 'application/json;charset=utf8'],
    ['quoted "utf-8"', 'application/json; charset="utf-8"'],
  ])('%s is accepted', async (_name, contentType) => {
    const res = await putConfig(Buffer.from(UPDATE), { 'content-type': contentType });
    expect(res.status).toBe(200);
    expect((await h.service.getConfig('agency-1')).enabled).toBe(true);
  });

  const ascii = (text: string) => Buffer.from(text, 'latin1');
  it.each([
    [
      'a lone 0xFF byte',
      Buffer.concat([ascii('{"webhookUrl":"https://hooks.example.test/'), Buffer.from([0xff]), ascii('"}')]),
    ],
    [
      'a truncated two-byte character',
      Buffer.concat([ascii('{"enabled":"'), Buffer.from([0xc3]), ascii('"}')]),
    ],
    ['an overlong "/"', Buffer.concat([ascii('{"a":"'), Buffer.from([0xc0, 0xaf]), ascii('"}')])],
    [
      'a UTF-16 surrogate written as UTF-8',
      Buffer.concat([ascii('{"a":"'), Buffer.from([0xed, 0xa0, 0x80]), ascii('"}')]),
    ],
    [
      'a code point above U+10FFFF',
      Buffer.concat([ascii('{"a":"'), Buffer.from([0xf4, 0x90, 0x80, 0x80]), ascii('"}')]),
    ],
    ['Latin-1 "é" sent as UTF-8', ascii('{"webhookUrl":"https://hooks.example.test/caf\u00e9"}')],
  ])('%s → 400 invalid_json, never replaced by U+FFFD, nothing changed', async (_name, body) => {
    const res = await expectRefusal(() => putConfig(body), 400, 'invalid_json');
    expect((res.json as { error: { message: string } }).error.message).toMatch(/UTF-8/);
  });

  it('invalid UTF-8 in the optional body of POST /config/test → 400, nothing sent', async () => {
    await expectRefusal(
      () =>
        server.send({
          method: 'POST',
          path: `${BASE}/config/test`,
          headers: { authorization: TOKENS.owner, 'content-type': 'application/json' },
          body: Buffer.concat([ascii('{"eventType":"job_'), Buffer.from([0xfe]), ascii('"}')]),
        }),
      400,
      'invalid_json',
    );
  });

  it('takes multi-byte UTF-8 as sent, and a leading byte order mark', async () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify(configBody({ webhookUrl: 'https://hooks.example.test/café/😀' }))),
    ]);
    const res = await putConfig(body);
    expect(res.status).toBe(200);
    expect((res.json as { webhookUrl: string }).webhookUrl).toBe(
      'https://hooks.example.test/caf%C3%A9/%F0%9F%98%80',
    );
  });

  it('a gzip body is inflated and read as UTF-8 JSON', async () => {
    const res = await putConfig(gzipSync(Buffer.from(UPDATE)), { 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
  });

  it('invalid UTF-8 inside a gzip body → 400 invalid_json', async () => {
    const body = gzipSync(Buffer.concat([ascii('{"a":"'), Buffer.from([0xff]), ascii('"}')]));
    await expectRefusal(() => putConfig(body, { 'content-encoding': 'gzip' }), 400, 'invalid_json');
  });

  it('a body that claims gzip but does not inflate → 400 invalid_request, never a 500', async () => {
    await expectRefusal(
      () => putConfig(Buffer.from(UPDATE), { 'content-encoding': 'gzip' }),
      400,
      'invalid_request',
    );
    expect(h.reported).toEqual([]);
  });

  it('an unknown content encoding → 415', async () => {
    await expectRefusal(
      () => putConfig(Buffer.from(UPDATE), { 'content-encoding': 'compress' }),
      415,
      'unsupported_media_type',
    );
  });
});

describe('one authorization header per request', () => {
  const endpoints: [string, () => string][] = [
    ['PUT', () => '/config'],
    ['GET', () => '/config'],
    ['POST', () => '/config/rotate-secret'],
    ['POST', () => '/config/test'],
    ['GET', () => '/deliveries'],
    ['GET', () => `/deliveries/${failedId}`],
    ['POST', () => `/deliveries/${failedId}/replay`],
  ];
  const pairs: [string, string[]][] = [
    ['two different valid tokens', [TOKENS.owner, TOKENS.otherOwner]],
    ['the same token twice', [TOKENS.owner, TOKENS.owner]],
    ['an invalid token, then a valid one', ['tok-nobody', `Bearer ${TOKENS.owner}`]],
    ['three headers', [TOKENS.owner, TOKENS.admin, TOKENS.owner]],
  ];

  describe.each(endpoints)('%s %s', (method, path) => {
    it.each(pairs)('%s → 400 invalid_request, nothing changed', async (_name, tokens) => {
      const raw: RawRequest = {
        method,
        path: `${BASE}${path()}`,
        headers: { authorization: tokens, 'content-type': 'application/json' },
        ...(method === 'PUT' ? { body: Buffer.from(UPDATE) } : {}),
      };
      const res = await expectRefusal(() => server.send(raw), 400, 'invalid_request');
      expect(res.json).toMatchObject({
        error: { details: { header: 'authorization', count: tokens.length } },
      });
    });
  });

  it('is checked before authenticate runs', async () => {
    const seen: string[] = [];
    h = createHarness({
      router: {
        authenticate: (token) => {
          seen.push(token);
          return null;
        },
      },
    });
    await server.close();
    server = await listen(h.app);
    const res = await server.send({
      method: 'GET',
      path: `${BASE}/config`,
      headers: { authorization: [TOKENS.owner, TOKENS.otherOwner] },
    });
    expect(res.status).toBe(400);
    expect(seen).toEqual([]);
  });
});

describe('numbers in a query are plain decimal digits', () => {
  function list(query: string) {
    return server.send({
      method: 'GET',
      path: `${BASE}/deliveries?${query}`,
      headers: { authorization: TOKENS.owner },
    });
  }

  it.each([
    ['an exponent', '1e1'],
    ['a hex number', '0x10'],
    ['a binary number', '0b1'],
    ['a plus sign', '%2B5'],
    ['a minus zero', '-0'],
    ['a leading space', '%2010'],
    ['a trailing space', '10%20'],
    ['a "+" read as a space', '+10'],
    ['a decimal point', '10.0'],
    ['a digit separator', '1_0'],
    ['Arabic-Indic digits', encodeURIComponent('١٠')],
    ['full-width digits', encodeURIComponent('１０')],
    ['Infinity', 'Infinity'],
    ['nothing', ''],
  ])('limit as %s (%s) → 400 validation_failed at limit, nothing changed', async (_name, limit) => {
    const res = await expectRefusal(() => list(`limit=${limit}`), 400, 'validation_failed');
    const issues = (res.json as { error: { details: { issues: { path: string }[] } } }).error.details.issues;
    expect(issues.map((issue) => issue.path)).toContain('limit');
  });

  it.each([
    ['digits', '10'],
    ['leading zeros', '010'],
    ['percent-encoded digits', '%31%30'],
  ])('limit as %s (%s) is read as a number', async (_name, limit) => {
    const res = await list(`limit=${limit}`);
    expect(res.status).toBe(200);
    expect((res.json as { deliveries: unknown[] }).deliveries).toHaveLength(1);
  });
});
