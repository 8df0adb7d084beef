import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createHostApp, type HostApp, PORTAL_PATH } from '@svc/example-express-host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standaloneScriptPath } from '../src/assets';

/** One GET of the portal's script, its body as the bytes on the wire (no client decompression). */
function fetchScript(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    }).on('error', reject);
  });
}

describe('portal.js served by createWebhooksPortal', () => {
  let host: HostApp;
  let server: Server;
  let url: string;
  const plain = readFileSync(standaloneScriptPath);

  beforeAll(async () => {
    host = await createHostApp({ authenticate: async () => null, portal: true });
    server = host.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PORTAL_PATH}/portal.js`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await host.close();
  });

  it('sends brotli to a browser that takes it, the same script once decompressed, and a quarter of its size', async () => {
    const answer = await fetchScript(url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(brotliDecompressSync(answer.body).equals(plain)).toBe(true);
    expect(answer.body.length).toBeLessThan(plain.length / 4);
  });

  it('sends gzip when brotli is not taken, and the plain script when nothing is', async () => {
    const gzip = await fetchScript(url, { 'accept-encoding': 'gzip, br;q=0' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);
    expect(gzip.headers.vary).toBe('Accept-Encoding');

    for (const acceptEncoding of [undefined, 'identity', 'gzip;q=0, br;q=0', 'deflate']) {
      const answer = await fetchScript(
        url,
        acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
      );
      expect(answer.headers['content-encoding'], String(acceptEncoding)).toBeUndefined();
      expect(answer.body.equals(plain), String(acceptEncoding)).toBe(true);
      expect(answer.headers.vary).toBe('Accept-Encoding');
    }
    const anything = await fetchScript(url, { 'accept-encoding': '*' });
    expect(anything.headers['content-encoding']).toBe('br');
  });

  it('gives each encoding its own entity tag and answers 304 to the matching one only', async () => {
    const br = await fetchScript(url, { 'accept-encoding': 'br' });
    const gzip = await fetchScript(url, { 'accept-encoding': 'gzip' });
    const identity = await fetchScript(url, {});
    const tags = [br, gzip, identity].map((answer) => answer.headers.etag);
    expect(new Set(tags).size).toBe(3);

    const again = await fetchScript(url, {
      'accept-encoding': 'br',
      'if-none-match': String(br.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const other = await fetchScript(url, {
      'accept-encoding': 'gzip',
      'if-none-match': String(br.headers.etag),
    });
    expect(other.status).toBe(200);
    expect(other.headers['content-encoding']).toBe('gzip');
  });
});
