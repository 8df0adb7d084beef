import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** A request exactly as the test wants it on the wire: any bytes, repeated headers. */
export interface RawRequest {
  method: string;
  /** Path and query, sent as given (no encoding added). */
  path: string;
  /** A header given as an array is sent once per value, as separate header lines. */
  headers?: Record<string, string | string[]>;
  body?: Buffer;
}

/** What came back, with the body kept as text (an HTML or plain answer must be visible). */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** A listening copy of the app, for requests that supertest cannot shape (repeated headers). */
export interface RawServer {
  send(request: RawRequest): Promise<RawResponse>;
  close(): Promise<void>;
}

export async function listen(app: Express): Promise<RawServer> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    send: (raw) => send(port, raw),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(port: number, raw: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: raw.method, path: raw.path, agent: false });
    for (const [name, value] of Object.entries(raw.headers ?? {})) req.setHeader(name, value);
    if (raw.body !== undefined) req.setHeader('content-length', String(raw.body.length));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.end(raw.body);
  });
}
