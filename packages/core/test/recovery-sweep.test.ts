import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../src/errors';
import { createMemoryQueue } from '../src/memory/memory-queue';
import { createMemoryStore } from '../src/memory/memory-store';
import { createWebhookService } from '../src/service/service';
import { makeDeliveryRecord } from '../src/testing/delivery-record-builder';
import { createRecoverySweep } from '../src/worker/recovery-sweep';
import { createWorker } from '../src/worker/worker';

const T0 = 1_700_000_000_000;
const GRACE = 60_000;

async function scenario() {
  const store = createMemoryStore();
  const queue = createMemoryQueue();
  const lost = makeDeliveryRecord({ nextRetryAt: T0 - 2 * GRACE });
  const skipped = makeDeliveryRecord({ nextRetryAt: T0 - 3 * GRACE });
  const recent = makeDeliveryRecord({ nextRetryAt: T0 - GRACE / 2 });
  const finished = makeDeliveryRecord({ status: 'success', nextRetryAt: null, deliveredAt: T0 - 5 * GRACE });
  for (const record of [lost, skipped, recent, finished]) await store.insertDelivery(record);
  return { store, queue, lost, skipped };
}

describe('createRecoverySweep on a queue without enqueueMissing', () => {
  it('re-enqueues overdue pending deliveries at their own due time, except the ones it is told to skip', async () => {
    const { store, queue, lost, skipped } = await scenario();
    const sweep = createRecoverySweep({
      store,
      queue,
      graceMs: GRACE,
      clock: () => T0,
      skip: (deliveryId) => deliveryId === skipped.id,
    });
    expect(await sweep.runOnce(), 'entries put back').toBe(1);
    const claims = await queue.claim({ limit: 10, leaseMs: 30_000, now: T0 });
    expect(claims.map((claim) => [claim.deliveryId, claim.runAt])).toEqual([[lost.id, lost.nextRetryAt]]);
  });

  it('start() sweeps at once, stop() waits for it, and a failing sweep goes to onError', async () => {
    const { store, queue } = await scenario();
    const errors: unknown[] = [];
    let calls = 0;
    const failing = {
      ...store,
      listDuePending: async () => {
        calls++;
        throw new Error('store down');
      },
    };
    const sweep = createRecoverySweep({
      store: failing,
      queue,
      intervalMs: 10,
      onError: (e) => errors.push(e),
    });
    sweep.start();
    sweep.start();
    await expect.poll(() => calls, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    await sweep.stop();
    await sweep.stop();
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });
});

describe('createWorker options', () => {
  it('refuses a concurrency that is not a positive integer with a typed error naming the option', () => {
    const service = createWebhookService({ store: createMemoryStore(), queue: createMemoryQueue() });
    const error = (() => {
      try {
        createWorker(service, { concurrency: 0 });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'invalid_option', option: 'concurrency' });
    expect((error as Error).message).toMatch(/^@svc\/webhooks-core: /);
  });

  it('refuses an object that is not a service made by createWebhookService', () => {
    expect(() => createWorker({} as never)).toThrow(InvalidOptionError);
  });
});
