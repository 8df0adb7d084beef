/**
 * Child process of the isolation benchmark: the receivers, in their own
 * process so that the sender's process is measured alone. Three HTTPS servers
 * on 127.0.0.1, one certificate (`*.hooks.test`, `hooks.test`, localhost):
 *
 * - `ok`: answers 200 "ok" once the request body is read;
 * - `hang`: completes the TLS handshake, reads the request and never answers
 *   (a hung app server behind a load balancer), until the sender gives up and
 *   closes the connection;
 * - `shared`: one origin for every agency, routed by path: `/hang/…` hangs
 *   like `hang`, anything else answers like `ok`.
 *
 * Paths are `/<ok|hang>/<tag>/<agency>`; requests are counted per tag (one tag
 * per measurement), so measurements that overlap (one still waiting for its
 * hanging attempts to time out while the next runs) keep separate counts. A
 * TLS connection's handshake (full or resumed) counts for the tag of its first
 * request.
 * Started by receivers.ts; not meant to be imported.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { getTestCertificate } from '@svc/test-support';
import type { FromReceiverChild, ReceiverCounts, ToReceiverChild } from './receivers';

const counts = new Map<string, ReceiverCounts>();

function countsOf(tag: string): ReceiverCounts {
  let entry = counts.get(tag);
  if (!entry) {
    entry = { answered: 0, hung: 0, open: 0, peakOpen: 0, handshakes: { full: 0, resumed: 0 } };
    counts.set(tag, entry);
  }
  return entry;
}

/** The tag of `/<kind>/<tag>/<agency>`, or '' for any other path. */
function tagOf(url: string | undefined): string {
  return url?.split('/')[2] ?? '';
}

/** How each connection's handshake went, until its first request counts it. */
const uncountedHandshakes = new WeakMap<object, 'full' | 'resumed'>();

function countHandshake(req: IncomingMessage, entry: ReceiverCounts): void {
  const handshake = uncountedHandshakes.get(req.socket);
  if (!handshake) return;
  uncountedHandshakes.delete(req.socket);
  entry.handshakes[handshake] += 1;
}

/** Reads the request and holds it open without ever answering; the sender's timeout ends it. */
function hang(req: IncomingMessage, res: ServerResponse): void {
  const entry = countsOf(tagOf(req.url));
  countHandshake(req, entry);
  entry.hung += 1;
  entry.open += 1;
  entry.peakOpen = Math.max(entry.peakOpen, entry.open);
  req.resume();
  res.once('close', () => {
    entry.open -= 1;
  });
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const entry = countsOf(tagOf(req.url));
  countHandshake(req, entry);
  req.resume();
  req.once('end', () => {
    entry.answered += 1;
    res.end('ok');
  });
}

const byPath = (req: IncomingMessage, res: ServerResponse) =>
  req.url?.startsWith('/hang/') ? hang(req, res) : answer(req, res);

const { key, cert } = await getTestCertificate();

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = createServer({ key, cert, keepAliveTimeout: 30_000 }, handler);
  server.on('clientError', (_error, socket) => socket.destroy());
  server.on('secureConnection', (socket: TLSSocket) => {
    uncountedHandshakes.set(socket, socket.isSessionReused() ? 'resumed' : 'full');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 1024, resolve));
  return (server.address() as AddressInfo).port;
}

const ports = { ok: await listen(answer), hang: await listen(hang), shared: await listen(byPath) };

process.on('message', (message: ToReceiverChild) => {
  if (message.type !== 'counts') return;
  const reply: FromReceiverChild = { type: 'counts', id: message.id, counts: countsOf(message.tag) };
  process.send?.(reply);
});
const ready: FromReceiverChild = { type: 'ready', ports, ca: cert };
process.send?.(ready);
process.on('disconnect', () => process.exit(0));
