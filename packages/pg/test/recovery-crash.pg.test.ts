import { runRecoveryCrash, startTestReceiver } from '@svc/test-support';
import { createWebhookService } from '@svc/webhooks-core';
import { expect, it } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { spawnWorker } from './fixtures/worker-processes';
import { createTestPool, createTestSchema, DATABASE_URL, describePg } from './pg-test-database';

/** Short, so the killed worker's recoveries are taken over within seconds. */
const LEASE_MS = 3_000;

describePg('bulk recovery across worker processes', () => {
  it('a recovery of 5,000 failed deliveries survives a SIGKILLed worker: each one replayed exactly once', async () => {
    const pool = createTestPool();
    const { schema, drop } = await createTestSchema(pool);
    const receiver = await startTestReceiver({ respond: () => ({ status: 422 }) });
    try {
      const adapters = createPgWebhooks({ pool, schema, notify: false });
      const webhooks = createWebhookService({ ...adapters, urlPolicy: { allowPrivateNetworks: true } });
      const settings = {
        databaseUrl: DATABASE_URL,
        schema,
        ca: receiver.ca,
        concurrency: 32,
        leaseMs: LEASE_MS,
      };
      const result = await runRecoveryCrash({
        webhooks,
        receiverUrl: receiver.url,
        spawnWorker: () => spawnWorker({ ...settings, report: false }),
      });

      expect(result.replayedAtKill, 'killed part way').toBeLessThan(5_000);
      for (const recovery of result.recoveries) {
        expect(recovery).toMatchObject({ status: 'completed', matched: 1_250, replayed: 1_250 });
      }
      expect(result.recoveryAttempts.size).toBe(5_000);
      const counts = new Map<number, number>();
      for (const count of result.recoveryAttempts.values()) counts.set(count, (counts.get(count) ?? 0) + 1);
      expect(Object.fromEntries(counts), 'deliveries by recovery attempts').toEqual({ 1: 5_000 });
    } finally {
      await receiver.close();
      await drop();
      await pool.end();
    }
  }, 180_000);
});
