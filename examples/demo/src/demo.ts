/**
 * `pnpm demo`: the whole product end to end on the in-memory default. A host
 * application (the Express router plus a worker) and a local HTTPS receiver
 * (the Express receiver example) run in this process; every management call
 * goes over HTTP, as a user's client would make it. Exits 0 only when every
 * check held.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createHostApp,
  createStaticAuthenticate,
  type HostApp,
  PORTAL_PATH,
  parseStaticTokens,
} from '@svc/example-express-host';
import { createApiClient } from './api-client';
import { startDemoReceiver } from './demo-receiver';
import {
  createConfiguration,
  type DemoContext,
  deliverThreeEvents,
  failAndReplay,
  rotateSecret,
  sendTestEvents,
  showDeliveryList,
} from './demo-steps';
import { operateDeliveries } from './operations-steps';
import { DemoCheckFailed, section } from './report';

const AGENCY_ID = 'agency-1';
const TOKENS = `tok_owner:${AGENCY_ID}:owner,tok_agent:${AGENCY_ID}:agent`;

async function startHost(receiverCa: string): Promise<{ host: HostApp; server: Server; url: string }> {
  const host = await createHostApp({
    authenticate: createStaticAuthenticate(parseStaticTokens(TOKENS)),
    service: {
      // The receiver listens on 127.0.0.1 with a self-signed certificate: allowed for this demo only.
      urlPolicy: { allowPrivateNetworks: true },
      transport: { tls: { ca: receiverCa } },
      // Five attempts 100 ms apart instead of minutes and hours, so a failure shows in a second.
      retry: { schedule: [100, 100, 100, 100], jitterRatio: 0 },
      // The five 503s open the agency's circuit breaker; on the demo's scale it probes after 300 ms, not 30 s.
      circuitBreaker: { openMs: 300, maxOpenMs: 300 },
    },
    worker: { pollIntervalMs: 50 },
    demoEmit: true,
    portal: true,
  });
  const server = host.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { host, server, url: `http://127.0.0.1:${port}` };
}

async function main(): Promise<number> {
  const started = Date.now();
  const receiver = await startDemoReceiver();
  const { host, server, url } = await startHost(receiver.ca);
  console.log('@svc/webhooks demo (in-memory store)');
  console.log(`  host:     ${url}/v1/agency/webhooks  (owner token tok_owner)`);
  console.log(`  receiver: ${receiver.url}  (verifies every signature)`);
  console.log(`  portal:   ${url}${PORTAL_PATH}/#token=tok_owner`);
  const ctx: DemoContext = {
    api: createApiClient(url, 'tok_owner'),
    receiver,
    agencyId: AGENCY_ID,
    agentRoleToken: 'tok_agent',
  };
  try {
    const secret = await createConfiguration(ctx);
    await deliverThreeEvents(ctx);
    section('3. The delivery list');
    await showDeliveryList(ctx, 3);
    const replayedId = await failAndReplay(ctx);
    await operateDeliveries(ctx, replayedId);
    await rotateSecret(ctx, secret);
    await sendTestEvents(ctx);
    section('8. The delivery list at the end (test events are not logged)');
    await showDeliveryList(ctx, 7);
    console.log(
      `\nDemo complete: every step behaved as expected (${((Date.now() - started) / 1000).toFixed(1)} s).`,
    );
    if (staysOpen()) await servePortalUntilStopped(`${url}${PORTAL_PATH}/#token=tok_owner`);
    return 0;
  } catch (error) {
    console.error(
      `\n✘ ${error instanceof DemoCheckFailed ? error.message : String((error as Error).stack ?? error)}`,
    );
    return 1;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await host.close();
    await receiver.close();
  }
}

/**
 * A person at a terminal gets the host kept running so the portal can be opened on the demo's
 * data; CI, a pipe or `--exit` ends the demo with its checks.
 */
function staysOpen(): boolean {
  return process.stdout.isTTY === true && process.env.CI !== 'true' && !process.argv.includes('--exit');
}

async function servePortalUntilStopped(portalUrl: string): Promise<void> {
  section('9. The agency portal');
  console.log(`  Open ${portalUrl}`);
  console.log('  (the demo agency signed in as its owner; press Ctrl-C to stop)');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

process.exitCode = await main();
