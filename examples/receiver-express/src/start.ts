/**
 * `pnpm --filter @svc/example-receiver-express start`: a receiver on PORT
 * (default 4000) at /webhooks. Environment:
 * - `WEBHOOK_SECRET` (required): the signing secret; during a rotation pass both, comma-separated
 * - `TLS_CERT`, `TLS_KEY`: PEM files to serve HTTPS (the service only delivers to https URLs);
 *   without them it serves plain HTTP, for use behind a TLS-terminating tunnel or proxy
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createReceiverApp } from './receiver-app';

const secrets = (process.env.WEBHOOK_SECRET ?? '')
  .split(',')
  .map((secret) => secret.trim())
  .filter((secret) => secret !== '');
if (secrets.length === 0) {
  console.error('Set WEBHOOK_SECRET to the signing secret shown by PUT /config or rotate-secret.');
  process.exit(1);
}

const app = createReceiverApp({
  secret: secrets,
  onDelivery: (envelope) => {
    console.log(JSON.stringify(envelope, null, 2));
    return 204;
  },
});
const port = Number(process.env.PORT ?? 4000);
const tls = process.env.TLS_CERT && process.env.TLS_KEY;
const server = tls
  ? createHttpsServer(
      { cert: readFileSync(process.env.TLS_CERT!), key: readFileSync(process.env.TLS_KEY!) },
      app,
    )
  : createHttpServer(app);
server.listen(port, () => console.log(`receiver on ${tls ? 'https' : 'http'}://localhost:${port}/webhooks`));
process.once('SIGINT', () => server.close(() => process.exit(0)));
