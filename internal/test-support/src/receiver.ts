import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { getTestCertificate } from './certificate';

/** A request as the test receiver saw it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query, e.g. `/hooks?x=1`. */
  path: string;
  /** Lower-cased header names, as Node gives them. */
  headers: IncomingHttpHeaders;
  /** The body exactly as received, decoded as UTF-8. */
  rawBody: string;
  /** Epoch ms when the whole body had arrived. */
  receivedAt: number;
  /** TLS SNI name the client sent; null when none (IP-literal hosts send none). */
  servername: string | null;
  /** Client port of the connection: equal ports mean a reused keep-alive connection. */
  remotePort: number;
}

/** How the receiver answers one request. */
export interface ResponsePlan {
  /** @default 200, or 302 with `redirectTo` */
  status?: number;
  headers?: Record<string, string>;
  /** @default 'ok' */
  body?: string;
  /** Wait this long (ms) before answering at all. */
  hangMs?: number;
  /** Send the status and headers, then body bytes until the client goes away. */
  endlessBody?: boolean;
  /** Send the status, headers and these first body bytes, then nothing more until the client goes away. */
  stallAfter?: string;
  /** Answer a redirect to this URL (sets `location`). */
  redirectTo?: string;
}

/** Decides the answer to each request; may be async. */
export type ResponseHandler = (request: ReceivedRequest) => ResponsePlan | Promise<ResponsePlan>;

/** Options of {@link startTestReceiver}. */
export interface TestReceiverOptions {
  /**
   * Path of `url`.
   * @default '/hooks'
   */
  path?: string;
  /**
   * Initial behaviour.
   * @default answers 200 "ok"
   */
  respond?: ResponseHandler;
}

/** A running local HTTPS receiver. */
export interface TestReceiver {
  /** `https://127.0.0.1:PORT/hooks` */
  url: string;
  /** The receiver's URL for another path, e.g. `urlFor('/other')`. */
  urlFor(path: string): string;
  /** PEM certificate to trust, for `transport.tls.ca`. */
  ca: string;
  port: number;
  /** Every request received so far, in arrival order. */
  requests: ReceivedRequest[];
  /** Replaces how the receiver answers from now on. */
  respond(handler: ResponseHandler): void;
  /** Resolves once at least `count` requests have arrived; rejects after `timeoutMs` (default 5000). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and drops every open connection, hanging ones included. */
  close(): Promise<void>;
}

const ENDLESS_CHUNK = Buffer.alloc(16 * 1024, 'x');
const answerOk: ResponseHandler = () => ({ status: 200, body: 'ok' });

async function readRequest(req: IncomingMessage): Promise<ReceivedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    headers: req.headers,
    rawBody: Buffer.concat(chunks).toString('utf8'),
    receivedAt: Date.now(),
    servername: (req.socket as TLSSocket).servername || null,
    remotePort: req.socket.remotePort ?? 0,
  };
}

/** Writes body bytes as fast as the client takes them, until the connection closes. */
function writeForever(res: ServerResponse): void {
  const pump = () => {
    while (!res.destroyed && res.write(ENDLESS_CHUNK)) {
      // keep writing until the socket buffer is full
    }
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

function sendPlan(res: ServerResponse, plan: ResponsePlan): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = { ...plan.headers };
  if (plan.redirectTo !== undefined) headers.location = plan.redirectTo;
  res.writeHead(plan.status ?? (plan.redirectTo === undefined ? 200 : 302), headers);
  if (plan.endlessBody) writeForever(res);
  else if (plan.stallAfter !== undefined) res.write(plan.stallAfter);
  else res.end(plan.body ?? 'ok');
}

/**
 * Starts a real HTTPS receiver on 127.0.0.1 with a random port and a
 * self-signed certificate (valid for localhost, hooks.test, 127.0.0.1, ::1).
 *
 * @example
 * ```ts
 * const receiver = await startTestReceiver();
 * receiver.respond(() => ({ status: 500 }));
 * const transport = createTransport({ urlPolicy, tls: { ca: receiver.ca } });
 * await receiver.close();
 * ```
 */
export async function startTestReceiver(options: TestReceiverOptions = {}): Promise<TestReceiver> {
  const { key, cert } = await getTestCertificate();
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const hangs = new Map<ReturnType<typeof setTimeout>, () => void>();
  let handler = options.respond ?? answerOk;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        hangs.delete(timer);
        resolve();
      }, ms);
      hangs.set(timer, resolve);
    });

  const server = createServer({ key, cert }, async (req, res) => {
    res.on('error', () => undefined);
    try {
      const request = await readRequest(req);
      requests.push(request);
      for (const wake of waiters) wake();
      const plan = await handler(request);
      if (plan.hangMs) await wait(plan.hangMs);
      sendPlan(res, plan);
    } catch (error) {
      // A throwing handler is a bug in the test; answer 500 with the reason rather than crash the process.
      if (res.headersSent) res.destroy();
      else sendPlan(res, { status: 500, body: `test receiver handler failed: ${String(error)}` });
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const urlFor = (path: string) => `https://127.0.0.1:${port}${path.startsWith('/') ? path : `/${path}`}`;

  return {
    url: urlFor(options.path ?? '/hooks'),
    urlFor,
    ca: cert,
    port,
    requests,
    respond(next) {
      handler = next;
    },
    waitForRequests(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`Expected ${count} requests within ${timeoutMs} ms, got ${requests.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      // Hanging answers end now; their sockets are already gone, so nothing more is sent.
      for (const [timer, wake] of hangs) {
        clearTimeout(timer);
        wake();
      }
      hangs.clear();
      await closed;
    },
  };
}
