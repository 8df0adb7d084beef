import { once } from 'node:events';
import {
  Agent,
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * Real-HTTP plumbing for the body-limit tests: an upload whose body the test writes (and may never end),
 * and a Node server that hands requests to a Fetch API handler the way adapters such as @hono/node-server
 * do. Node's own client, not fetch: it reports an answer that arrives while the body is still being sent.
 */

/** Starts `server` on 127.0.0.1 and returns its base URL. */
export async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stops `server`, cutting the connections of uploads a test left unfinished. */
export async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** The server's answer, its body read to the end. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A POST in progress: the test writes its body through `request`. */
export interface Upload {
  request: ClientRequest;
  /** Resolves with the answer, whether or not the body was finished. */
  answer: Promise<Answer>;
  /** Resolves when the connection has closed. */
  closed: Promise<void>;
}

/** Opens a POST to `url` with `headers` (the headers are sent at once) and leaves the body to the test. */
export function openUpload(url: string, headers: Record<string, string>): Upload {
  // A fresh keep-alive connection per upload: the client asks to keep it, so a closed one says the server
  // chose to close it after this request. (agent: false would send Connection: close itself.)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const request = httpRequest(url, { method: 'POST', headers, agent });
  // The server may close the connection while the body is still being written: expected, not a failure.
  request.on('error', () => {});
  const answer = new Promise<Answer>((resolve, reject) => {
    request.once('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.once('error', reject);
    });
    request.once('close', () => reject(new Error('the connection closed without an answer')));
  });
  answer.catch(() => {});
  const closed = new Promise<void>((resolve) => {
    request.once('socket', (socket) => socket.once('close', () => resolve()));
  });
  request.flushHeaders();
  return { request, answer, closed };
}

/**
 * Writes `chunk` to `request` for as long as the server reads it, and never ends the body. Returns a
 * counter of the bytes handed to the socket so far.
 */
export function writeForever(request: ClientRequest, chunk: Buffer): () => number {
  let written = 0;
  const pump = () => {
    while (!request.destroyed) {
      written += chunk.byteLength;
      if (!request.write(chunk)) {
        request.once('drain', pump);
        return;
      }
    }
  };
  pump();
  return () => written;
}

/** What a Fetch-adapter server saw of each request's Node stream when it answered. */
export interface StreamUse {
  /** Whether the Request's body stream ever asked the Node stream for data. */
  pulled: boolean;
  /** Whether the Node stream had emitted any data when the answer was written. */
  readableDidRead: boolean;
}

/**
 * A Node server answering with a Fetch API handler. The `Request` body pulls from the Node stream only
 * when read (high-water mark 0), so a body the handler leaves unread is not read off the socket either.
 */
export function serveFetch(handle: (request: Request) => Promise<Response>, uses: StreamUse[] = []): Server {
  return createServer(async (req, res) => {
    const use: StreamUse = { pulled: false, readableDidRead: false };
    const response = await handle(toRequest(req, use));
    use.readableDidRead = req.readableDidRead;
    uses.push(use);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

function toRequest(req: IncomingMessage, use: StreamUse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const hasBody =
    req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  return new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body: hasBody ? bodyStream(req, use) : null,
    duplex: 'half',
  } as RequestInit);
}

function bodyStream(req: IncomingMessage, use: StreamUse): ReadableStream<Uint8Array> {
  let detach = () => {};
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!use.pulled) {
          use.pulled = true;
          const onData = (chunk: Buffer) => {
            controller.enqueue(new Uint8Array(chunk));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          };
          const onEnd = () => controller.close();
          const onError = (error: Error) => controller.error(error);
          req.on('data', onData).once('end', onEnd).once('error', onError);
          detach = () => req.off('data', onData).off('end', onEnd).off('error', onError);
        }
        req.resume();
      },
      cancel() {
        // Drop the rest of the upload instead of buffering it.
        detach();
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}
