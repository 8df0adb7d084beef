/**
 * `pnpm --filter @svc/example-express-host start`: runs the example host on
 * PORT (default 3000). Environment:
 * - `DEMO_TOKENS`: `token:agencyId:role[:inactive],…` (default: see DEFAULT_DEMO_TOKENS)
 * - `WEBHOOKS_STORE` / `DATABASE_URL` / `REDIS_URL`: the backend (memory by default)
 * - `WEBHOOKS_ALLOW_HTTP=1`, `WEBHOOKS_ALLOW_PRIVATE=1`: accept http:// and private
 *   addresses (localhost receivers) — local development only, never in production
 */
import type { Server } from 'node:http';
import { openBackend } from './backend';
import { createHostApp, PORTAL_PATH } from './host-app';
import { DEFAULT_DEMO_TOKENS } from './static-tokens';

const port = Number(process.env.PORT ?? 3000);
const allowHttp = process.env.WEBHOOKS_ALLOW_HTTP === '1';
const allowPrivateNetworks = process.env.WEBHOOKS_ALLOW_PRIVATE === '1';

const backend = await openBackend();
const host = await createHostApp({
  store: backend.store,
  queue: backend.queue,
  service: { urlPolicy: { allowHttp, allowPrivateNetworks } },
  demoEmit: true,
  portal: true,
  endpointDisabledNotifier: {
    // A real host looks the agency's owner up in its own records and hands the e-mail to its mailer.
    contactFor: async (agencyId) => `owner@${agencyId}.example`,
    sendEmail: async (email) => console.log(`[e-mail to ${email.to}] ${email.subject}\n${email.text}`),
    settingsUrl: process.env.WEBHOOKS_SETTINGS_URL ?? `http://localhost:${port}/settings/webhooks`,
  },
});
const server: Server = host.app.listen(port, () => {
  console.log(`webhooks host on http://localhost:${port} (store: ${backend.kind})`);
  console.log(`  management API: http://localhost:${port}/v1/agency/webhooks   OpenAPI: /openapi.json`);
  console.log(`  tokens: ${process.env.DEMO_TOKENS ?? DEFAULT_DEMO_TOKENS}`);
  console.log(`  portal: http://localhost:${port}${PORTAL_PATH}/#token=<a token above>`);
  if (allowHttp || allowPrivateNetworks)
    console.warn('  URL policy relaxed for local development: do not expose this host.');
});

async function shutdown(signal: string): Promise<void> {
  console.log(`${signal}: stopping`);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await host.close();
  await backend.close();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    shutdown(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
