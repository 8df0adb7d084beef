import type { DeliveryRecord, QueueEntry, WebhookStore } from '@svc/webhooks-core';

/** Entries per `enqueueMissing` call: keeps each script short. */
const ENQUEUE_CHUNK = 200;

/** The queue side a sweep needs: add entries only where none exists. */
export interface SweepableQueue {
  enqueueMissing(entries: readonly QueueEntry[]): Promise<number>;
}

/** Options of {@link createRecoverySweep}. */
export interface RecoverySweepOptions {
  /** Source of truth: which deliveries are pending and due. Any {@link WebhookStore} (Redis, PostgreSQL, memory). */
  store: WebhookStore;
  /** Where lost entries are put back (the Redis queue). */
  queue: SweepableQueue;
  /**
   * How overdue a pending delivery must be before it counts as lost. Longer than
   * the worst expected queue lag, so a merely busy queue is not swept.
   * @default 300_000 (5 min)
   */
  graceMs?: number;
  /**
   * Time between sweeps when started with `start()`.
   * @default 60_000
   */
  intervalMs?: number;
  /**
   * Most overdue deliveries one sweep reads (oldest due first) and checks. The
   * store's `listDuePending` has no cursor, so keep this above the number of
   * deliveries that can legitimately be overdue by `graceMs` at once.
   * @default 1000
   */
  limit?: number;
  /**
   * Source of "now" in epoch ms (use the service's clock).
   * @default Date.now
   */
  clock?: () => number;
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
 * It uses `enqueueMissing`, so a delivery that still has an entry (queued, or
 * held by a worker right now) is left alone and a sweep never causes a second
 * concurrent attempt. An entry it adds for a delivery that has meanwhile been
 * recorded is harmless: the worker reconciles every claim with the store first.
 * With this sweep running, the core worker's own sweep can be turned off
 * (`createWorker(service, { recoverySweep: false })`).
 *
 * @example
 * const sweep = createRecoverySweep({ store, queue, graceMs: 300_000, intervalMs: 60_000 });
 * sweep.start();
 * process.on('SIGTERM', () => sweep.stop());
 */
export function createRecoverySweep(options: RecoverySweepOptions): RecoverySweep {
  const graceMs = options.graceMs ?? 300_000;
  const intervalMs = options.intervalMs ?? 60_000;
  const limit = options.limit ?? 1000;
  const clock = options.clock ?? Date.now;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  const runOnce = async (): Promise<number> => {
    const overdue = await options.store.listDuePending(clock() - graceMs, limit);
    let restored = 0;
    for (let start = 0; start < overdue.length; start += ENQUEUE_CHUNK) {
      const chunk = overdue.slice(start, start + ENQUEUE_CHUNK);
      restored += await options.queue.enqueueMissing(chunk.map(toQueueEntry));
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

/** A lost delivery's entry, due when the record says (it is overdue, so at once). */
function toQueueEntry(delivery: DeliveryRecord): QueueEntry {
  return { deliveryId: delivery.id, agencyId: delivery.agencyId, runAt: delivery.nextRetryAt ?? 0 };
}
