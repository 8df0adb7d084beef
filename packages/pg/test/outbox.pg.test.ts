import { startTestReceiver, type TestReceiver } from '@svc/test-support';
import { createWebhookService, createWorker, DeliveryNotFoundError, webhookIdOf } from '@svc/webhooks-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { createTestPool, createTestSchema, describePg } from './pg-test-database';

const AGENCY = 'agency-outbox';

function cancelledJob(jobId: string) {
  return {
    agencyId: AGENCY,
    eventType: 'job_cancelled' as const,
    entityId: jobId,
    metadata: { jobId, agencyId: AGENCY, jobNumber: 7, reason: 'Tenant moved out' },
  };
}

/** Reads the delivery until it is no longer pending (the test timeout bounds the wait). */
async function settled(read: () => Promise<{ status: string }>) {
  for (;;) {
    const delivery = await read();
    if (delivery.status !== 'pending') return delivery;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describePg('transactional emit (outbox) through the real service', () => {
  const pool = createTestPool();
  let schema = '';
  let drop = async () => {};
  let receiver: TestReceiver;
  let adapters: ReturnType<typeof createPgWebhooks>;
  let webhooks: ReturnType<typeof createWebhookService>;
  let worker: ReturnType<typeof createWorker>;

  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(pool));
    await pool.query(`CREATE TABLE "${schema}".host_jobs (id text PRIMARY KEY, status text NOT NULL)`);
    receiver = await startTestReceiver();
    adapters = createPgWebhooks({ pool, schema });
    webhooks = createWebhookService({
      ...adapters,
      urlPolicy: { allowPrivateNetworks: true },
      transport: { tls: { ca: receiver.ca } },
    });
    await webhooks.putConfig(AGENCY, {
      webhookUrl: receiver.url,
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
    worker = createWorker(webhooks, { concurrency: 4 });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await webhooks?.close();
    await adapters?.close();
    await receiver?.close();
    await drop();
    await pool.end();
  });

  /** The host's own write and the emit, in one transaction that ends with `end`. */
  async function cancelJob(jobId: string, end: 'COMMIT' | 'ROLLBACK') {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO "${schema}".host_jobs (id, status) VALUES ($1, 'cancelled')`, [jobId]);
      const emitted = await webhooks.emit(cancelledJob(jobId), { transaction: client });
      await client.query(end);
      return emitted!.deliveryId;
    } finally {
      client.release();
    }
  }

  it('rolled back: neither the host row nor the delivery exists, and nothing is sent', async () => {
    const deliveryId = await cancelJob('job-rolled-back', 'ROLLBACK');
    await expect(webhooks.getDelivery(AGENCY, deliveryId)).rejects.toBeInstanceOf(DeliveryNotFoundError);
    const { rows } = await pool.query(`SELECT id FROM "${schema}".host_jobs`);
    expect(rows).toEqual([]);
  });

  it('committed: the delivery is sent, recorded as success, and it is the only request the receiver saw', async () => {
    const deliveryId = await cancelJob('job-committed', 'COMMIT');
    const [request] = await receiver.waitForRequests(1, 20_000);
    expect(request?.headers['x-service-webhook-id']).toBe(webhookIdOf(deliveryId));
    expect(JSON.parse(request!.rawBody)).toMatchObject({ entityId: 'job-committed', attempt: 1 });
    const delivery = await settled(() => webhooks.getDelivery(AGENCY, deliveryId));
    expect(delivery).toMatchObject({ status: 'success', attempt: 1, lastResponseCode: 200 });
    // The rolled-back emit of the previous test never reached the receiver.
    expect(receiver.requests).toHaveLength(1);
  });

  it('emit without a transaction is delivered too, and listed newest first', async () => {
    const emitted = await webhooks.emit(cancelledJob('job-plain'));
    await receiver.waitForRequests(2, 20_000);
    await settled(() => webhooks.getDelivery(AGENCY, emitted!.deliveryId));
    const list = await webhooks.listDeliveries(AGENCY, { limit: 1 });
    expect(list.deliveries.map((delivery) => delivery.id)).toEqual([emitted!.deliveryId]);
    const next = await webhooks.listDeliveries(AGENCY, { limit: 1, cursor: list.nextCursor! });
    expect(next.deliveries).toHaveLength(1);
    expect(next.nextCursor).toBeNull();
  });
});
