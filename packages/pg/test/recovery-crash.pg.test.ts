import { startTestReceiver } from '@svc/test-support';
import { expectEachReplayedOnce, runRecoveryCrash } from '@svc/test-support/recovery-crash';
import { createWebhookService } from '@svc/webhooks-core';
import { it } from 'vitest';
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

      expectEachReplayedOnce(result);
    } finally {
      await receiver.close();
      await drop();
      await pool.end();
    }
  }, 180_000);
});
