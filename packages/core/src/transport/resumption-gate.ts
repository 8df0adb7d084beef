import type { TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';

/*
 * TLS session resumption for a burst to an origin not yet connected to.
 *
 * undici keeps each pool's latest TLS session and offers it on the next
 * connect, so a resumed handshake skips the certificate chain check on our
 * side and the signature on the receiver's. But the connects of a burst all
 * start before any of them has a session: a worker starting on a backlog, or a
 * receiver shared by many agencies, opens up to `connectionsPerOrigin` full
 * handshakes at once, and the receiver takes the whole herd. On the isolation
 * benchmark's shared origin (a cold pool of 256 connections), resuming them
 * raised the all-healthy rate by about 30 %.
 *
 * So until a pool has completed one handshake, its TLS connects go one at a
 * time: the first leads; the ones asked for meanwhile are held until it brings
 * a session (TLS 1.3 sends its ticket a round trip after the handshake), then
 * go together and resume it. Once one handshake has completed, nothing is held
 * again: the pool's cache stays filled from then on. A held connect starts
 * anyway when the leader fails (an unreachable receiver: no session is coming)
 * or after MAX_HOLD_MS (a leader stuck in its connect), so holding costs at
 * most a short delay, once per pool.
 */

/** The longest a connect is held for another's session, in ms. */
export const MAX_HOLD_MS = 1_000;
/**
 * The shortest wait for a session after the handshake, in ms. A wait as short as
 * a loopback handshake lost the race to a ticket already sent whenever the
 * process was busy or descheduled: its timer fired before the socket was read.
 */
const MIN_TICKET_WAIT_MS = 250;

type Connector = buildConnector.connector;
type ConnectCallback = Parameters<Connector>[1];

/**
 * Wraps a pool's connector so that its first TLS connect goes alone and those
 * that ask meanwhile resume its session (see the comment at the top of this file).
 */
export function holdForFirstSession(connect: Connector): Connector {
  /** Set once a handshake has completed: from then on nothing is held. */
  let handshakeCompleted = false;
  /** The connect that leads now, if any: only it may end the hold it started. */
  let leader: object | null = null;
  let held: Array<() => void> = [];
  let holdTimer: NodeJS.Timeout | undefined;

  const releaseHeld = (by: object) => {
    if (leader !== by) return;
    leader = null;
    clearTimeout(holdTimer);
    const starts = held;
    held = [];
    for (const start of starts) start();
  };

  return (options, callback: ConnectCallback) => {
    if (handshakeCompleted || options.protocol !== 'https:') return connect(options, callback);
    if (leader) {
      held.push(() => connect(options, callback));
      return;
    }
    const lead = {};
    leader = lead;
    holdTimer = setTimeout(() => releaseHeld(lead), MAX_HOLD_MS);
    const startedAt = performance.now();
    connect(options, (...args) => {
      const [error, socket] = args;
      if (error || !socket) releaseHeld(lead);
      else {
        whenSessionArrives(socket as TLSSocket, performance.now() - startedAt, () => {
          handshakeCompleted = true;
          releaseHeld(lead);
        });
      }
      callback(...args);
    });
  };
}

/**
 * Calls `then` once the socket's session can be resumed by another connect: on
 * its `session` event (which follows the handshake, in TLS 1.2 too, and by a
 * round trip in TLS 1.3, whose ticket comes after it), or when a session is no
 * longer to be expected: the socket closed, or as long again as the handshake
 * took (at least {@link MIN_TICKET_WAIT_MS}) has passed, as with a receiver
 * that issues no tickets.
 */
function whenSessionArrives(socket: TLSSocket, handshakeMs: number, then: () => void): void {
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    socket.off('session', finish);
    socket.off('close', finish);
    then();
  };
  const timer = setTimeout(finish, Math.min(MAX_HOLD_MS, Math.max(MIN_TICKET_WAIT_MS, handshakeMs)));
  socket.once('session', finish);
  socket.once('close', finish);
}
