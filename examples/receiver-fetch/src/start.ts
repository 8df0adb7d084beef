/**
 * `pnpm --filter @svc/example-receiver-fetch start`: the fetch-handler receiver
 * on PORT (default 4001) at /webhooks, served by node:http. Set WEBHOOK_SECRET
 * (comma-separated during a rotation). Plain HTTP: put it behind a TLS tunnel or
 * proxy, since the service delivers to https URLs only.
 */

import { createFetchServer } from './node-fetch-server';
import { createWebhookFetchHandler } from './webhook-handler';

const secrets = (process.env.WEBHOOK_SECRET ?? '')
  .split(',')
  .map((secret) => secret.trim())
  .filter((secret) => secret !== '');
if (secrets.length === 0) {
  console.error('Set WEBHOOK_SECRET to the signing secret shown by PUT /config or rotate-secret.');
  process.exit(1);
}

const port = Number(process.env.PORT ?? 4001);
const server = createFetchServer(
  createWebhookFetchHandler({
    secret: secrets,
    onDelivery: (envelope) => console.log(JSON.stringify(envelope, null, 2)),
  }),
);
server.listen(port, () => console.log(`receiver on http://localhost:${port}/webhooks`));
process.once('SIGINT', () => server.close(() => process.exit(0)));
