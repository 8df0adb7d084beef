import type { WebhookStore } from '../adapters/store';
import { callHook, type WebhookPurgeEvent } from '../observability/hooks';
import type { Engine } from '../service/engine';
import type { RetentionSettings } from '../service/retention';
import { positiveIntegerOption } from '../validation';

/** The worker's `retentionPurge` option: how it applies the service's `retention`. */
export interface RetentionPurgeOptions {
  /**
   * Time between rounds. The first round runs one interval after `start()`, so
   * a fleet of workers restarted together does not purge at the same moment.
   * @default 60_000
   */
  intervalMs?: number;
  /**
   * Most deliveries (or finished recoveries) one store call deletes. A round calls
   * again until a call comes back short, pausing after each call for four times as
   * long as it took, so a large backlog drains on at most a fifth of one connection's time.
   * @default 500
   */
  batchSize?: number;
}

/** Options of {@link createRetentionPurge}. */
export interface RetentionPurgeRunnerOptions {
  /**
   * Deletes the deliveries, and the finished recoveries where it has `purgeRecoveries`:
   * a store with `capabilities.purge`.
   */
  store: Pick<WebhookStore, 'purgeDeliveries' | 'purgeRecoveries'>;
  /** Ages after which each status goes (finished recoveries: `failedMs` after they finished). */
  retention: RetentionSettings;
  intervalMs: number;
  batchSize: number;
  /** Source of "now" in epoch ms (the service's clock). */
  clock: () => number;
  /** A round that deleted something. */
  onPurge?: (event: WebhookPurgeEvent) => void;
  /** A round that failed; the next interval tries again. */
  onError?: (error: unknown) => void;
}

/** A periodic retention purge, as each worker runs one. */
export interface RetentionPurge {
  /**
   * One round now: every status, then the finished recoveries, batch after batch, until
   * nothing old is left or `stop()`.
   */
  runOnce(): Promise<WebhookPurgeEvent>;
  /** A round every `intervalMs`, the first after one interval. Idempotent. */
  start(): void;
  /** Ends the current round after its batch in flight (no new batch starts) and waits for it. Idempotent. */
  stop(): Promise<void>;
}

const STATUSES = ['success', 'failed'] as const;

/**
 * Pause after a batch, in multiples of the batch's own time. Measured on the pg
 * benchmark (docs/benchmarks.md): pausing as long as the batch (half the time
 * deleting) drained 1,000,000 rows in 107 s but tripled the deliveries' median
 * latency on a 2-core machine; a fifth of the time leaves room for the
 * deliveries and still deletes thousands of rows a second, far more than any
 * steady flow of new deliveries ages past its retention.
 */
const PAUSE_FACTOR = 4;

/**
 * Creates the purge a worker runs for the service's `retention`. Several workers
 * sharing a store may all run one: each store deletes a record once however many
 * purge at the same moment (PostgreSQL skips rows another purge holds), and a
 * round that finds nothing costs one indexed query per status, and one for the
 * recoveries.
 *
 * Finished recoveries go on the failed deliveries' clock (`failedMs`, from their
 * `completedAt`): a recovery is the record of failed deliveries being replayed, and
 * a second age would be one more option for a table that stays small. A store
 * without `purgeRecoveries` (one written before it) keeps its recoveries.
 */
export function createRetentionPurge(options: RetentionPurgeRunnerOptions): RetentionPurge {
  const { store, retention, batchSize, clock } = options;
  const { purgeDeliveries, purgeRecoveries } = store;
  if (!purgeDeliveries) throw new TypeError('createRetentionPurge needs a store with purgeDeliveries');
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopping = new AbortController();

  const runOnce = async (): Promise<WebhookPurgeEvent> => {
    const started = performance.now();
    const event: WebhookPurgeEvent = { success: 0, failed: 0, recoveries: 0, batches: 0, durationMs: 0 };
    const { signal } = stopping;
    const drain = async (purgeBatch: (limit: number) => Promise<number>): Promise<number> => {
      const { deleted, batches } = await drainInBatches(purgeBatch, batchSize, signal);
      event.batches += batches;
      return deleted;
    };
    for (const status of STATUSES) {
      // One cutoff per round, so a round ends even while deliveries keep ageing past it.
      const olderThan = clock() - retention[status === 'success' ? 'successMs' : 'failedMs'];
      event[status] += await drain((limit) => purgeDeliveries.call(store, { olderThan, limit, status }));
    }
    if (purgeRecoveries) {
      const olderThan = clock() - retention.failedMs;
      event.recoveries += await drain((limit) => purgeRecoveries.call(store, { olderThan, limit }));
    }
    event.durationMs = performance.now() - started;
    return event;
  };

  const tick = (): void => {
    if (running) return;
    running = runOnce()
      .then((event) => {
        if (event.success + event.failed + event.recoveries > 0) options.onPurge?.(event);
      })
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = null;
      });
  };

  return {
    runOnce,
    start() {
      if (timer) return;
      timer = setInterval(tick, options.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      stopping.abort();
      await running;
      // Ready for a later start() or runOnce().
      stopping = new AbortController();
    },
  };
}

/**
 * Calls `purgeBatch(batchSize)` until a call deletes fewer than `batchSize` (nothing
 * old is left) or the signal aborts, pausing after each call for `PAUSE_FACTOR`
 * times as long as it took. Resolves with what the calls deleted, and how many were made.
 */
async function drainInBatches(
  purgeBatch: (limit: number) => Promise<number>,
  batchSize: number,
  signal: AbortSignal,
): Promise<{ deleted: number; batches: number }> {
  let deleted = 0;
  let batches = 0;
  while (!signal.aborted) {
    const batchStarted = performance.now();
    const count = await purgeBatch(batchSize);
    batches++;
    deleted += count;
    if (count < batchSize) break;
    await pause(PAUSE_FACTOR * (performance.now() - batchStarted), signal);
  }
  return { deleted, batches };
}

/**
 * Waits `ms` (at least one macrotask, so the event loop serves I/O between
 * batches), or until the signal aborts.
 */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timeout);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timeout = setTimeout(done, Math.max(1, Math.round(ms)));
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The worker's `retentionPurge` option with its defaults, checked; false when off. */
export function resolveRetentionPurgeOptions(
  option: RetentionPurgeOptions | false | undefined,
): Required<RetentionPurgeOptions> | false {
  if (option === false) return false;
  return {
    intervalMs: positiveIntegerOption('retentionPurge.intervalMs', option?.intervalMs, 60_000),
    batchSize: positiveIntegerOption('retentionPurge.batchSize', option?.batchSize, 500),
  };
}

/** Starts a worker's purge when the service keeps deliveries for a limited time and the worker takes part. */
export function startRetentionPurge(
  engine: Engine,
  settings: Required<RetentionPurgeOptions> | false,
  onError: (error: unknown) => void,
): RetentionPurge | null {
  const { retention, store, clock, hooks } = engine;
  if (!retention || !settings) return null;
  const purge = createRetentionPurge({
    ...settings,
    store,
    retention,
    clock,
    onPurge: (event) => callHook(hooks.onPurge, event),
    onError,
  });
  purge.start();
  return purge;
}
