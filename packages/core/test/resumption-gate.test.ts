import { EventEmitter } from 'node:events';
import type { buildConnector } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { holdForFirstSession, MAX_HOLD_MS, UNHELD_CONNECTS } from '../src/transport/resumption-gate';

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
  const connect = (times = 1, protocol: 'https:' | 'http:' = 'https:') => {
    for (let i = 0; i < times; i += 1) {
      gated(
        { protocol, hostname: 'hooks.test', host: 'hooks.test', port: '443' } as ConnectOptions,
        (...[error]) => {
          answered.push(error ? 'error' : 'socket');
        },
      );
    }
  };
  return { started, answered, connect };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('holdForFirstSession(connector)', () => {
  it('only the first TLS connect of a cold pool goes at once; the others wait for its session', () => {
    const { started, answered, connect } = recordingConnector();
    connect(UNHELD_CONNECTS + 4);
    expect(started).toHaveLength(UNHELD_CONNECTS);
    const first = started[0]?.succeed();
    expect(answered, 'an unheld connect is answered at once: its own request does not wait').toEqual([
      'socket',
    ]);
    expect(started, 'the session comes after the handshake: still held').toHaveLength(UNHELD_CONNECTS);
    first?.emit('session', Buffer.from('ticket'));
    expect(started).toHaveLength(UNHELD_CONNECTS + 4);
  });

  it('once a handshake has completed, no connect is held again', () => {
    const { started, connect } = recordingConnector();
    connect(UNHELD_CONNECTS);
    started[UNHELD_CONNECTS - 1]?.succeed().emit('session', Buffer.from('ticket'));
    connect(UNHELD_CONNECTS + 1);
    expect(started).toHaveLength(2 * UNHELD_CONNECTS + 1);
  });

  it('held connects go on their own once every unheld one has failed, not before', () => {
    const { started, answered, connect } = recordingConnector();
    connect(UNHELD_CONNECTS + 2);
    for (const pending of started.slice(0, UNHELD_CONNECTS - 1)) pending.fail();
    expect(started, 'one unheld connect may still bring a session').toHaveLength(UNHELD_CONNECTS);
    started[UNHELD_CONNECTS - 1]?.fail();
    expect(started, 'no session is coming: the held connects try on their own').toHaveLength(
      UNHELD_CONNECTS + 2,
    );
    expect(answered.every((answer) => answer === 'error')).toBe(true);
    connect(UNHELD_CONNECTS + 1);
    expect(started, 'still no session: a new group goes at once, and one is held behind it').toHaveLength(
      2 * UNHELD_CONNECTS + 2,
    );
  });

  it.each([
    [400, 400, 'as long again as the handshake took'],
    [5, 250, 'at least: a busy process reads a ticket late'],
  ])('without a session after a %i ms handshake, the held go after %i ms (%s)', (handshakeMs, waitMs) => {
    const { started, connect } = recordingConnector();
    connect(UNHELD_CONNECTS + 1);
    vi.advanceTimersByTime(handshakeMs);
    started[0]?.succeed();
    vi.advanceTimersByTime(waitMs - 1);
    expect(started).toHaveLength(UNHELD_CONNECTS);
    vi.advanceTimersByTime(1);
    expect(started).toHaveLength(UNHELD_CONNECTS + 1);
    connect(UNHELD_CONNECTS + 1);
    expect(started, 'a handshake completed: the pool is not held again').toHaveLength(
      2 * UNHELD_CONNECTS + 2,
    );
  });

  it(`unheld connects stuck in their connect hold the others for ${MAX_HOLD_MS} ms at most`, () => {
    const { started, connect } = recordingConnector();
    connect(UNHELD_CONNECTS + 1);
    vi.advanceTimersByTime(MAX_HOLD_MS - 1);
    expect(started).toHaveLength(UNHELD_CONNECTS);
    vi.advanceTimersByTime(1);
    expect(started).toHaveLength(UNHELD_CONNECTS + 1);
    started[0]?.succeed().emit('session', Buffer.from('ticket'));
    connect();
    expect(started, 'the late session still ended the holding').toHaveLength(UNHELD_CONNECTS + 2);
  });

  it('plain HTTP connects are never held', () => {
    const { started, connect } = recordingConnector();
    connect(UNHELD_CONNECTS + 2, 'http:');
    expect(started).toHaveLength(UNHELD_CONNECTS + 2);
  });
});
