import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { createSecureContext, createServer, type SecureVersion, type Server, type TLSSocket } from 'node:tls';
import { getTestCertificate } from '@svc/test-support';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pinnedLookup } from '../src/transport/pinned-pools';
import { buildPoolConnector } from '../src/transport/tls-connector';

/*
 * The pools' TLS connector against a real TLS server on 127.0.0.1: it resumes
 * the pool's session, parses that session once per connect, asks a socket for
 * its session only while the pool needs one, and fails a connect that does not
 * complete in time with undici's connect-timeout error.
 */

let certificate: { key: string; cert: string };
const servers: Array<Server | TcpServer> = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  certificate = await getTestCertificate();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.close();
});

async function listen<T extends Server | TcpServer>(server: T): Promise<{ server: T; port: number }> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A TLS server that completes handshakes, and counts them by kind. */
async function tlsServer(maxVersion: SecureVersion) {
  const handshakes = { full: 0, resumed: 0 };
  const server = createServer({ ...certificate, maxVersion }, (socket) => {
    handshakes[socket.isSessionReused() ? 'resumed' : 'full'] += 1;
    socket.on('error', () => undefined);
  });
  return { ...(await listen(server)), handshakes };
}

function connectorFor(timeout = 5_000) {
  return buildPoolConnector({
    lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]),
    autoSelectFamily: true,
    secureContext: createSecureContext({ ca: certificate.cert }),
    timeout,
  });
}

type Connector = ReturnType<typeof buildPoolConnector>;

function connect(connector: Connector, port: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    connector(
      {
        hostname: 'localhost',
        host: `localhost:${port}`,
        protocol: 'https:',
        port: String(port),
        servername: '',
      },
      (error, socket) => {
        if (socket) sockets.push(socket);
        if (error) reject(error);
        else resolve(socket as TLSSocket);
      },
    );
  });
}

/**
 * Connects, then waits for the socket's session when it reports one over TLS
 * 1.3, whose tickets come after the handshake (a TLS 1.2 session is reported
 * with the handshake).
 */
async function connectAndSettle(connector: Connector, port: number): Promise<TLSSocket> {
  const socket = await connect(connector, port);
  if (socket.getProtocol() === 'TLSv1.3' && socket.listenerCount('session') > 0) {
    await once(socket, 'session', { signal: AbortSignal.timeout(5_000) });
  }
  return socket;
}

describe.each(['TLSv1.3', 'TLSv1.2'] as const)('buildPoolConnector() over %s', (maxVersion) => {
  it("resumes the pool's session on every connect after the first", async () => {
    const { port, handshakes } = await tlsServer(maxVersion);
    const connector = connectorFor();
    const first = await connectAndSettle(connector, port);
    expect(first.isSessionReused()).toBe(false);
    for (let i = 0; i < 4; i++) {
      expect((await connectAndSettle(connector, port)).isSessionReused(), `connect ${i + 2}`).toBe(true);
    }
    await vi.waitFor(() => expect(handshakes).toEqual({ full: 1, resumed: 4 }));
  });

  it('parses the offered session once per connect', async () => {
    const { port } = await tlsServer(maxVersion);
    const connector = connectorFor();
    const first = await connectAndSettle(connector, port);
    const handle = (first as TLSSocket & { _handle: { setSession(session: Buffer): void } })._handle;
    const setSession = vi.spyOn(Object.getPrototypeOf(handle), 'setSession');
    try {
      for (let i = 0; i < 3; i++) await connectAndSettle(connector, port);
      expect(setSession).toHaveBeenCalledTimes(3);
    } finally {
      setSession.mockRestore();
    }
  });

  it('asks for the session only while the pool has none', async () => {
    const { port } = await tlsServer(maxVersion);
    const connector = connectorFor();
    const first = await connect(connector, port);
    expect(
      first.listenerCount('session'),
      'no session yet: the first socket reports its own',
    ).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const resumed = await connectAndSettle(connector, port);
    expect(resumed.isSessionReused()).toBe(true);
    expect(resumed.listenerCount('session'), 'the pool has a session: nothing to serialise').toBe(0);
  });

  it('takes a new session once the receiver declines the cached one (ticket keys rotated)', async () => {
    const { server, port, handshakes } = await tlsServer(maxVersion);
    const connector = connectorFor();
    await connectAndSettle(connector, port);
    expect((await connectAndSettle(connector, port)).isSessionReused()).toBe(true);
    server.setTicketKeys(randomBytes(48));
    expect((await connectAndSettle(connector, port)).isSessionReused(), 'the old ticket is declined').toBe(
      false,
    );
    expect((await connectAndSettle(connector, port)).isSessionReused(), 'the new session resumes').toBe(true);
    await vi.waitFor(() => expect(handshakes).toEqual({ full: 2, resumed: 2 }));
  });
});

describe('buildPoolConnector(): plain http', () => {
  it('connects an http: origin over plain TCP, to the pinned address', async () => {
    const accepted: Socket[] = [];
    const { port } = await listen(createTcpServer((socket) => accepted.push(socket)));
    const socket = await new Promise<Socket>((resolve, reject) => {
      connectorFor()(
        { hostname: 'receiver.test', host: `receiver.test:${port}`, protocol: 'http:', port: String(port) },
        (error, connected) => (error ? reject(error) : resolve(connected as Socket)),
      );
    });
    sockets.push(socket, ...accepted);
    expect('encrypted' in socket).toBe(false);
    expect(socket.remoteAddress).toBe('127.0.0.1');
    await vi.waitFor(() => expect(accepted).toHaveLength(1));
  });
});

describe('buildPoolConnector(): failures', () => {
  it("fails a connect whose handshake does not complete in time with undici's connect-timeout error", async () => {
    const silent = createTcpServer((socket) => {
      sockets.push(socket);
    });
    const { port } = await listen(silent);
    const startedAt = Date.now();
    const error = await connect(connectorFor(200), port).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
  });

  it('fails a connect the server closes during the handshake', async () => {
    const closing = createTcpServer((socket) => socket.destroy());
    const { port } = await listen(closing);
    await expect(connect(connectorFor(), port)).rejects.toThrow();
  });

  it('fails a certificate it cannot trust as a TLS error', async () => {
    const { port } = await tlsServer('TLSv1.3');
    const untrusting = buildPoolConnector({
      lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]),
      autoSelectFamily: true,
      timeout: 5_000,
    });
    await expect(connect(untrusting, port)).rejects.toMatchObject({
      code: expect.stringMatching(/CERT|SELF_SIGNED/),
    });
  });
});
