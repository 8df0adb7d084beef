/**
 * Child process of the DNS benchmark: HTTPS receivers, each on its own
 * loopback address (`127.0.0.2`, `127.0.0.3`, …) and port, all with one
 * certificate valid for `*.hooks.test` and every one of those addresses, so
 * that the same receivers can be named by hostname (`r7.hooks.test:PORT`,
 * resolved to its address) or by IP literal (`127.0.0.9:PORT`). Answers
 * 200 "ok" and counts requests. Started by receivers.ts; not meant to be imported.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateTestCertificate } from '@svc/test-support';

const addresses = (process.argv[2] ?? '127.0.0.1').split(',');
let received = 0;

const { key, cert } = await generateTestCertificate(['*.hooks.test', ...addresses]);
const handle = (req: IncomingMessage, res: ServerResponse) => {
  req.on('data', () => {});
  req.on('end', () => {
    received += 1;
    res.end('ok');
  });
};
const ports: number[] = [];
for (const address of addresses) {
  const server = createServer({ key, cert, keepAliveTimeout: 30_000 }, handle);
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  ports.push((server.address() as AddressInfo).port);
}
process.on('message', (message: { type: 'stats' }) => {
  if (message.type === 'stats') process.send?.({ type: 'stats', received });
});
process.send?.({ type: 'ready', ports, ca: cert });
process.on('disconnect', () => process.exit(0));
