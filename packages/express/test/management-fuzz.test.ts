import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponsesAgainstDocument } from './documented-responses';
import { listen, type RawRequest, type RawResponse, type RawServer } from './raw-request';
import { BASE, createHarness, type Harness, TOKENS } from './router-harness';

/*
 * Properties of the management API under arbitrary input: whatever the body,
 * headers, method, path or query string, the answer is JSON (never an HTML
 * page), never a 5xx, never carries a stack trace, and a refused request
 * changes nothing. The generators lean towards what a parser could trip on:
 * bytes that are almost UTF-8 or almost JSON, charsets and encodings that lie,
 * repeated headers, query keys and values that are almost numbers.
 */

const RUNS = 150;

let h: Harness;
let server: RawServer;
let failedId: string;

beforeAll(async () => {
  h = createHarness();
  // Written straight to the store: 192.0.2.1 (documentation range) is refused again at send
  // time, so a test send that a generated body happens to ask for never leaves the machine.
  await h.service.store.upsertConfig({
    agencyId: 'agency-1',
    webhookUrl: 'https://192.0.2.1/webhooks',
    enabled: true,
    subscribedEventTypes: ['job_created', 'job_cancelled'],
    now: Date.now(),
    newId: 'cfg-1',
    newSigningSecret: 'f'.repeat(64),
  });
  failedId = (await h.seedDelivery({ agencyId: 'agency-1', status: 'failed', attempt: 5, nextRetryAt: null }))
    .id;
  await h.seedDelivery({ agencyId: 'agency-1', status: 'pending' });
  server = await listen(h.app);
});
afterAll(async () => {
  await server.close();
});
checkResponsesAgainstDocument(() => h);

/** Text Node's HTTP client accepts in a header value: tab, printable ASCII and bytes 0x80–0xFF. */
const headerText = (maxLength = 40) =>
  fc.string({
    unit: fc
      .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09), fc.integer({ min: 0x80, max: 0xff }))
      .map((code) => String.fromCharCode(code)),
    maxLength,
  });

const token = fc.oneof(
  fc.constantFrom(TOKENS.owner, `Bearer ${TOKENS.owner}`, TOKENS.admin, TOKENS.agent, TOKENS.inactiveOwner),
  headerText(),
);
const authorization = fc.oneof(
  { weight: 4, arbitrary: token.map((value) => [value]) },
  { weight: 1, arbitrary: fc.constant([] as string[]) },
  { weight: 2, arbitrary: fc.array(token, { minLength: 2, maxLength: 3 }) },
);

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=UTF8',
    'application/json; charset=utf-16le',
    'application/json; charset=latin1',
    'application/json; charset="utf-8',
    'application/json; charset=utf-8; charset=utf-16',
    'application/json;;',
    'application/merge-patch+json',
    'text/plain',
    'text/html',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '*/*',
    '',
  ),
  headerText(),
);

const configLike = fc.record(
  {
    webhookUrl: fc.oneof(
      fc.webUrl({ validSchemes: ['https', 'http'] }),
      fc.constantFrom(
        'https://hooks.example.test:0/',
        'https://hooks.example.test\\@x/',
        'https://[64:ff9b:1::1]/',
      ),
      fc.string(),
    ),
    enabled: fc.oneof(fc.boolean(), fc.jsonValue()),
    subscribedEventTypes: fc.oneof(
      fc.array(fc.oneof(fc.constantFrom('job_created', 'job_cancelled', 'webhook_test'), fc.string())),
      fc.jsonValue(),
    ),
    eventType: fc.oneof(fc.constantFrom('job_created', 'webhook_test', '__proto__'), fc.string()),
    __proto__: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

/** Body bytes: random bytes, broken or valid JSON text, UTF-16, almost-valid configurations. */
const bodyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.json().map((text) => Buffer.from(text)),
  fc.string({ unit: 'binary', maxLength: 100 }).map((text) => Buffer.from(text)),
  configLike.map((value) => Buffer.from(JSON.stringify(value))),
  configLike.map((value) => Buffer.from(JSON.stringify(value), 'utf16le')),
  fc.tuple(configLike, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 3 })).map(([value, at, bytes]) => {
    const text = Buffer.from(JSON.stringify(value));
    const cut = at % (text.length + 1);
    return Buffer.concat([text.subarray(0, cut), Buffer.from(bytes), text.subarray(cut)]);
  }),
);

/** The body as sent, with the Content-Encoding that goes with it (which may lie). */
const encodedBody = fc
  .tuple(bodyBytes, fc.constantFrom('none', 'gzip', 'deflate', 'gzip-lie', 'br-lie', 'unknown'))
  .map(([bytes, encoding]): { body: Buffer; headers: Record<string, string> } => {
    switch (encoding) {
      case 'gzip':
        return { body: gzipSync(bytes), headers: { 'content-encoding': 'gzip' } };
      case 'deflate':
        return { body: deflateSync(bytes), headers: { 'content-encoding': 'deflate' } };
      case 'gzip-lie':
        return { body: bytes, headers: { 'content-encoding': 'gzip' } };
      case 'br-lie':
        return { body: bytes, headers: { 'content-encoding': 'br' } };
      case 'unknown':
        return { body: bytes, headers: { 'content-encoding': 'x-squash' } };
      default:
        return { body: bytes, headers: {} };
    }
  });

/** A query string made of keys and values that are almost what the API reads. */
const queryPart = fc.oneof(
  fc.constantFrom(
    'limit',
    'status',
    'cursor',
    'limit[]',
    'limit[a]',
    '__proto__',
    'constructor',
    '%zz',
    '',
    '&',
    '=',
  ),
  fc.constantFrom(
    '1',
    '20',
    '100',
    '101',
    '0',
    '-1',
    '1e1',
    '0x10',
    '+5',
    '%2B5',
    '10.0',
    '%31',
    'failed',
    'FAILED',
    '%00',
    '%E0%A4%A',
  ),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.integer().map(String),
);
const queryString = fc
  .array(fc.tuple(queryPart, fc.constantFrom('=', '', '=='), queryPart), { maxLength: 4 })
  .map((pairs) => pairs.map(([key, eq, value]) => `${key}${eq}${value}`).join('&'));

const route: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['PUT', '/config'],
    ['GET', '/config'],
    ['POST', '/config/rotate-secret'],
    ['POST', '/config/test'],
    ['GET', '/deliveries'],
    ['GET', '/deliveries/:failed'],
    ['POST', '/deliveries/:failed/replay'],
    // Ids that are not valid percent-encoding, with the methods their paths document. (With
    // another method Express fails to decode the id before it looks at the method: 400, not 405.)
    ['GET', '/deliveries/%zz'],
    ['GET', '/deliveries/%E0%A4%A'],
    ['POST', '/deliveries/%ff%fe/replay'],
  ),
  fc.tuple(
    fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'),
    fc.oneof(
      fc.constantFrom(
        '/config/',
        '/CONFIG',
        '/deliveries/..',
        '//config',
        '/deliveries/%2F',
        '/nothing-here',
      ),
      fc.string({ maxLength: 20 }).map((id) => `/deliveries/${encodeURIComponent(id)}`),
      fc.string({ maxLength: 20 }).map((id) => `/deliveries/${encodeURIComponent(id)}/replay`),
    ),
  ),
);

/** Other request headers, from a set that proxies, clients and attackers send. */
const extraHeaders = fc.dictionary(
  fc.constantFrom(
    'accept',
    'accept-charset',
    'x-http-method-override',
    'x-forwarded-for',
    'x-forwarded-proto',
    'cookie',
    'if-none-match',
    'range',
  ),
  headerText(),
  { maxKeys: 3 },
);

const request = fc
  .record({
    route,
    query: queryString,
    authorization,
    contentType,
    encodedBody,
    extraHeaders,
    withBody: fc.boolean(),
  })
  .map(
    ({
      route: [method, template],
      query,
      authorization,
      contentType,
      encodedBody,
      extraHeaders,
      withBody,
    }): RawRequest => {
      const path = template.replace(':failed', () => failedId);
      const headers: Record<string, string | string[]> = { ...extraHeaders };
      if (authorization.length > 0) headers.authorization = authorization;
      if (withBody || method === 'PUT') {
        headers['content-type'] = contentType;
        Object.assign(headers, encodedBody.headers);
      }
      return {
        method,
        path: `${BASE}${path}${query === '' ? '' : `?${query}`}`,
        headers,
        ...(withBody || method === 'PUT' ? { body: encodedBody.body } : {}),
      };
    },
  );

const STACK_TRACE = /\n\s+at\s|\bat\s.+:\d+:\d+\)?$|node_modules|\/work\//m;

/** The answer's own properties: JSON, not 5xx, no stack, and an error in the API's shape when refused. */
function expectWellFormed(res: RawResponse): void {
  expect(res.status).toBeLessThan(500);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.text).not.toMatch(/<html|<!doctype|<pre>/i);
  expect(res.text).not.toMatch(STACK_TRACE);
  expect(res.json).toBeDefined();
  if (res.status >= 400) {
    expect(res.json).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    expect(Object.keys((res.json as { error: object }).error).sort()).toEqual(
      expect.arrayContaining(['code', 'message']),
    );
  }
}

/** Sends `raw`; a refusal must leave the store and the queue exactly as they were. */
async function sendAndCheck(raw: RawRequest): Promise<void> {
  const before = await h.snapshot();
  const reportedBefore = h.reported.length;
  const res = await server.send(raw);
  // This request's own unexpected errors (onError), so that a shrunk counterexample is the real one.
  expect(h.reported.slice(reportedBefore)).toEqual([]);
  expectWellFormed(res);
  if (res.status >= 400 || raw.method === 'GET') expect(await h.snapshot()).toBe(before);
}

describe('the management API under arbitrary input', () => {
  it('any method, path, headers, body and query: JSON, below 500, no stack trace; a refusal changes nothing', async () => {
    await fc.assert(fc.asyncProperty(request, sendAndCheck), { numRuns: RUNS * 2 });
  }, 120_000);

  it('arbitrary bodies to PUT /config and POST /config/test with an owner token', async () => {
    const target = fc.constantFrom(['PUT', '/config'], ['POST', '/config/test']);
    await fc.assert(
      fc.asyncProperty(target, contentType, encodedBody, async ([method, path], type, { body, headers }) => {
        await sendAndCheck({
          method,
          path: `${BASE}${path}`,
          headers: { authorization: TOKENS.owner, 'content-type': type, ...headers },
          body,
        });
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('arbitrary query strings to GET /deliveries with an owner token never change anything', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, async (query) => {
        await sendAndCheck({
          method: 'GET',
          path: `${BASE}/deliveries?${query}`,
          headers: { authorization: TOKENS.owner },
        });
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('arbitrary authorization headers, repeated or not, never authenticate twice or answer 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(authorization, async (values) => {
        const raw: RawRequest = { method: 'GET', path: `${BASE}/config`, headers: { authorization: values } };
        if (values.length === 0) delete raw.headers?.authorization;
        const res = await server.send(raw);
        expectWellFormed(res);
        if (values.length > 1) expect(res.status).toBe(400);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
