import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import { createWebhookService, createWorker, type WebhookService, webhookIdOf } from '@svc/webhooks-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgWebhooks, type PgWebhooksOptions } from '../src/index';
import {
  createPoolerPool,
  createTestPool,
  createTestSchema,
  DATABASE_URL,
  describePooler,
  PGBOUNCER_URL,
  truncateSchema,
} from './pg-test-database';

const AGENCY = 'agency-pooled';

function cancelledJob(n: number) {
  return {
    agencyId: AGENCY,
    eventType: 'job_cancelled' as const,
    entityId: `job-${n}`,
    metadata: { jobId: `job-${n}`, agencyId: AGENCY, jobNumber: n, reason: 'Tenant moved out' },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the service reported through hooks.onError and its logger. */
interface Reports {
  hooks: Array<{ stage: string; code: unknown }>;
  logged: Array<{ stage: unknown; code: unknown }>;
}

describePooler('through PgBouncer in transaction mode, with the defaults', () => {
  const direct = createTestPool();
  const pooled = createPoolerPool({ max: 10 });
  let schema = '';
  let drop = async () => {};
  let receiver: TestReceiver;
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(direct));
    receiver = await startTestReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await drop();
    await Promise.all([direct.end(), pooled.end()]);
  });

  /** A service and a running worker on `pool`, recording what it reports. */
  async function start(options: Omit<PgWebhooksOptions, 'schema'>) {
    await truncateSchema(direct, schema);
    receiver.requests.length = 0;
    const reports: Reports = { hooks: [], logged: [] };
    const adapters = createPgWebhooks({ ...options, schema });
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (fields: Record<string, unknown>) => {
        reports.logged.push({ stage: fields.stage, code: (fields.err as { code?: unknown }).code });
      },
    };
    const webhooks: WebhookService = createWebhookService({
      ...adapters,
      urlPolicy: { allowPrivateNetworks: true },
      transport: { tls: { ca: receiver.ca } },
      logger,
      hooks: {
        onError: (error, context) => reports.hooks.push({ stage: context.stage, code: codeOf(error) }),
      },
    });
    await webhooks.putConfig(AGENCY, {
      webhookUrl: receiver.url,
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
    const worker = createWorker(webhooks, { concurrency: 16 });
    await worker.start();
    return {
      adapters,
      webhooks,
      reports,
      async stop() {
        await worker.stop();
        await webhooks.close();
        await adapters.close();
      },
    };
  }

  it('every emit is accepted and delivered, and the silent LISTEN is reported once, not hidden', async () => {
    const run = await start({ pool: pooled });
    try {
      const emitted = await Promise.allSettled(
        Array.from({ length: 500 }, (_, n) => run.webhooks.emit(cancelledJob(n))),
      );
      expect(emitted.filter((result) => result.status === 'rejected')).toEqual([]);
      await receiver.waitForRequests(500, 30_000);
      expect(new Set(receiver.requests.map((request) => request.headers['x-service-webhook-id'])).size).toBe(
        500,
      );
      const silent = { stage: 'queue', code: 'listen_silent' };
      expect(run.reports.hooks).toEqual([silent]);
      expect(run.reports.logged).toEqual([silent]);
      expect(run.adapters.queue.capabilities.wakeups).toBe(false);
      // An idle worker polls: a delivery emitted now arrives without any wake-up.
      const started = Date.now();
      await run.webhooks.emit(cancelledJob(500));
      await receiver.waitForRequests(501, 10_000);
      expect(Date.now() - started, 'ms from emit to the receiver while idle').toBeLessThan(2_000);
    } finally {
      await run.stop();
    }
  });

  it('with `listen` on a direct connection, LISTEN is heard and nothing is reported', async () => {
    const run = await start({ pool: pooled, listen: DATABASE_URL });
    try {
      await run.webhooks.emit(cancelledJob(1));
      await receiver.waitForRequests(1, 10_000);
      await sleep(200);
      expect(run.adapters.queue.capabilities.wakeups).toBe(true);
      // Idle, the worker waits for NOTIFY only: the next one wakes it at once.
      const waiting = run.adapters.queue.waitForWork({ timeoutMs: 60_000 });
      let woken = false;
      void waiting.then(() => {
        woken = true;
      });
      await sleep(300);
      expect(woken, 'an idle wait ended with nothing emitted').toBe(false);
      await run.webhooks.emit(cancelledJob(2));
      await waiting;
      await receiver.waitForRequests(2, 10_000);
      expect(run.reports.hooks).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it('with `listen` through the pooler too, its own notification never comes back: reported once', async () => {
    const run = await start({ pool: pooled, listen: PGBOUNCER_URL });
    try {
      const deadline = Date.now() + 10_000;
      while (run.reports.hooks.length === 0 && Date.now() < deadline) await sleep(50);
      expect(run.reports.hooks).toEqual([{ stage: 'queue', code: 'listen_silent' }]);
      expect(run.reports.logged).toEqual([{ stage: 'queue', code: 'listen_silent' }]);
      await run.webhooks.emit(cancelledJob(3));
      await receiver.waitForRequests(1, 10_000);
      await sleep(200);
      expect(run.reports.hooks, 'reported once').toHaveLength(1);
    } finally {
      await run.stop();
    }
  });

  it('transactional emit delivers every committed delivery and none rolled back', async () => {
    await direct.query(`CREATE TABLE IF NOT EXISTS "${schema}".host_jobs (id text PRIMARY KEY)`);
    const run = await start({ pool: pooled });
    const hosts = createPoolerPool({ max: 8 });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, async (_, n) => {
          const client = await hosts.connect();
          const end = n % 2 === 0 ? 'COMMIT' : 'ROLLBACK';
          try {
            await client.query('BEGIN');
            await client.query(`INSERT INTO "${schema}".host_jobs (id) VALUES ($1)`, [`job-${n}`]);
            const emitted = await run.webhooks.emit(cancelledJob(n), { transaction: client });
            await client.query(end);
            return { end, deliveryId: emitted!.deliveryId };
          } finally {
            client.release();
          }
        }),
      );
      const committed = outcomes
        .filter((each) => each.end === 'COMMIT')
        .map((each) => webhookIdOf(each.deliveryId));
      await receiver.waitForRequests(committed.length, 15_000);
      await sleep(300);
      const seen = receiver.requests.map((request) => String(request.headers['x-service-webhook-id']));
      expect(seen.sort()).toEqual(committed.sort());
      expect(run.reports.hooks.filter((report) => report.code !== 'listen_silent')).toEqual([]);
    } finally {
      await hosts.end();
      await run.stop();
    }
  });
});

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown }).code;
}
