import {
  hostResolver,
  type ReceiverProcess,
  spawnReceiverProcess,
  startTestReceiver,
  type TestReceiver,
} from '@svc/test-support';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../src/delivery/attempt-outcome';
import { circuitSignal } from '../src/delivery/circuit-breaker';
import { tenantMessage } from '../src/transport/attempt-error';
import { createTransport, type Transport, type TransportOptions } from '../src/transport/transport';
import { createUrlPolicy } from '../src/transport/url-policy';
import { nextWindow } from '../src/worker/agency-slots';

/*
 * Timeouts measure the receiver (design §6.1): time a request spends waiting
 * inside our own process (a pooled connection, the socket budget, connect
 * pacing, a blocked event loop) is never charged to a healthy receiver, a
 * receiver that really hangs still times out, and our own waiting is bounded on
 * its own. Against a real local HTTPS receiver; every `*.hooks.test` name is
 * 127.0.0.1, so each is its own origin (its own pool).
 */

const HOSTS = 200;
let receiver: TestReceiver;
const transports: Transport[] = [];
const policy = createUrlPolicy({
  allowPrivateNetworks: true,
  resolve: hostResolver(
    Object.fromEntries(Array.from({ length: HOSTS }, (_, i) => [`t${i}.hooks.test`, '127.0.0.1'])),
  ),
});

function transportFor(options: TransportOptions = {}): Transport {
  const transport = createTransport({ urlPolicy: policy, tls: { ca: receiver.ca }, ...options });
  transports.push(transport);
  return transport;
}

function delivery(host = 't0.hooks.test') {
  return { url: `https://${host}:${receiver.port}/hooks`, body: '{"attempt":1}', headers: {} };
}

/** Holds the event loop, as a CPU-bound host or a long synchronous task would. */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: nothing else in this process runs meanwhile
  }
}

const kinds = (outcomes: readonly AttemptOutcome[]) => outcomes.map((outcome) => outcome.errorKind ?? 'ok');

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 200 }));
});
afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
});

describe('a healthy receiver is not charged for our own waiting', () => {
  it("a request queued behind busy connections of its pool: the wait is not the receiver's timeout", async () => {
    // Each answer takes half the budget; with one connection, the fifth request waits four answers for it.
    receiver.respond(() => ({ status: 200, hangMs: 150 }));
    const transport = transportFor({ timeoutMs: 300, connectionsPerOrigin: 1 });
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => transport.send(delivery())));
    expect(kinds(outcomes)).toEqual(Array(5).fill('ok'));
  });

  it('connects waiting at the socket budget: the wait is not charged to the receivers', async () => {
    receiver.respond(() => ({ status: 200, hangMs: 150 }));
    const transport = transportFor({ timeoutMs: 300, maxSockets: 1 });
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) => transport.send(delivery(`t${i}.hooks.test`))),
    );
    expect(kinds(outcomes)).toEqual(Array(5).fill('ok'));
    expect(transport.stats().peakSockets).toBe(1);
  });

  it('an answer that arrived while the event loop was blocked past the deadline is read, not timed out', async () => {
    const transport = transportFor({ timeoutMs: 200 });
    expect((await transport.send(delivery())).ok).toBe(true); // a warm connection: the next send goes at once
    // The receiver answers at once, then the loop is held past the sender's deadline before it can read it.
    receiver.respond(() => {
      setImmediate(() => blockEventLoop(500));
      return { status: 200 };
    });
    const outcome = await transport.send(delivery());
    expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
  });
});

describe('a herd of connects behind the connect pacer, the receiver in its own process', () => {
  let remote: ReceiverProcess;
  beforeAll(async () => {
    remote = await spawnReceiverProcess();
  });
  afterAll(() => remote.close());

  it('waiting for a connect turn on a busy event loop is not charged to the receivers', async () => {
    // 8 connects start per turn of the loop, and each turn costs 40 ms of someone else's work: the
    // last of 200 new origins waits a second for its turn, longer than its whole budget.
    let busy = true;
    const hog = () => {
      if (!busy) return;
      blockEventLoop(40);
      setImmediate(hog);
    };
    setImmediate(hog);
    try {
      const transport = createTransport({ urlPolicy: policy, tls: { ca: remote.ca }, timeoutMs: 800 });
      transports.push(transport);
      const { port } = new URL(remote.url);
      const outcomes = await Promise.all(
        Array.from({ length: HOSTS }, (_, i) =>
          transport.send({ url: `https://t${i}.hooks.test:${port}/hooks`, body: '{}', headers: {} }),
        ),
      );
      expect(kinds(outcomes)).toEqual(Array(HOSTS).fill('ok'));
    } finally {
      busy = false;
    }
  });
});

describe('the bounds that remain', () => {
  it('a receiver that really hangs still times out at timeoutMs', async () => {
    receiver.respond(() => ({ hangMs: 10_000 }));
    const outcome = await transportFor({ timeoutMs: 300 }).send(delivery());
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'timeout' });
    expect(outcome.errorDetail).toContain('300 ms');
    expect(outcome.durationMs).toBeGreaterThanOrEqual(300);
    expect(outcome.durationMs, 'ends at its budget, not at the local-wait bound').toBeLessThan(5_000);
  });

  it('a hanging receiver behind a queue: the queued request gets its own full budget, then times out', async () => {
    receiver.respond(() => ({ hangMs: 10_000 }));
    const transport = transportFor({ timeoutMs: 300, connectionsPerOrigin: 1 });
    const outcomes = await Promise.all([transport.send(delivery()), transport.send(delivery())]);
    expect(kinds(outcomes)).toEqual(['timeout', 'timeout']);
    // The second waited for the connection the first timed out on, then was sent and timed out in turn.
    expect(receiver.requests).toHaveLength(2);
  });

  it('localWaitMs: a request never handed to a connection in time is sender_busy, and nothing reaches the receiver', async () => {
    receiver.respond(() => ({ hangMs: 10_000 }));
    // The only socket is held by a hanging receiver for 1 s; the second send waits for it at the budget.
    const transport = transportFor({ timeoutMs: 1_000, maxSockets: 1, localWaitMs: 200 });
    const held = transport.send(delivery('t1.hooks.test'));
    await receiver.waitForRequests(1);
    const outcome = await transport.send(delivery('t2.hooks.test'));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorKind: 'sender_busy' });
    expect(outcome.errorMessage).toBe(tenantMessage('sender_busy'));
    expect(outcome.errorDetail).toContain('localWaitMs (200 ms)');
    expect((await held).errorKind).toBe('timeout');
    expect(receiver.requests.map((request) => request.servername)).toEqual(['t1.hooks.test']);
  });

  it("sender_busy is not a receiver failure: neither the agency's breaker nor its window counts it", () => {
    const outcome: AttemptOutcome = {
      ok: false,
      statusCode: null,
      errorKind: 'sender_busy',
      errorMessage: tenantMessage('sender_busy'),
      durationMs: 30_000,
      responseExcerpt: null,
      retryAfterMs: null,
    };
    expect(circuitSignal(outcome)).toBe('neutral');
    expect(nextWindow(4, outcome, 8)).toBe(4);
  });

  it('refuses a localWaitMs that is not a positive integer (invalid_option)', () => {
    expect(() => createTransport({ urlPolicy: policy, localWaitMs: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_option', option: 'transport.localWaitMs' }),
    );
  });
});
