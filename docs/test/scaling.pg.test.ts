import { hostResolver, startTestReceiver } from '@svc/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { countPendingDeliveries, startWorkerProcess } from '../examples/scaling-worker';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function unreachableReason(): Promise<string | null> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unreachable = await unreachableReason();
if (unreachable !== null) {
  const message = `PostgreSQL at ${DATABASE_URL} is unreachable (${unreachable}).`;
  if (process.env.CI === 'true') throw new Error(`${message} CI=true requires it.`);
  console.warn(`\n!!! SKIPPING the scaling guide sample: ${message} Set DATABASE_URL to run it. !!!\n`);
}

const schema = `docs_scaling_${process.pid}_${Date.now().toString(36)}`;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });

afterAll(async () => {
  if (unreachable === null) await pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  await pool.end();
});

describe.skipIf(unreachable !== null)('scaling sample: worker processes sharing PostgreSQL', () => {
  it('three workers deliver every delivery, and the pending count falls to zero', async () => {
    const receiver = await startTestReceiver();
    const shared = {
      urlPolicy: { allowPrivateNetworks: true, resolve: hostResolver({ 'hooks.test': '127.0.0.1' }) },
      transport: { tls: { ca: receiver.ca } },
    };
    const processes = await Promise.all(
      [1, 2, 3].map(() => startWorkerProcess(DATABASE_URL, schema, shared)),
    );
    try {
      const api = processes[0]!.webhooks;
      for (const agencyId of ['agency-1', 'agency-2']) {
        await api.putConfig(agencyId, {
          webhookUrl: `https://hooks.test:${receiver.port}/hooks`,
          enabled: true,
          subscribedEventTypes: ['job_cancelled'],
        });
      }
      const ids: string[] = [];
      for (let jobNumber = 1; jobNumber <= 20; jobNumber += 1) {
        const agencyId = jobNumber % 2 === 0 ? 'agency-2' : 'agency-1';
        const emitted = await api.emit({
          agencyId,
          eventType: 'job_cancelled',
          entityId: `job-${jobNumber}`,
          metadata: { jobId: `job-${jobNumber}`, agencyId, jobNumber, reason: 'scaling sample' },
        });
        ids.push(emitted!.deliveryId);
      }
      await receiver.waitForRequests(20, 15_000);
      const deadline = Date.now() + 10_000;
      while ((await countPendingDeliveries(pool, schema)) > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await countPendingDeliveries(pool, schema)).toBe(0);
      const webhookIds = receiver.requests.map((request) => request.headers['x-service-webhook-id']);
      expect(new Set(webhookIds)).toEqual(new Set(ids.map((id) => `whdel_${id}`)));
    } finally {
      for (const started of processes) await started.shutdown();
      await receiver.close();
    }
  });
});
