import { afterEach, describe, expect, it } from 'vitest';
import type { PurgeDeliveriesOptions, PurgeRecoveriesOptions, WebhookStore } from '../src/adapters/store';
import type { DeliveryRecord, DeliveryStatus } from '../src/delivery/delivery';
import { InvalidOptionError } from '../src/errors';
import { createMemoryQueue } from '../src/memory/memory-queue';
import { createMemoryStore } from '../src/memory/memory-store';
import { combineHooks, type WebhookPurgeEvent, type WorkerErrorStage } from '../src/observability/hooks';
import { createLoggingHooks } from '../src/observability/logger';
import {
  createWebhookService,
  type WebhookService,
  type WebhookServiceOptions,
} from '../src/service/service';
import { makeDeliveryRecord } from '../src/testing/delivery-record-builder';
import { createWorker, type WebhookWorker, type WorkerOptions } from '../src/worker/worker';

const DAY_MS = 86_400_000;
const T0 = 1_800_000_000_000;
/** Fast rounds, so a test sees several within a fraction of a second. */
const FAST = { intervalMs: 10, batchSize: 2 };

const workers: WebhookWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});

/** A store that delegates to `store`, with some members replaced. */
function overriding(store: WebhookStore, members: Partial<WebhookStore>): WebhookStore {
  return new Proxy(store, {
    get(target, key) {
      if (key in members) return members[key as keyof WebhookStore];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A memory-backed service whose clock the test moves, with its purge events and worker errors. */
function setup(options: Partial<WebhookServiceOptions> = {}, store: WebhookStore = createMemoryStore()) {
  const clock = { now: T0 };
  const purges: WebhookPurgeEvent[] = [];
  const errors: Array<{ error: unknown; stage: WorkerErrorStage }> = [];
  const webhooks = createWebhookService({
    store,
    queue: createMemoryQueue(),
    clock: () => clock.now,
    hooks: {
      onPurge: (event) => purges.push(event),
      onError: (error, { stage }) => errors.push({ error, stage }),
    },
    ...options,
  });
  // No recovery sweep: it would queue the old pending deliveries, and the worker would fail them.
  const start = async (workerOptions: WorkerOptions = {}) => {
    const worker = createWorker(webhooks, { recoverySweep: false, retentionPurge: FAST, ...workerOptions });
    workers.push(worker);
    await worker.start();
    return worker;
  };
  return { webhooks, store, clock, purges, errors, start };
}

/** A delivery created `daysAgo` days before T0, left in `status` with one recorded attempt when finished. */
async function aged(store: WebhookStore, status: DeliveryStatus, daysAgo: number): Promise<DeliveryRecord> {
  const createdAt = T0 - daysAgo * DAY_MS;
  const record = makeDeliveryRecord({ createdAt, nextRetryAt: createdAt });
  await store.insertDelivery(record);
  if (status === 'pending') return record;
  const answered = status === 'success';
  await store.updateDelivery(
    record.id,
    { attempt: 0, status: 'pending' },
    {
      status,
      attempt: 1,
      maxAttempts: 5,
      nextRetryAt: null,
      lastAttemptAt: createdAt,
      deliveredAt: answered ? createdAt : null,
      lastResponseCode: answered ? 200 : 500,
      lastErrorMessage: answered ? null : 'HTTP 500',
      lastResponseExcerpt: null,
      nextAttemptTrigger: 'automatic',
      recordedAttempt: {
        attempt: 1,
        trigger: 'automatic',
        startedAt: createdAt,
        durationMs: 12,
        responseCode: answered ? 200 : 500,
        errorKind: answered ? null : 'http_status',
        errorMessage: answered ? null : 'HTTP 500',
        responseExcerpt: null,
      },
    },
  );
  return record;
}

async function exists(store: WebhookStore, record: DeliveryRecord): Promise<boolean> {
  return (await store.getDelivery(record.id)) !== null;
}

async function recoveryExists(store: WebhookStore, recoveryId: string): Promise<boolean> {
  return (await store.getRecovery(recoveryId)) !== null;
}

/** Waits a few purge intervals: long enough for rounds to run, had they anything to do. */
const severalRounds = () => new Promise((resolve) => setTimeout(resolve, 15 * FAST.intervalMs));

describe('the worker’s retention purge (default retention: success 30 days, failed 90 days)', () => {
  it('deletes a success after 30 days and a failed one after 90, with their attempts; never a pending one', async () => {
    const { store, clock, purges, start } = setup();
    const oldSuccess = await aged(store, 'success', 31);
    const youngSuccess = await aged(store, 'success', 29);
    const oldFailed = await aged(store, 'failed', 91);
    const youngFailed = await aged(store, 'failed', 31);
    const ancientPending = await aged(store, 'pending', 400);
    await start();

    await expect.poll(() => exists(store, oldSuccess)).toBe(false);
    await expect.poll(() => exists(store, oldFailed)).toBe(false);
    expect(await store.listAttempts(oldSuccess.id), 'attempts go with their delivery').toEqual([]);
    expect(await store.listAttempts(oldFailed.id)).toEqual([]);
    expect(await store.listAttempts(youngFailed.id), 'a kept delivery keeps its attempts').toHaveLength(1);
    expect(await exists(store, youngSuccess)).toBe(true);
    expect(purges[0]).toMatchObject({ success: 1, failed: 1 });

    clock.now += 2 * DAY_MS;
    await expect.poll(() => exists(store, youngSuccess), { message: 'success now 31 days old' }).toBe(false);
    await severalRounds();
    expect(await exists(store, youngFailed), 'failed at 33 days is kept').toBe(true);

    clock.now += 58 * DAY_MS;
    await expect.poll(() => exists(store, youngFailed), { message: 'failed now 91 days old' }).toBe(false);
    await severalRounds();
    expect(await store.getDelivery(ancientPending.id), 'pending, 460 days old').toEqual(ancientPending);
  });

  it('honours the service’s own ages', async () => {
    const { store, start } = setup({ retention: { successMs: DAY_MS, failedMs: 2 * DAY_MS } });
    const success = await aged(store, 'success', 1.5);
    const keptFailed = await aged(store, 'failed', 1.5);
    const failed = await aged(store, 'failed', 2.5);
    await start();
    await expect.poll(() => exists(store, success)).toBe(false);
    await expect.poll(() => exists(store, failed)).toBe(false);
    expect(await exists(store, keptFailed)).toBe(true);
  });

  it('purges nothing with `retention: false`, or in a worker with `retentionPurge: false`', async () => {
    const off = setup({ retention: false });
    const offRecord = await aged(off.store, 'success', 365);
    await off.start();
    const notThisWorker = setup();
    const keptRecord = await aged(notThisWorker.store, 'success', 365);
    await notThisWorker.start({ retentionPurge: false });
    // A control on the same timing: with retention on, the same record goes.
    const control = setup();
    const purgedRecord = await aged(control.store, 'success', 365);
    await control.start();
    await expect.poll(() => exists(control.store, purgedRecord)).toBe(false);
    await severalRounds();
    expect(await exists(off.store, offRecord)).toBe(true);
    expect(await exists(notThisWorker.store, keptRecord)).toBe(true);
    expect([...off.purges, ...notThisWorker.purges]).toEqual([]);
  });

  it('drains a backlog in batches of batchSize until one comes back short, per status', async () => {
    const memory = createMemoryStore();
    const calls: PurgeDeliveriesOptions[] = [];
    const store = overriding(memory, {
      purgeDeliveries: (options) => {
        calls.push(options);
        return memory.purgeDeliveries!(options);
      },
    });
    const { purges, start } = setup({}, store);
    for (let index = 0; index < 5; index++) await aged(memory, 'success', 40);
    await aged(memory, 'failed', 100);
    await aged(memory, 'failed', 100);
    await start({ retentionPurge: { intervalMs: 60_000, batchSize: 2 } });
    expect(calls, 'the first round waits one interval').toEqual([]);
    await start({ retentionPurge: { intervalMs: 10, batchSize: 2 } });
    await expect.poll(() => purges.length).toBeGreaterThan(0);
    // Five calls for the deliveries, then one for the recoveries (none to delete).
    expect(purges[0]).toMatchObject({ success: 5, failed: 2, recoveries: 0, batches: 6 });
    const successCutoff = T0 - 30 * DAY_MS;
    const failedCutoff = T0 - 90 * DAY_MS;
    expect(calls.slice(0, 5)).toEqual([
      { olderThan: successCutoff, limit: 2, status: 'success' },
      { olderThan: successCutoff, limit: 2, status: 'success' },
      { olderThan: successCutoff, limit: 2, status: 'success' },
      { olderThan: failedCutoff, limit: 2, status: 'failed' },
      { olderThan: failedCutoff, limit: 2, status: 'failed' },
    ]);
  });

  it('stop() ends a round that would never end on its own, within one batch, and awaits it', async () => {
    let calls = 0;
    let inFlight = 0;
    const endless = overriding(createMemoryStore(), {
      // A backlog that never runs out: every batch comes back full.
      purgeDeliveries: async ({ limit }) => {
        calls++;
        inFlight++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight--;
        return limit;
      },
    });
    const { start } = setup({}, endless);
    const worker = await start();
    await expect.poll(() => calls).toBeGreaterThanOrEqual(3);
    const stopping = performance.now();
    await worker.stop();
    expect(performance.now() - stopping, 'stop() is prompt').toBeLessThan(500);
    expect(inFlight, 'no batch still running after stop()').toBe(0);
    const after = calls;
    await severalRounds();
    expect(calls, 'no batch after stop()').toBe(after);
  });

  it('reports a failed round through onError with stage `retention`, and tries again next interval', async () => {
    let calls = 0;
    const failing = overriding(createMemoryStore(), {
      purgeDeliveries: async () => {
        calls++;
        throw new Error('store down');
      },
    });
    const { errors, start } = setup({}, failing);
    await start();
    await expect.poll(() => calls).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toMatchObject({ stage: 'retention', error: { message: 'store down' } });
  });
});

describe('the worker’s retention purge of bulk recoveries (failedMs after they finished)', () => {
  /** A recovery of `agencyId` started through the service at the clock's time; its id. */
  async function started(webhooks: WebhookService, agencyId: string): Promise<string> {
    return (await webhooks.recoverDeliveries(agencyId, { since: 0 })).recoveryId;
  }

  it('deletes completed and cancelled recoveries 90 days after they finished, never a running one', async () => {
    // No walker: the running recovery stays running, as one a worker holds would.
    const { webhooks, store, clock, purges, start } = setup();
    clock.now = T0 - 100 * DAY_MS;
    const cancelled = await started(webhooks, 'agency-a');
    await webhooks.cancelRecovery('agency-a', cancelled);
    const completed = await started(webhooks, 'agency-b');
    // Completed the way the walker completes one.
    await store.updateRecovery(completed, 1, { status: 'completed', completedAt: clock.now });
    const running = await started(webhooks, 'agency-c');
    clock.now = T0 - 80 * DAY_MS;
    const youngCancelled = await started(webhooks, 'agency-a');
    await webhooks.cancelRecovery('agency-a', youngCancelled);
    clock.now = T0;
    await start({ bulkRecovery: false });

    await expect.poll(() => recoveryExists(store, cancelled)).toBe(false);
    await expect.poll(() => recoveryExists(store, completed)).toBe(false);
    expect(purges[0]).toMatchObject({ success: 0, failed: 0, recoveries: 2 });
    await severalRounds();
    expect((await webhooks.getRecovery('agency-c', running)).status, 'running, 100 days old').toBe('running');
    expect((await webhooks.listRecoveries('agency-a')).recoveries.map((recovery) => recovery.id)).toEqual([
      youngCancelled,
    ]);

    clock.now += 11 * DAY_MS;
    await expect
      .poll(() => recoveryExists(store, youngCancelled), { message: 'finished 91 days ago' })
      .toBe(false);
    expect(await recoveryExists(store, running)).toBe(true);
  });

  it('follows the service’s failedMs, and calls the store with the same batch size as deliveries', async () => {
    const memory = createMemoryStore();
    const calls: PurgeRecoveriesOptions[] = [];
    const store = overriding(memory, {
      purgeRecoveries: (options) => {
        calls.push(options);
        return memory.purgeRecoveries!(options);
      },
    });
    const { webhooks, clock, purges, start } = setup(
      { retention: { successMs: DAY_MS, failedMs: 2 * DAY_MS } },
      store,
    );
    const ids: string[] = [];
    for (const agencyId of ['agency-a', 'agency-b', 'agency-c']) {
      clock.now = T0 - 3 * DAY_MS;
      const id = await started(webhooks, agencyId);
      await webhooks.cancelRecovery(agencyId, id);
      ids.push(id);
    }
    clock.now = T0;
    await start({ bulkRecovery: false });
    await expect.poll(() => purges.length).toBeGreaterThan(0);
    expect(purges[0]).toMatchObject({ recoveries: 3 });
    expect(calls.slice(0, 2)).toEqual([
      { olderThan: T0 - 2 * DAY_MS, limit: FAST.batchSize },
      { olderThan: T0 - 2 * DAY_MS, limit: FAST.batchSize },
    ]);
    for (const id of ids) expect(await recoveryExists(memory, id)).toBe(false);
  });

  it('keeps recoveries, and still purges deliveries, with a store that has no purgeRecoveries', async () => {
    const { webhooks, store, clock, start, errors } = setup(
      {},
      overriding(createMemoryStore(), { purgeRecoveries: undefined }),
    );
    clock.now = T0 - 365 * DAY_MS;
    const id = await started(webhooks, 'agency-a');
    await webhooks.cancelRecovery('agency-a', id);
    clock.now = T0;
    const record = await aged(store, 'success', 365);
    await start({ bulkRecovery: false });
    await expect.poll(() => exists(store, record)).toBe(false);
    expect(await recoveryExists(store, id)).toBe(true);
    expect(errors).toEqual([]);
  });
});

describe('retention options', () => {
  const noPurge = () =>
    overriding(createMemoryStore(), {
      capabilities: { transactions: false, purge: false },
      purgeDeliveries: undefined,
    });

  function thrown(make: () => unknown): unknown {
    try {
      make();
    } catch (error) {
      return error;
    }
    return undefined;
  }

  it('are skipped silently at their default for a store without capabilities.purge', async () => {
    const { store, start, errors } = setup({}, noPurge());
    const record = await aged(store, 'success', 365);
    await start();
    await severalRounds();
    expect(await exists(store, record)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('refuse retention asked of a store without capabilities.purge, naming the capability', () => {
    const error = thrown(() =>
      createWebhookService({
        store: noPurge(),
        queue: createMemoryQueue(),
        retention: { successMs: DAY_MS },
      }),
    );
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ code: 'invalid_option', option: 'retention' });
    expect((error as Error).message).toMatch(/capabilities\.purge/);
    expect(() =>
      createWebhookService({ store: noPurge(), queue: createMemoryQueue(), retention: false }),
    ).not.toThrow();
  });

  it('refuse ages and batch settings that are not positive integers, naming the option', () => {
    const store = createMemoryStore();
    const queue = createMemoryQueue();
    expect(thrown(() => createWebhookService({ store, queue, retention: { successMs: 0 } }))).toMatchObject({
      option: 'retention.successMs',
    });
    expect(thrown(() => createWebhookService({ store, queue, retention: { failedMs: 1.5 } }))).toMatchObject({
      option: 'retention.failedMs',
    });
    const webhooks = createWebhookService({ store, queue });
    expect(thrown(() => createWorker(webhooks, { retentionPurge: { batchSize: 0 } }))).toMatchObject({
      code: 'invalid_option',
      option: 'retentionPurge.batchSize',
    });
    expect(thrown(() => createWorker(webhooks, { retentionPurge: { intervalMs: -1 } }))).toMatchObject({
      option: 'retentionPurge.intervalMs',
    });
  });
});

describe('retention in the observability hooks', () => {
  it('combineHooks forwards onPurge, and the logger writes it at info with counts only', () => {
    const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
    const write = (level: string) => (fields: Record<string, unknown>, message: string) =>
      lines.push({ level, fields, message });
    const logger = { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
    const seen: WebhookPurgeEvent[] = [];
    const hooks = combineHooks({ onPurge: (event) => seen.push(event) }, createLoggingHooks(logger));
    const event = { success: 500, failed: 3, recoveries: 2, batches: 4, durationMs: 41.5 };
    hooks.onPurge?.(event);
    expect(seen).toEqual([event]);
    expect(lines).toEqual([
      { level: 'info', fields: { ...event }, message: 'webhook retention deleted old deliveries' },
    ]);
  });
});
