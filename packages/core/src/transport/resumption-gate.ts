import type { TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';

/*
 * TLS session resumption for a herd of connects to an origin not yet connected to.
 *
 * undici keeps each pool's latest TLS session and offers it on the next
 * connect, so a resumed handshake skips the certificate chain check on our
 * side and the signature on the receiver's. But the connects of a burst all
 * start before any of them has a session: a worker starting on a backlog for
 * a receiver shared by many agencies opens up to `connectionsPerOrigin` full
 * handshakes at once, and the receiver takes the whole herd. On the isolation
 * benchmark's shared origin (a cold pool of 256 connections: 16 full handshakes
 * and 240 resumed instead of 256 full), the all-healthy rate rose by about 18 %.
 *
 * So until a pool has completed one handshake, only its first TLS connect
 * goes at once; the ones asked for meanwhile are held until it brings a
 * session (TLS 1.3 sends its ticket a round trip after the handshake), then
 * go together and resume it. Holding costs the held ones about three round
 * trips (the first handshake, the ticket, then their own) on their first
 * attempt to a new origin only.
 *
 * Letting a burst as large as an agency's cap (8) go unheld made every
 * connect of such a burst a full handshake whenever its attempts reached the
 * pool together, which is what a cold hostname does: its attempts wait for one
 * shared lookup and are released at once. On the DNS benchmark (200 origins,
 * a cold cache) that doubled the full handshakes of the hostname path (400
 * against 200 by IP literal, whose attempts reach their pools one by one), and
 * a full handshake cost the sender about twice a resumed one; see
 * docs/benchmarks.md, section "DNS". Once a handshake has completed, nothing
 * is held again. A held connect also goes on its own when the unheld one has
 * failed (no session is coming) or after MAX_HOLD_MS.
 */

/** First connects of a pool that never wait for a session. */
export const UNHELD_CONNECTS = 1;
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
 * Wraps a pool's connector so that, before its first completed handshake, the
 * connects beyond the first {@link UNHELD_CONNECTS} wait to resume a session instead of
 * making full handshakes (see the comment at the top of this file).
 */
export function holdForFirstSession(connect: Connector): Connector {
  /** Set once a handshake has completed: from then on nothing is held. */
  let handshakeCompleted = false;
  /** Unheld connects that may still bring a session: connecting, or waiting for their ticket. */
  let unsettled = 0;
  let held: Array<() => void> = [];
  let holdTimer: NodeJS.Timeout | undefined;

  const releaseHeld = () => {
    clearTimeout(holdTimer);
    holdTimer = undefined;
    const starts = held;
    held = [];
    for (const start of starts) start();
  };
  const settle = (completed: boolean) => {
    unsettled -= 1;
    if (completed) handshakeCompleted = true;
    if (completed || unsettled === 0) releaseHeld();
  };

  return (options, callback: ConnectCallback) => {
    if (handshakeCompleted || options.protocol !== 'https:') return connect(options, callback);
    if (unsettled >= UNHELD_CONNECTS) {
      held.push(() => connect(options, callback));
      holdTimer ??= setTimeout(releaseHeld, MAX_HOLD_MS);
      return;
    }
    unsettled += 1;
    const startedAt = performance.now();
    connect(options, (...args) => {
      const [error, socket] = args;
      if (error || !socket) settle(false);
      else whenSessionArrives(socket as TLSSocket, performance.now() - startedAt, () => settle(true));
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
