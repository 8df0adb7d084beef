/**
 * Child process for the latency benchmark: an HTTPS receiver that answers 200
 * and reports, for every delivery, its `entityId` and the epoch time it arrived
 * (`performance.timeOrigin + performance.now()`, sub-millisecond and comparable
 * across processes on one machine). Reports go to the parent over IPC in small
 * batches. Started by timing-receiver.ts; not meant to be imported.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getTestCertificate } from '@svc/test-support';

let arrivals: Array<[string, number]> = [];

function flush(): void {
  if (arrivals.length === 0) return;
  process.send?.({ type: 'arrivals', arrivals });
  arrivals = [];
}

const { key, cert } = await getTestCertificate();
const server = createServer({ key, cert, keepAliveTimeout: 30_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { entityId?: string };
    arrivals.push([String(body.entityId), at]);
    res.end('ok');
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ type: 'ready', url: `https://127.0.0.1:${port}/hooks`, ca: cert });
});
setInterval(flush, 20).unref();
process.on('disconnect', () => process.exit(0));
