import { createMemoryQueue, createMemoryStore } from '@svc/webhooks-core';
import { makeDeliveryRecord, makeRecoveryRecord } from '@svc/webhooks-core/testing';
import { expect, it } from 'vitest';
import { createRetainingWebhooks } from '../examples/retention';

const DAY_MS = 86_400_000;

it('the retention sample purges successes after 30 days, failures and finished recoveries after 90, never pending ones', async () => {
  const store = createMemoryStore();
  const now = Date.now();
  const finished = (status: 'success' | 'failed', ageDays: number) =>
    makeDeliveryRecord({ status, nextRetryAt: null, createdAt: now - ageDays * DAY_MS });
  const oldSuccess = finished('success', 31);
  const youngSuccess = finished('success', 29);
  const failedAt60Days = finished('failed', 60);
  const oldFailed = finished('failed', 91);
  const oldPending = makeDeliveryRecord({ createdAt: now - 400 * DAY_MS, nextRetryAt: now + DAY_MS });
  for (const record of [oldSuccess, youngSuccess, failedAt60Days, oldFailed, oldPending]) {
    await store.insertDelivery(record);
  }
  const recoveryFinished = async (agencyId: string, ageDays: number) => {
    const recovery = makeRecoveryRecord({ agencyId, createdAt: now - 100 * DAY_MS });
    await store.createRecovery(recovery);
    await store.updateRecovery(recovery.id, 1, { status: 'cancelled', completedAt: now - ageDays * DAY_MS });
    return recovery.id;
  };
  const oldRecovery = await recoveryFinished('agency-a', 91);
  const recoveryAt60Days = await recoveryFinished('agency-b', 60);
  const { webhooks, worker } = createRetainingWebhooks(store, createMemoryQueue(), 20);
  await worker.start();
  try {
    await expect.poll(async () => (await store.getDelivery(oldFailed.id)) === null).toBe(true);
    expect(await store.getDelivery(oldSuccess.id)).toBeNull();
    for (const kept of [youngSuccess, failedAt60Days, oldPending]) {
      expect(await store.getDelivery(kept.id), kept.status).not.toBeNull();
    }
    await expect.poll(() => store.getRecovery(oldRecovery)).toBeNull();
    expect(await store.getRecovery(recoveryAt60Days), 'finished 60 days ago').not.toBeNull();
  } finally {
    await worker.stop();
    await webhooks.close();
  }
});
