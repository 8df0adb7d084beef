import type { AddressInfo } from 'node:net';
import { createSecureContext, createServer, type Server, type TLSSocket } from 'node:tls';
import { getTestCertificate } from '@svc/test-support';
import type { buildConnector } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTS_PER_TURN, ConnectPacer } from '../src/transport/connect-pacer';
import { pinnedLookup } from '../src/transport/pinned-pools';
import { buildPoolConnector } from '../src/transport/tls-connector';

/*
 * The pacer starts a herd of connects a few per turn of the event loop, in the
 * order they were asked for, and every one of them still connects.
 */

type Connector = buildConnector.connector;
type ConnectResult = { error: Error | null; socket: unknown };

const target = (port: number): Parameters<Connector>[0] => ({
  hostname: 'localhost',
  host: `localhost:${port}`,
  protocol: 'https:',
  port: String(port),
  servername: '',
});

/** One turn of the event loop: what the pacer waits for between batches. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A connector that records which connects started and answers each with a token socket. */
function recordingConnector() {
  const started: number[] = [];
  const connect: Connector = (options, callback) => {
    started.push(Number(options.port));
    callback(null, { port: options.port } as never);
  };
  return { started, connect };
}

function ask(connect: Connector, port: number): Promise<ConnectResult> {
  return new Promise((resolve) => {
    connect(target(port), (error, socket) => resolve({ error, socket }));
  });
}

describe('ConnectPacer', () => {
  it('starts a lone connect at once', () => {
    const { started, connect } = recordingConnector();
    void ask(new ConnectPacer().wrap(connect), 1);
    expect(started).toEqual([1]);
  });

  it('starts a herd a few per turn, in the order asked', async () => {
    const { started, connect } = recordingConnector();
    const pacer = new ConnectPacer(4);
    const paced = pacer.wrap(connect);
    const results = Array.from({ length: 10 }, (_, index) => ask(paced, index));
    expect(started).toEqual([0, 1, 2, 3]);
    expect(pacer.waiting).toBe(6);
    await nextTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await nextTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(pacer.waiting).toBe(0);
    expect((await Promise.all(results)).map((result) => result.error)).toEqual(Array(10).fill(null));
  });

  it('counts every connect of a turn, across the connectors it wraps', async () => {
    const first = recordingConnector();
    const second = recordingConnector();
    const pacer = new ConnectPacer(3);
    for (let port = 0; port < 2; port++) void ask(pacer.wrap(first.connect), port);
    for (let port = 10; port < 13; port++) void ask(pacer.wrap(second.connect), port);
    expect([...first.started, ...second.started]).toEqual([0, 1, 10]);
    await nextTurn();
    expect(second.started).toEqual([10, 11, 12]);
  });

  it('starts the next turn with a full allowance once the herd has gone', async () => {
    const { started, connect } = recordingConnector();
    const paced = new ConnectPacer(2).wrap(connect);
    for (let port = 0; port < 3; port++) void ask(paced, port);
    await nextTurn();
    await nextTurn();
    expect(started).toEqual([0, 1, 2]);
    for (let port = 3; port < 5; port++) void ask(paced, port);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('hands a connect that throws in a later turn its error', async () => {
    const failing: Connector = (options, callback) => {
      if (options.port === '2') throw new Error('bad connect options');
      callback(null, {} as never);
    };
    const paced = new ConnectPacer(1).wrap(failing);
    const results = [ask(paced, 1), ask(paced, 2), ask(paced, 3)];
    const [first, second, third] = await Promise.all(results);
    expect(first?.error).toBeNull();
    expect(second?.error?.message).toBe('bad connect options');
    expect(third?.error).toBeNull();
  });

  it("leaves a throw from the caller's own callback to the caller, answering once", () => {
    const { connect } = recordingConnector();
    const paced = new ConnectPacer().wrap(connect);
    let answers = 0;
    expect(() =>
      paced(target(1), () => {
        answers += 1;
        throw new Error('thrown by the caller');
      }),
    ).toThrow('thrown by the caller');
    expect(answers).toBe(1);
  });
});

describe('ConnectPacer with the TLS connector', () => {
  let server: Server | undefined;
  const sockets: TLSSocket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
    server?.close();
  });

  it(`connects a herd of 40 to a TLS server, ${CONNECTS_PER_TURN} started per turn`, async () => {
    const certificate = await getTestCertificate();
    server = createServer(certificate, (socket) => socket.on('error', () => {}));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const tlsConnect = buildPoolConnector({
      lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]),
      autoSelectFamily: true,
      secureContext: createSecureContext({ ca: certificate.cert }),
      timeout: 5_000,
    });
    let started = 0;
    const paced = new ConnectPacer().wrap((options, callback) => {
      started += 1;
      tlsConnect(options, callback);
    });
    const results = Array.from({ length: 40 }, () => ask(paced, port));
    expect(started).toBe(CONNECTS_PER_TURN);
    const settled = await Promise.all(results);
    for (const { socket } of settled) if (socket) sockets.push(socket as TLSSocket);
    expect(
      settled.filter((result) => result.error === null && (result.socket as TLSSocket).authorized),
    ).toHaveLength(40);
  });
});
