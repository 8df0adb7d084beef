import type { DeliveryQueue, QueueEntry } from '../adapters/queue';
import type { WebhookStore } from '../adapters/store';
import type { DeliveryRecord } from '../delivery/delivery';

/** Entries per `enqueueMissing` call: keeps each queue command short. */
const ENQUEUE_CHUNK = 200;

/** Options of {@link createRecoverySweep}. */
export interface RecoverySweepOptions {
  /** Source of truth: which deliveries are pending and due. */
  store: WebhookStore;
  /**
   * Where lost entries are put back. A queue with `enqueueMissing` (PostgreSQL, Redis) never
   * has a live claim dropped by the sweep; with plain `enqueue`, a delivery that
   * is merely backlogged past `graceMs` may be attempted twice at worst (the
   * store's compare-and-set records one of them).
   */
  queue: Pick<DeliveryQueue, 'enqueue' | 'enqueueMissing'>;
  /**
   * How overdue a pending delivery must be before it counts as lost. Longer than
   * the worst expected queue lag, so a merely busy queue is not swept.
   * @default 900_000 (15 min)
   */
  graceMs?: number;
  /**
   * Time between sweeps when started with `start()`.
   * @default 60_000
   */
  intervalMs?: number;
  /**
   * Most overdue deliveries one sweep reads (oldest due first). The store's
   * `listDuePending` has no cursor, so keep this above the number of deliveries
   * that can legitimately be overdue by `graceMs` at once.
   * @default 1000
   */
  limit?: number;
  /**
   * Source of "now" in epoch ms (use the service's clock).
   * @default Date.now
   */
  clock?: () => number;
  /** Deliveries to leave alone this sweep (a worker passes the ones it is attempting). */
  skip?: (deliveryId: string) => boolean;
  /** Called when a periodic sweep fails; the next interval tries again. */
  onError?: (error: unknown) => void;
}

/** A periodic repair of lost queue entries. */
export interface RecoverySweep {
  /** Sweeps once now; resolves with how many entries were put back. */
  runOnce(): Promise<number>;
  /** Sweeps every `intervalMs` (the first sweep right away). Idempotent. */
  start(): void;
  /** Stops the timer and waits for a sweep in progress. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Creates a recovery sweep: it re-enqueues pending deliveries whose due time is
 * more than `graceMs` past, for the one failure the store and queue cannot rule
 * out between them: a crash after the store wrote a delivery and before the
 * queue got its entry (two systems, no shared transaction).
 *
 * Every worker runs one by default (`createWorker(service, { recoverySweep })`);
 * run it on its own when the workers turn theirs off, for instance one sweep per
 * deployment instead of one per worker process. An entry it adds for a delivery
 * that has meanwhile been recorded is harmless: the worker reconciles every
 * claim with the store first.
 *
 * @example
 * ```ts
 * const sweep = createRecoverySweep({ store, queue, graceMs: 300_000 });
 * sweep.start();
 * process.on('SIGTERM', () => sweep.stop());
 * ```
 */
export function createRecoverySweep(options: RecoverySweepOptions): RecoverySweep {
  const { store, queue, skip } = options;
  const graceMs = options.graceMs ?? 900_000;
  const intervalMs = options.intervalMs ?? 60_000;
  const limit = options.limit ?? 1000;
  const clock = options.clock ?? Date.now;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  const runOnce = async (): Promise<number> => {
    const overdue = await store.listDuePending(clock() - graceMs, limit);
    const lost = skip ? overdue.filter((delivery) => !skip(delivery.id)) : overdue;
    const now = clock();
    let restored = 0;
    for (let start = 0; start < lost.length; start += ENQUEUE_CHUNK) {
      const entries = lost.slice(start, start + ENQUEUE_CHUNK).map((delivery) => entryOf(delivery, now));
      if (queue.enqueueMissing) {
        restored += await queue.enqueueMissing(entries);
      } else {
        for (const entry of entries) await queue.enqueue(entry);
        restored += entries.length;
      }
    }
    return restored;
  };

  const tick = (): void => {
    if (running) return;
    running = runOnce();
    running
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = null;
      });
  };

  return {
    runOnce,
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => 0);
    },
  };
}

/** A lost delivery's entry at its own due time (overdue, so due at once, oldest first). */
function entryOf(delivery: DeliveryRecord, now: number): QueueEntry {
  return { deliveryId: delivery.id, agencyId: delivery.agencyId, runAt: delivery.nextRetryAt ?? now };
}
