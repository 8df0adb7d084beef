import { subscribe } from 'node:diagnostics_channel';
import type { TLSSocket } from 'node:tls';

/** TLS handshakes the sender completed, full and resumed, counted from undici's `connected` channel. */
export interface HandshakeCount {
  full: number;
  resumed: number;
}

const counted: HandshakeCount = { full: 0, resumed: 0 };
subscribe('undici:client:connected', (message) => {
  const socket = (message as { socket?: Partial<TLSSocket> }).socket;
  if (typeof socket?.isSessionReused !== 'function') return;
  if (socket.isSessionReused()) counted.resumed += 1;
  else counted.full += 1;
});

/** Handshakes completed in this process so far. */
export function handshakesSoFar(): HandshakeCount {
  return { ...counted };
}

/** Handshakes completed between `before` and now. */
export function handshakesSince(before: HandshakeCount): HandshakeCount {
  return { full: counted.full - before.full, resumed: counted.resumed - before.resumed };
}
