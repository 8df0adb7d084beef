import { EventEmitter } from 'node:events';
import type { buildConnector } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { holdForFirstSession, MAX_HOLD_MS } from '../src/transport/resumption-gate';

/*
 * The hold's rules, with a connector that records each connect and lets the
 * test finish it: the socket is an event emitter, as the gate only listens to
 * it. The handshakes against real receivers (TLS 1.3 and 1.2) are in
 * transport-limits.test.ts.
 */

type ConnectOptions = Parameters<buildConnector.connector>[0];

interface PendingConnect {
  succeed(): EventEmitter;
  fail(): void;
}

function recordingConnector() {
  const started: PendingConnect[] = [];
  const answered: Array<'socket' | 'error'> = [];
  const connector = ((_options, callback) => {
    started.push({
      succeed() {
        const socket = new EventEmitter();
        callback(null, socket as never);
        return socket;
      },
      fail() {
        callback(new Error('connect ECONNREFUSED'), null);
      },
    });
  }) as buildConnector.connector;
  const gated = holdForFirstSession(connector);
  const connect = (protocol: 'https:' | 'http:' = 'https:') =>
    gated(
      { protocol, hostname: 'hooks.test', host: 'hooks.test', port: '443' } as ConnectOptions,
      (...[error]) => {
        answered.push(error ? 'error' : 'socket');
      },
    );
  return { started, answered, connect };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('holdForFirstSession(connector)', () => {
  it('the first TLS connect goes alone; the others start when its session arrives', () => {
    const { started, answered, connect } = recordingConnector();
    for (let i = 0; i < 5; i += 1) connect();
    expect(started).toHaveLength(1);
    const first = started[0]?.succeed();
    expect(answered, 'the leader is answered at once: its own request does not wait').toEqual(['socket']);
    expect(started, 'the session comes after the handshake: still held').toHaveLength(1);
    first?.emit('session', Buffer.from('ticket'));
    expect(started).toHaveLength(5);
  });

  it('once a handshake has completed, no connect is held again', () => {
    const { started, connect } = recordingConnector();
    connect();
    started[0]?.succeed().emit('session', Buffer.from('ticket'));
    connect();
    connect();
    expect(started).toHaveLength(3);
  });

  it('a leader that fails releases the others at once, and the next connect leads again', () => {
    const { started, answered, connect } = recordingConnector();
    connect();
    connect();
    connect();
    started[0]?.fail();
    expect(started, 'no session is coming: the held connects try on their own').toHaveLength(3);
    expect(answered).toEqual(['error']);
    connect();
    connect();
    expect(started, 'still no session: a new leader, and one held behind it').toHaveLength(4);
  });

  it.each([
    [400, 400, 'as long again as the handshake took'],
    [5, 250, 'at least: a busy process reads a ticket late'],
  ])('without a session after a %i ms handshake, the others go after %i ms (%s)', (handshakeMs, waitMs) => {
    const { started, connect } = recordingConnector();
    connect();
    connect();
    vi.advanceTimersByTime(handshakeMs);
    started[0]?.succeed();
    vi.advanceTimersByTime(waitMs - 1);
    expect(started).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(started).toHaveLength(2);
    connect();
    expect(started, 'the handshake completed: the pool is not held again').toHaveLength(3);
  });

  it(`a leader stuck in its connect holds the others for ${MAX_HOLD_MS} ms at most`, () => {
    const { started, connect } = recordingConnector();
    connect();
    connect();
    vi.advanceTimersByTime(MAX_HOLD_MS - 1);
    expect(started).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(started).toHaveLength(2);
    started[0]?.succeed().emit('session', Buffer.from('ticket'));
    connect();
    expect(started, 'the late leader still opened the pool').toHaveLength(3);
  });

  it('plain HTTP connects are never held', () => {
    const { started, connect } = recordingConnector();
    connect('http:');
    connect('http:');
    expect(started).toHaveLength(2);
  });
});
