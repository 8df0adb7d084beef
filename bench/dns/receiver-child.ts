/**
 * Child process of the DNS benchmark: one HTTPS receiver listening on many
 * ports of 127.0.0.1, so that the benchmark has many receivers (one origin
 * each) whether they are named by hostname (`r7.hooks.test:PORT`) or by IP
 * literal (`127.0.0.1:PORT`). Answers 200 "ok" and counts requests. Started
 * by receivers.ts; not meant to be imported.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getTestCertificate } from '@svc/test-support';

const count = Number(process.argv[2] ?? 1);
let received = 0;

const { key, cert } = await getTestCertificate();
const handle = (req: IncomingMessage, res: ServerResponse) => {
  req.on('data', () => {});
  req.on('end', () => {
    received += 1;
    res.end('ok');
  });
};
const ports: number[] = [];
for (let i = 0; i < count; i++) {
  const server = createServer({ key, cert, keepAliveTimeout: 30_000 }, handle);
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ports.push((server.address() as AddressInfo).port);
}
process.on('message', (message: { type: 'stats' }) => {
  if (message.type === 'stats') process.send?.({ type: 'stats', received });
});
process.send?.({ type: 'ready', ports, ca: cert });
process.on('disconnect', () => process.exit(0));
