import { FAST_RETRY, jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { afterEach, expect, it } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { createTestPool, describePg, useTestSchema } from './pg-test-database';

// The walk of a bulk recovery on a shared database keeps its replays a few pages ahead of the
// agency's deliveries (core's RecoveryPace), counted through the store's countDeliveries.

describePg('bulk recovery pace on PostgreSQL', () => {
  const pool = createTestPool();
  const db = useTestSchema(pool);
  let harness: ServiceHarness | undefined;
  let closeAdapters: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await harness?.close();
    await closeAdapters?.();
    harness = undefined;
    closeAdapters = undefined;
  });

  it('keeps its replays a few pages ahead of the agency instead of queueing the whole window', async () => {
    const { store, queue, close } = createPgWebhooks({ pool, schema: db.schema });
    closeAdapters = close;
    harness = await startServiceHarness({
      store: () => store,
      queue: () => queue,
      service: { retry: { ...FAST_RETRY, maxAttempts: 1 }, circuitBreaker: false },
      worker: { pollIntervalMs: 20, bulkRecovery: { pollIntervalMs: 20, pageSize: 5 } },
    });
    const { webhooks, receiver } = harness;
    receiver.respond(() => ({ status: 500 }));
    await harness.configure('agency-a');
    const since = Date.now();
    const ids: string[] = [];
    for (let n = 0; n < 100; n++) ids.push((await webhooks.emit(jobCancelled('agency-a', n)))!.deliveryId);
    for (const id of ids) await harness.waitForStatus('agency-a', id, 'failed');
    // Slower answers than the walk writes pages: a few hundred deliveries a second within the agency's limit.
    receiver.respond(() => ({ status: 204, hangMs: 30 }));

    const started = await webhooks.recoverDeliveries('agency-a', { since });
    let mostWaiting = 0;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const waiting = await store.countDeliveries!('agency-a', { status: 'pending', createdSince: since });
      mostWaiting = Math.max(mostWaiting, waiting);
      const recovery = await webhooks.getRecovery('agency-a', started.recoveryId);
      if (recovery.status !== 'running') {
        expect(recovery).toMatchObject({ status: 'completed', matched: 100, replayed: 100 });
        break;
      }
      expect(Date.now(), 'the recovery to complete').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Four pages of five ahead, and the page being written: never the window's hundred at once.
    expect(mostWaiting).toBeGreaterThan(0);
    expect(mostWaiting).toBeLessThanOrEqual(4 * 5 + 5);
    for (const id of ids) await harness.waitForStatus('agency-a', id, 'success');
  }, 60_000);
});
