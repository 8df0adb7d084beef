import { createServer } from 'node:net';
import {
  hostResolver,
  startDnsServer,
  startTestReceiver,
  type TestDnsServer,
  type TestReceiver,
} from '@svc/test-support';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTransport, type Transport, type TransportOptions } from '../src/transport/transport';
import { createUrlPolicy, type UrlPolicy } from '../src/transport/url-policy';

let receiver: TestReceiver;
const transports: Transport[] = [];

/** Private networks are allowed in this file only: the receiver listens on 127.0.0.1. */
const localPolicy = createUrlPolicy({ allowPrivateNetworks: true });

function transportFor(options: TransportOptions & { urlPolicy?: UrlPolicy } = {}): Transport {
  const transport = createTransport({ urlPolicy: localPolicy, tls: { ca: receiver.ca }, ...options });
  transports.push(transport);
  return transport;
}

function delivery(url = receiver.url, headers: Record<string, string> = {}) {
  return { url, body: '{"webhookId":"whdel_1","attempt":1}', headers };
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  receiver = await startTestReceiver();
});

afterAll(async () => {
  await receiver.close();
});

beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 200, body: 'ok' }));
});

afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
});

describe('createTransport().send against a real HTTPS receiver', () => {
  it('a 2xx is ok and the receiver gets the body and headers', async () => {
    const outcome = await transportFor().send(
      delivery(receiver.url, { 'X-Service-Signature': 't=1,v1=ab', 'x-service-webhook-id': 'whdel_1' }),
    );
    expect(outcome).toMatchObject({
      ok: true,
      statusCode: 200,
      errorKind: null,
      errorMessage: null,
      responseExcerpt: 'ok',
      retryAfterMs: null,
    });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    const [request] = receiver.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hooks');
    expect(request?.rawBody).toBe('{"webhookId":"whdel_1","attempt":1}');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['user-agent']).toMatch(/^@svc\/webhooks\/\S+/);
    expect(request?.headers['x-service-signature']).toBe('t=1,v1=ab');
    expect(request?.headers['x-service-webhook-id']).toBe('whdel_1');
  });

  it('keeps the query string, the content type and a custom user agent', async () => {
    const transport = transportFor({ userAgent: 'test-agent/1' });
    await transport.send(delivery(receiver.urlFor('/in?tenant=a'), { 'Content-Type': 'text/plain' }));
    const [request] = receiver.requests;
    expect(request?.path).toBe('/in?tenant=a');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['user-agent']).toBe('test-agent/1');
  });

  // One socket per origin makes reuse deterministic: with more, undici may open a second socket
  // for a request sent in the same tick as the previous one finished.
  it('reuses the keep-alive connection for the next delivery', async () => {
    const transport = transportFor({ connectionsPerOrigin: 1 });
    await transport.send(delivery());
    await transport.send(delivery());
    const [first, second] = receiver.requests;
    expect(second?.remotePort).toBe(first?.remotePort);
  });

  it('a 500 is http_status with the code, a message naming it and the body excerpt', async () => {
    receiver.respond(() => ({ status: 500, body: 'database down' }));
    const outcome = await transportFor().send(delivery());
    expect(outcome).toMatchObject({
      ok: false,
      statusCode: 500,
      errorKind: 'http_status',
      responseExcerpt: 'database down',
      retryAfterMs: null,
    });
    expect(outcome.errorMessage).toBe(
      'The receiver answered HTTP 500; only a 2xx status counts as delivered.',
    );
    expect(outcome.errorDetail).toBeUndefined();
  });

  it('a 503 with Retry-After in seconds gives retryAfterMs', async () => {
    receiver.respond(() => ({ status: 503, headers: { 'retry-after': '120' } }));
    const outcome = await transportFor().send(delivery());
    expect(outcome).toMatchObject({ statusCode: 503, errorKind: 'http_status', retryAfterMs: 120_000 });
  });

  it('a 429 with an HTTP-date Retry-After gives the time until that date', async () => {
    const at = new Date(Date.now() + 3_600_000).toUTCString();
    receiver.respond(() => ({ status: 429, headers: { 'retry-after': at } }));
    const outcome = await transportFor().send(delivery());
    expect(outcome.retryAfterMs).toBeGreaterThan(3_500_000);
    expect(outcome.retryAfterMs).toBeLessThanOrEqual(3_600_000);
  });

  it('ignores Retry-After on other statuses', async () => {
    receiver.respond(() => ({ status: 500, headers: { 'retry-after': '120' } }));
    expect((await transportFor().send(delivery())).retryAfterMs).toBeNull();
  });

  it('a receiver that hangs past timeoutMs gives a timeout', async () => {
    receiver.respond(() => ({ hangMs: 10_000 }));
    const outcome = await transportFor({ timeoutMs: 300 }).send(delivery());
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'timeout' });
    expect(outcome.errorMessage).toMatch(/^The receiver did not answer in time\./);
    expect(outcome.errorDetail).toContain('300 ms');
    expect(receiver.requests).toHaveLength(1);
  });

  it('a body that stalls after the headers: the status decides, the excerpt keeps what came, timeoutMs ends it', async () => {
    receiver.respond(() => ({ status: 503, headers: { 'retry-after': '7' }, stallAfter: 'busy, ' }));
    const started = Date.now();
    const outcome = await transportFor({ timeoutMs: 300 }).send(delivery());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome).toMatchObject({
      ok: false,
      statusCode: 503,
      errorKind: 'http_status',
      responseExcerpt: 'busy, ',
      retryAfterMs: 7_000,
    });
  });

  it('the caller can abort an attempt', async () => {
    receiver.respond(() => ({ hangMs: 10_000 }));
    const controller = new AbortController();
    const pending = transportFor().send(delivery(), { signal: controller.signal });
    await receiver.waitForRequests(1);
    controller.abort();
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'timeout' });
    expect(outcome.errorMessage).toContain('aborted');
  });

  it('one caller signal can be shared by many concurrent attempts without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const transport = transportFor();
      const { signal } = new AbortController();
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => transport.send(delivery(), { signal })),
      );
      expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a redirect is not followed: http_status naming the Location', async () => {
    const target = receiver.urlFor('/elsewhere');
    receiver.respond((request) => (request.path === '/hooks' ? { redirectTo: target } : { status: 200 }));
    const outcome = await transportFor().send(delivery());
    expect(outcome).toMatchObject({ ok: false, statusCode: 302, errorKind: 'http_status' });
    expect(outcome.errorMessage).toContain('HTTP 302');
    expect(outcome.errorMessage).toContain(target);
    expect(receiver.requests.map((request) => request.path)).toEqual(['/hooks']);
  });

  it('keeps at most 4096 bytes of a 10 MB body and drops that connection', async () => {
    receiver.respond(() => ({ status: 200, body: 'x'.repeat(10 * 1024 * 1024) }));
    const transport = transportFor({ connectionsPerOrigin: 1 });
    const outcome = await transport.send(delivery());
    expect(outcome.ok).toBe(true);
    expect(outcome.responseExcerpt).toBe('x'.repeat(4096));
    receiver.respond(() => ({ status: 200 }));
    await transport.send(delivery());
    const [first, second] = receiver.requests;
    expect(second?.remotePort).not.toBe(first?.remotePort);
  });

  // The attempt budget is a minute, above this test's own timeout: only cutting the body ends it in time.
  it('an endless body ends the attempt after the excerpt', { timeout: 15_000 }, async () => {
    receiver.respond(() => ({ status: 200, endlessBody: true }));
    const outcome = await transportFor({ timeoutMs: 60_000, maxResponseBytes: 1000 }).send(delivery());
    expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
    expect(Buffer.byteLength(outcome.responseExcerpt ?? '')).toBe(1000);
  });

  it('a self-signed certificate without the CA is a tls error and nothing is delivered', async () => {
    const outcome = await transportFor({ tls: undefined }).send(delivery());
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'tls' });
    expect(outcome.errorMessage).toMatch(/TLS/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('a certificate that does not name the host is a tls error', async () => {
    const resolve = hostResolver({ 'other.example': '127.0.0.1' });
    const urlPolicy = createUrlPolicy({ allowPrivateNetworks: true, resolve });
    const outcome = await transportFor({ urlPolicy }).send(
      delivery(`https://other.example:${receiver.port}/hooks`),
    );
    expect(outcome).toMatchObject({ ok: false, errorKind: 'tls' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('a refused connection is connect', async () => {
    const port = await closedPort();
    const outcome = await transportFor().send(delivery(`https://127.0.0.1:${port}/hooks`));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'connect' });
    // The agency gets the fixed text; the address and port tried go to the logs only.
    expect(outcome.errorMessage).toMatch(/^Could not connect to the receiver/);
    expect(outcome.errorMessage).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\d{4,5}/);
    expect(outcome.errorDetail).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('throws when used after close', async () => {
    const transport = transportFor();
    await transport.close();
    await expect(transport.send(delivery())).rejects.toThrow(/closed/);
  });
});

describe('send-time URL check and connection pinning', () => {
  it('a hostname resolving to 127.0.0.1 at send time is private_address and nothing connects', async () => {
    const resolve = hostResolver({ 'hooks.test': '127.0.0.1' });
    const urlPolicy = createUrlPolicy({ resolve });
    const outcome = await transportFor({ urlPolicy }).send(
      delivery(`https://hooks.test:${receiver.port}/hooks`),
    );
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'private_address' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('DNS rebinding: public when the config was saved, 127.0.0.1 at send time, is refused', async () => {
    const resolve = hostResolver({ 'rebind.test': (call) => (call === 1 ? '93.184.216.34' : '127.0.0.1') });
    const urlPolicy = createUrlPolicy({ resolve });
    const url = `https://rebind.test:${receiver.port}/hooks`;
    await urlPolicy.check(url);
    const outcome = await transportFor({ urlPolicy }).send(delivery(url));
    expect(outcome.errorKind).toBe('private_address');
    expect(resolve.calls('rebind.test')).toBe(2);
    expect(receiver.requests).toHaveLength(0);
  });

  it('a hostname that does not resolve at send time is dns', async () => {
    const urlPolicy = createUrlPolicy({ allowPrivateNetworks: true, resolve: hostResolver({}) });
    const outcome = await transportFor({ urlPolicy }).send(delivery('https://gone.test/hooks'));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'dns' });
  });

  it('connects to the checked address while SNI and Host keep the hostname', async () => {
    const resolve = hostResolver({ 'hooks.test': '127.0.0.1' });
    const urlPolicy = createUrlPolicy({ allowPrivateNetworks: true, resolve });
    const outcome = await transportFor({ urlPolicy }).send(
      delivery(`https://hooks.test:${receiver.port}/hooks`),
    );
    expect(outcome.ok).toBe(true);
    const [request] = receiver.requests;
    expect(request?.servername).toBe('hooks.test');
    expect(request?.headers.host).toBe(`hooks.test:${receiver.port}`);
  });

  it('a keep-alive connection is not reused once the name resolves elsewhere', async () => {
    // 127.0.0.2 is loopback too, but the receiver listens on 127.0.0.1 only: reaching it proves a stale socket.
    const resolve = hostResolver({ 'moving.hooks.test': (call) => (call <= 2 ? '127.0.0.1' : '127.0.0.2') });
    const urlPolicy = createUrlPolicy({ allowPrivateNetworks: true, resolve });
    const transport = transportFor({ urlPolicy, connectionsPerOrigin: 1 });
    const url = `https://moving.hooks.test:${receiver.port}/hooks`;
    expect((await transport.send(delivery(url))).ok).toBe(true);
    expect((await transport.send(delivery(url))).ok).toBe(true);
    const third = await transport.send(delivery(url));
    expect(third).toMatchObject({ ok: false, errorKind: 'connect' });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]?.remotePort).toBe(receiver.requests[0]?.remotePort);
  });
});

describe('hostnames through the built-in resolver and a real DNS server on the loopback', () => {
  let dns: TestDnsServer;
  let now = 0;
  /** Private networks are allowed where the receiver (on 127.0.0.1) must be reached. */
  const policyOn = (options: { allowPrivateNetworks?: boolean; lookupTimeoutMs?: number } = {}) =>
    createUrlPolicy(
      { allowPrivateNetworks: true, dnsServers: [dns.address], ...options },
      { now: () => now },
    );

  beforeAll(async () => {
    dns = await startDnsServer();
  });

  afterAll(async () => {
    await dns.close();
  });

  beforeEach(() => {
    now = 1_000_000;
    dns.resetCounts();
  });

  it('delivers to the checked address, with the hostname as SNI and Host', async () => {
    dns.set('named.hooks.test', { a: ['127.0.0.1'], ttl: 60 });
    const url = `https://named.hooks.test:${receiver.port}/hooks`;
    const outcome = await transportFor({ urlPolicy: policyOn() }).send(delivery(url));
    expect(outcome.ok).toBe(true);
    expect(receiver.requests[0]?.servername).toBe('named.hooks.test');
    expect(receiver.requests[0]?.headers.host).toBe(`named.hooks.test:${receiver.port}`);
  });

  it('sends within the TTL make no query and reuse the keep-alive connection', async () => {
    dns.set('warm.hooks.test', { a: ['127.0.0.1'], ttl: 60 });
    const transport = transportFor({ urlPolicy: policyOn(), connectionsPerOrigin: 1 });
    const url = `https://warm.hooks.test:${receiver.port}/hooks`;
    for (let i = 0; i < 5; i++) expect((await transport.send(delivery(url))).ok).toBe(true);
    expect(dns.queries('warm.hooks.test')).toBe(2);
    expect(new Set(receiver.requests.map((request) => request.remotePort)).size).toBe(1);
  });

  it('concurrent sends to a cold hostname share one A and one AAAA query', async () => {
    dns.set('cold.hooks.test', { a: ['127.0.0.1'], ttl: 60, delayMs: 50 });
    const transport = transportFor({ urlPolicy: policyOn() });
    const url = `https://cold.hooks.test:${receiver.port}/hooks`;
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => transport.send(delivery(url))));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(dns.queries('cold.hooks.test', 'A')).toBe(1);
    expect(dns.queries('cold.hooks.test', 'AAAA')).toBe(1);
  });

  it('a changed answer after the TTL opens a new pool: the old keep-alive socket is not reused', async () => {
    // 127.0.0.2 is loopback too, but the receiver listens on 127.0.0.1 only: reaching it proves a stale socket.
    dns.set('moving.hooks.test', (query) =>
      query.type === 'A' ? { a: [query.count === 1 ? '127.0.0.1' : '127.0.0.2'], ttl: 10 } : {},
    );
    const transport = transportFor({ urlPolicy: policyOn(), connectionsPerOrigin: 1 });
    const url = `https://moving.hooks.test:${receiver.port}/hooks`;
    expect((await transport.send(delivery(url))).ok).toBe(true);
    expect((await transport.send(delivery(url))).ok).toBe(true);
    now += 10_000;
    expect(await transport.send(delivery(url))).toMatchObject({ ok: false, errorKind: 'connect' });
    expect(receiver.requests).toHaveLength(2);
    expect(dns.queries('moving.hooks.test', 'A')).toBe(2);
  });

  it('DNS rebinding: public when checked, 127.0.0.1 once that answer expired: refused, nothing connects', async () => {
    dns.set('rebind.hooks.test', (query) =>
      query.type === 'A' ? { a: [query.count === 1 ? '93.184.216.34' : '127.0.0.1'], ttl: 5 } : {},
    );
    const urlPolicy = policyOn({ allowPrivateNetworks: false });
    const url = `https://rebind.hooks.test:${receiver.port}/hooks`;
    await urlPolicy.check(url);
    now += 5000;
    // Guard: the public answer must be gone before anything is sent (it is never a target of this test).
    expect(urlPolicy.known(url)).toBeUndefined();
    const outcome = await transportFor({ urlPolicy }).send(delivery(url));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'private_address' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('a name whose DNS server never answers fails as dns at lookupTimeoutMs, within the attempt', async () => {
    dns.set('dead.hooks.test', { silent: true });
    const transport = transportFor({ urlPolicy: policyOn({ lookupTimeoutMs: 300 }), timeoutMs: 2000 });
    const outcome = await transport.send(delivery(`https://dead.hooks.test:${receiver.port}/hooks`));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'dns' });
    expect(outcome.errorMessage).toMatch(/^The host name of the webhook URL did not resolve\./);
    expect(outcome.errorDetail).toContain('did not resolve within 300 ms');
    expect(outcome.durationMs).toBeLessThan(1500);
  });

  it("an agency past its lookup limit gets a dns outcome at once; another agency's send goes on", async () => {
    // One label under hooks.test each: the test certificate's *.hooks.test covers no deeper name.
    for (const host of ['slow-one', 'slow-two'])
      dns.set(`${host}.hooks.test`, { a: ['127.0.0.1'], delayMs: 300 });
    const urlPolicy = createUrlPolicy({
      allowPrivateNetworks: true,
      dnsServers: [dns.address],
      maxLookupsPerAgency: 1,
    });
    const transport = transportFor({ urlPolicy });
    const to = (host: string) => delivery(`https://${host}.hooks.test:${receiver.port}/hooks`);
    let firstSettled = false;
    const first = transport.send(to('slow-one'), { agencyId: 'a' }).finally(() => {
      firstSettled = true;
    });
    const refused = await transport.send(to('slow-two'), { agencyId: 'a' });
    expect(firstSettled).toBe(false);
    expect(refused).toMatchObject({ ok: false, errorKind: 'dns' });
    expect(refused.errorDetail).toContain('lookups in flight');
    const [own, other] = await Promise.all([first, transport.send(to('slow-two'), { agencyId: 'b' })]);
    expect([own.ok, other.ok]).toEqual([true, true]);
    expect(receiver.requests).toHaveLength(2);
  });
});
