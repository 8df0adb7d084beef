import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A fetch handler, as edge runtimes call it. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Serves a fetch handler with `node:http`: the few lines Hono's or Remix's Node
 * adapters are made of, so the example needs no framework.
 */
export function createFetchServer(handler: FetchHandler): Server {
  return createServer((req, res) => {
    handle(handler, req, res).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
}

async function handle(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const response = await handler(toRequest(req));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

function toRequest(req: IncomingMessage): Request {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, item);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, {
    method: req.method,
    headers,
    // The body stays a byte stream: verification needs the exact bytes that were signed.
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}
