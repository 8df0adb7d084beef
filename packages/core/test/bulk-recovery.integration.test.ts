import { FAST_RETRY, jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMemoryStore,
  createWorker,
  type DeliveryRecord,
  RecoveryInProgressError,
  type WebhookService,
  type WebhookStore,
  type WebhookWorker,
} from '../src/index';

// Bulk recovery end to end on the memory adapters, through the real local HTTPS
// receiver: the walk, its pages, and the take-over of a page a dead worker left open.

const harnesses: ServiceHarness[] = [];
const extraWorkers: WebhookWorker[] = [];
afterEach(async () => {
  for (const worker of extraWorkers.splice(0)) await worker.stop();
  for (const harness of harnesses.splice(0)) await harness.close();
});

/**
 * The walk's two paths: the memory store replays a page itself (`replayRecoveryPage`); without
 * the method, the worker reads the page and replays each delivery with `updateDelivery`.
 */
const STORES = {
  'the store replays each page': () => createMemoryStore(),
  'the worker replays each delivery': () => withoutPageReplay(createMemoryStore()),
};
let storeOfSuite: () => WebhookStore = STORES['the store replays each page'];

function withoutPageReplay(store: WebhookStore): WebhookStore {
  return new Proxy(store, {
    get(target, name) {
      if (name === 'replayRecoveryPage') return undefined;
      const value = Reflect.get(target, name);
      // Bound: the store's methods read its private fields.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** One attempt per delivery and no breaker: a refused delivery is `failed` at once, and stays refused. */
async function start(bulkRecovery: false | { pollIntervalMs: number; pageSize: number }) {
  const harness = await startServiceHarness({
    store: storeOfSuite,
    service: { retry: { ...FAST_RETRY, maxAttempts: 1 }, circuitBreaker: false },
    worker: { pollIntervalMs: 20, bulkRecovery },
  });
  harnesses.push(harness);
  return harness;
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function emitFailed(harness: ServiceHarness, agencyId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++)
    ids.push((await harness.webhooks.emit(jobCancelled(agencyId, n)))!.deliveryId);
  await poll(
    () => harness.webhooks.store.listDeliveries(agencyId, { status: 'failed', limit: count + 1 }),
    (rows) => rows.length === count,
    `${count} failed deliveries of ${agencyId}`,
  );
  return ids;
}

async function triggers(webhooks: WebhookService, agencyId: string, id: string): Promise<string[]> {
  return (await webhooks.listAttempts(agencyId, id)).attempts.map((attempt) => attempt.trigger);
}

describe.each(Object.entries(STORES))('bulk recovery, %s', (_path, store) => {
  beforeEach(() => {
    storeOfSuite = store;
  });

  it('replays every failed delivery of the window once, page by page, and completes', async () => {
    const harness = await start({ pollIntervalMs: 50, pageSize: 7 });
    const { webhooks, receiver } = harness;
    receiver.respond(() => ({ status: 500 }));
    await harness.configure('agency-a');
    await harness.configure('agency-b');
    const since = Date.now();
    const outage = await emitFailed(harness, 'agency-a', 30);
    const untouched = await emitFailed(harness, 'agency-b', 5);
    receiver.respond(() => ({ status: 204 }));

    expect(await webhooks.recoverDeliveries('agency-a', { since, dryRun: true })).toEqual({ matched: 30 });
    const started = await webhooks.recoverDeliveries('agency-a', { since });
    expect(started).toEqual({ recoveryId: expect.any(String), matched: 30 });

    const done = await poll(
      () => webhooks.getRecovery('agency-a', started.recoveryId),
      (recovery) => recovery.status !== 'running',
      'the recovery to complete',
    );
    expect(done).toMatchObject({ status: 'completed', matched: 30, replayed: 30, eventTypes: null });
    expect(done.completedAt).toBeGreaterThanOrEqual(done.createdAt);
    for (const id of outage) {
      await harness.waitForStatus('agency-a', id, 'success');
      expect(await triggers(webhooks, 'agency-a', id)).toEqual(['automatic', 'recovery']);
    }
    for (const id of untouched) {
      expect((await webhooks.getDelivery('agency-b', id)).status, 'another agency’s failures').toBe('failed');
    }
    expect(receiver.requests).toHaveLength(30 + 5 + 30);
  });

  it('a recovery of a type with no failures completes with nothing replayed; the next one may start', async () => {
    const harness = await start({ pollIntervalMs: 20, pageSize: 5 });
    harness.receiver.respond(() => ({ status: 500 }));
    await harness.configure('agency-a', ['job_cancelled', 'job_created']);
    const since = Date.now();
    await emitFailed(harness, 'agency-a', 3);
    const first = await harness.webhooks.recoverDeliveries('agency-a', {
      since,
      eventTypes: ['job_created'],
    });
    expect(first.matched).toBe(0);
    const done = await poll(
      () => harness.webhooks.getRecovery('agency-a', first.recoveryId),
      (recovery) => recovery.status === 'completed',
      'the empty recovery to complete',
    );
    expect(done.replayed).toBe(0);
    expect(harness.receiver.requests).toHaveLength(3);
    const second = await harness.webhooks.recoverDeliveries('agency-a', { since });
    expect(second).toMatchObject({ matched: 3 });
  });

  it('a cancelled recovery is not walked; one running makes a second start throw RecoveryInProgressError', async () => {
    const harness = await start(false);
    harness.receiver.respond(() => ({ status: 500 }));
    await harness.configure('agency-a');
    const since = Date.now();
    await emitFailed(harness, 'agency-a', 4);
    const started = await harness.webhooks.recoverDeliveries('agency-a', { since });
    await expect(harness.webhooks.recoverDeliveries('agency-a', { since })).rejects.toThrow(
      RecoveryInProgressError,
    );
    const cancelled = await harness.webhooks.cancelRecovery('agency-a', started.recoveryId);
    expect(cancelled).toMatchObject({ status: 'cancelled', replayed: 0 });

    const walker = createWorker(harness.webhooks, {
      pollIntervalMs: 20,
      bulkRecovery: { pollIntervalMs: 20 },
    });
    extraWorkers.push(walker);
    await walker.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(harness.receiver.requests, 'nothing replayed').toHaveLength(4);
    expect((await harness.webhooks.getRecovery('agency-a', started.recoveryId)).status).toBe('cancelled');
  });

  it('takes over a page a dead worker left open: counts its replays, replays the rest, none twice', async () => {
    // No walker at first: the test plays the worker that dies mid-page.
    const harness = await start(false);
    const { webhooks, receiver } = harness;
    receiver.respond(() => ({ status: 500 }));
    await harness.configure('agency-a');
    const since = Date.now();
    const ids = await emitFailed(harness, 'agency-a', 12);
    const started = await webhooks.recoverDeliveries('agency-a', { since });

    // The dead worker opened a page of the five newest and replayed three of them.
    const store = webhooks.store;
    const stored = (await store.getRecovery(started.recoveryId))!;
    const page = await store.listDeliveries('agency-a', { status: 'failed', limit: 5 });
    await store.updateRecovery(stored.id, stored.version, {
      pageEndId: page[4]!.id,
      leaseUntil: Date.now() - 1,
    });
    const replayedByTheDead = page.slice(0, 3);
    for (const record of replayedByTheDead) await replayAsRecovery(webhooks, record);
    // Their attempts ran and failed again: failed, as an unreplayed delivery looks.
    for (const record of replayedByTheDead) {
      await poll(
        () => store.getDelivery(record.id),
        (delivery) => delivery?.status === 'failed' && delivery.attempt === 2,
        'the dead worker’s replay to fail again',
      );
    }

    const walker = createWorker(webhooks, {
      pollIntervalMs: 20,
      bulkRecovery: { pollIntervalMs: 20, pageSize: 5 },
    });
    extraWorkers.push(walker);
    await walker.start();
    const done = await poll(
      () => webhooks.getRecovery('agency-a', started.recoveryId),
      (recovery) => recovery.status === 'completed',
      'the recovery to complete',
    );
    expect(done).toMatchObject({ matched: 12, replayed: 12 });
    for (const id of ids) {
      await poll(
        () => store.getDelivery(id),
        (delivery) => delivery?.status === 'failed' && delivery.attempt === 2,
        `delivery ${id} to be attempted once more`,
      );
      expect(await triggers(webhooks, 'agency-a', id), id).toEqual(['automatic', 'recovery']);
    }
    expect(receiver.requests).toHaveLength(12 + 12);
  });
});

/** What a walker's replay writes: the delivery pending again, its next attempt a `recovery` one. */
async function replayAsRecovery(webhooks: WebhookService, record: DeliveryRecord): Promise<void> {
  const now = Date.now();
  const saved = await webhooks.store.updateDelivery(
    record.id,
    { attempt: record.attempt, status: record.status },
    {
      status: 'pending',
      attempt: record.attempt,
      maxAttempts: record.attempt + 1,
      nextRetryAt: now,
      lastAttemptAt: record.lastAttemptAt,
      deliveredAt: null,
      lastResponseCode: record.lastResponseCode,
      lastErrorMessage: record.lastErrorMessage,
      lastResponseExcerpt: record.lastResponseExcerpt,
      nextAttemptTrigger: 'recovery',
    },
  );
  expect(saved).not.toBeNull();
  await webhooks.queue.enqueue({ deliveryId: record.id, agencyId: record.agencyId, runAt: now });
}
