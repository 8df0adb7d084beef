import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import {
  getTestCertificate,
  hostResolver,
  startDnsServer,
  startTestReceiver,
  type TestReceiver,
} from '@svc/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UNHELD_CONNECTS } from '../src/transport/resumption-gate';
import { createTransport, type Transport, type TransportOptions } from '../src/transport/transport';
import { createUrlPolicy } from '../src/transport/url-policy';

/*
 * The transport's bounds, against real local servers: pools and sockets capped,
 * connects timed apart from the attempt, idle keep-alive closed, one-shot sends.
 * Every `*.hooks.test` name resolves to 127.0.0.1, so each is its own origin
 * (its own pool) on the one receiver.
 */

let receiver: TestReceiver;
const transports: Transport[] = [];
const servers: Server[] = [];
const policy = createUrlPolicy({
  allowPrivateNetworks: true,
  resolve: hostResolver(
    Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`h${i}.hooks.test`, '127.0.0.1'])),
  ),
});

function transportFor(options: TransportOptions = {}): Transport {
  const transport = createTransport({ urlPolicy: policy, tls: { ca: receiver.ca }, ...options });
  transports.push(transport);
  return transport;
}

function delivery(host: string, port = receiver.port) {
  return { url: `https://${host}:${port}/hooks`, body: '{"attempt":1}', headers: {} };
}

async function eventually(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Not within 3 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
afterEach(async () => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 200 }));
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  for (const server of servers.splice(0)) {
    server.close();
    (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
  }
});

describe('transport bounds', () => {
  it('maxPools: past the cap the least recently used pool is closed, and the others keep their connections', async () => {
    const transport = transportFor({ maxPools: 3 });
    for (const host of ['h0', 'h1', 'h2', 'h0', 'h3', 'h0', 'h1']) {
      expect((await transport.send(delivery(`${host}.hooks.test`))).ok).toBe(true);
      expect(transport.stats().pools, `pools after a send to ${host}`).toBeLessThanOrEqual(3);
    }
    const portsOf = (host: string) =>
      receiver.requests
        .filter((request) => request.servername === `${host}.hooks.test`)
        .map((r) => r.remotePort);
    const [first, second, third] = portsOf('h0');
    expect([second, third], 'h0, used recently each time, kept its keep-alive connection').toEqual([
      first,
      first,
    ]);
    const [before, after] = portsOf('h1');
    expect(after, 'h1, the least recently used when h3 came, was closed and reconnected').not.toBe(before);
  });

  it('maxSockets: sends past the cap wait for a socket (idle pools are closed for them), and all are answered', async () => {
    const transport = transportFor({ maxSockets: 2 });
    receiver.respond(() => ({ status: 200, hangMs: 30 }));
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) => transport.send(delivery(`h${index}.hooks.test`))),
    );
    expect(outcomes.map((outcome) => outcome.ok)).toEqual(Array(8).fill(true));
    expect(transport.stats()).toMatchObject({ maxSockets: 2 });
    expect(transport.stats().peakSockets, 'most sockets open at once').toBeLessThanOrEqual(2);
  });

  it('connectTimeoutMs bounds a connect that never completes, apart from the attempt timeout', async () => {
    // Accepts TCP and never answers the TLS handshake: a receiver behind a dead proxy.
    const held: Socket[] = [];
    const port = await listen(createTcpServer((socket) => held.push(socket)));
    const transport = transportFor({ connectTimeoutMs: 200, timeoutMs: 120_000 });
    const outcome = await transport.send(delivery('h0.hooks.test', port));
    for (const socket of held) socket.destroy();
    // Without the connect timeout this send would wait for the 120 s attempt timeout and time the test out.
    expect(outcome).toMatchObject({ ok: false, statusCode: null });
    expect(['timeout', 'connect']).toContain(outcome.errorKind);
  });

  it("idleMs: an idle keep-alive socket is closed after it, whatever the receiver's keep-alive hint", async () => {
    const { key, cert } = await getTestCertificate();
    const server = createHttpsServer({ key, cert, keepAliveTimeout: 600_000 }, (_req, res) => {
      res.writeHead(200, { 'keep-alive': 'timeout=600' }).end('ok');
    });
    const port = await listen(server);
    const transport = transportFor({ idleMs: 200 });
    expect((await transport.send(delivery('h0.hooks.test', port))).ok).toBe(true);
    expect(transport.stats().sockets, 'the socket is kept alive after the answer').toBe(1);
    await eventually('the idle socket to close', () => transport.stats().sockets === 0);
  });

  /** A receiver that counts TLS handshakes by kind; each answer waits, so a burst needs a connection per send. */
  async function handshakeCountingReceiver(maxVersion: 'TLSv1.3' | 'TLSv1.2' = 'TLSv1.3') {
    const { key, cert } = await getTestCertificate();
    const handshakes = { full: 0, resumed: 0 };
    const server = createHttpsServer({ key, cert, maxVersion }, (_req, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), 100);
    });
    server.on('secureConnection', (socket) => {
      handshakes[socket.isSessionReused() ? 'resumed' : 'full'] += 1;
    });
    return { port: await listen(server), handshakes };
  }

  async function sendBurst(transport: Transport, burst: number, host: string, port: number): Promise<void> {
    const outcomes = await Promise.all(
      Array.from({ length: burst }, () => transport.send(delivery(host, port))),
    );
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
  }

  async function countHandshakes(burst: number, maxVersion: 'TLSv1.3' | 'TLSv1.2' = 'TLSv1.3') {
    const { port, handshakes } = await handshakeCountingReceiver(maxVersion);
    await sendBurst(transportFor(), burst, 'h6.hooks.test', port);
    return handshakes;
  }

  it.each(['TLSv1.3', 'TLSv1.2'] as const)(
    "a herd of connects to a new origin: past the first, each resumes the first one's session (%s)",
    async (maxVersion) => {
      expect(await countHandshakes(UNHELD_CONNECTS + 24, maxVersion)).toEqual({
        full: UNHELD_CONNECTS,
        resumed: 24,
      });
    },
  );

  it("an agency's burst to a new origin makes one full handshake; the others resume its session", async () => {
    // A cold hostname releases its agency's attempts together when the shared lookup answers:
    // unheld, every one of them was a full handshake.
    expect(await countHandshakes(8)).toEqual({ full: 1, resumed: 7 });
  });

  it('sends to a cold hostname share one lookup of a real DNS server and one full handshake', async () => {
    const { port, handshakes } = await handshakeCountingReceiver();
    const dns = await startDnsServer({ zones: { 'cold.hooks.test': { a: ['127.0.0.1'] } }, delayMs: 20 });
    try {
      const urlPolicy = createUrlPolicy({ allowPrivateNetworks: true, dnsServers: [dns.address] });
      const transport = createTransport({ urlPolicy, tls: { ca: receiver.ca } });
      transports.push(transport);
      await sendBurst(transport, 8, 'cold.hooks.test', port);
      expect(dns.queries('cold.hooks.test', 'A')).toBe(1);
      expect(dns.queries('cold.hooks.test', 'AAAA')).toBe(1);
      expect(handshakes).toEqual({ full: 1, resumed: 7 });
    } finally {
      await dns.close();
    }
  });

  it.each(['TLSv1.3', 'TLSv1.2'] as const)(
    "a pool that replaces a closed one resumes its origin's session: no full handshake, nothing held (%s)",
    async (maxVersion) => {
      const { port, handshakes } = await handshakeCountingReceiver(maxVersion);
      const transport = transportFor({ maxPools: 1 });
      await sendBurst(transport, 8, 'h6.hooks.test', port);
      // Another origin takes the only pool: h6's is closed, its sockets with it.
      await sendBurst(transport, 1, 'h7.hooks.test', port);
      expect(transport.stats().pools).toBe(1);
      handshakes.full = 0;
      handshakes.resumed = 0;
      await sendBurst(transport, UNHELD_CONNECTS + 24, 'h6.hooks.test', port);
      expect(handshakes).toEqual({ full: 0, resumed: UNHELD_CONNECTS + 24 });
    },
  );

  it("a one-shot send neither takes nor leaves a session for the origin's pool", async () => {
    const { port, handshakes } = await handshakeCountingReceiver();
    const transport = transportFor();
    expect((await transport.send(delivery('h8.hooks.test', port), { oneShot: true })).ok).toBe(true);
    await sendBurst(transport, 8, 'h8.hooks.test', port);
    expect(
      handshakes,
      "the pool's first connect is a full handshake, as if no one-shot send had been",
    ).toEqual({
      full: 2,
      resumed: 7,
    });
  });

  it('oneShot: a send on its own connection leaves no pool and no socket behind', async () => {
    const transport = transportFor();
    const outcome = await transport.send(delivery('h5.hooks.test'), { oneShot: true });
    expect(outcome.ok).toBe(true);
    expect(transport.stats().pools).toBe(0);
    await eventually('the one-shot socket to close', () => transport.stats().sockets === 0);
  });

  it.each([
    ['connectTimeoutMs', { connectTimeoutMs: 0 }],
    ['maxPools', { maxPools: 0 }],
    ['maxSockets', { maxSockets: 1.5 }],
    ['idleMs', { idleMs: -1 }],
    ['connectionsPerOrigin', { connectionsPerOrigin: 0 }],
  ])('refuses %s that is not a positive integer (invalid_option)', (option, options) => {
    expect(() => createTransport({ urlPolicy: policy, ...options })).toThrow(
      expect.objectContaining({ code: 'invalid_option', option: `transport.${option}` }),
    );
  });
});
