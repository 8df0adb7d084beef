import { positiveIntegerOption } from '../validation';
import {
  type RecoveryWalkerOptions,
  type RecoveryWalkerSettings,
  resolveRecoveryWalkerOptions,
} from './recovery-walker';
import { type RetentionPurgeOptions, resolveRetentionPurgeOptions } from './retention-purge';

/** Options of {@link createWorker}. */
export interface WorkerOptions {
  /**
   * Attempts in flight at once in this worker. An attempt waiting on a receiver
   * costs a socket and a little memory, not CPU, so the default is high enough
   * that agencies whose receivers hang (each held to `perAgencyConcurrency`)
   * leave most slots to the healthy ones; see docs/scaling.md.
   * @default 512
   */
  concurrency?: number;
  /**
   * Claims held at once for one agency, so one slow or hanging receiver
   * cannot take every slot while other agencies wait. Queues that declare
   * `capabilities.sharedAgencyLimit` (memory, PostgreSQL, Redis) hold it across
   * every worker process; others per process. Of those, an agency runs as many
   * as its window: 2 at first, doubled by each answered attempt up to this cap,
   * halved by each timeout or failed connect (docs/scaling.md).
   * @default 8
   */
  perAgencyConcurrency?: number;
  /**
   * Lease of a claimed entry in ms. Renewed every third of it while the attempt
   * runs; must be well above the transport timeout so a live attempt never loses it.
   * @default 30_000
   */
  leaseMs?: number;
  /**
   * Longest idle wait between claims when the queue has nothing due and sends no
   * wake-up (queues with wake-ups start work sooner).
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * Re-enqueues pending deliveries that are overdue by more than `graceMs`: the
   * repair for a queue entry lost between the store write and the queue write
   * (possible when store and queue are different systems). `false` turns it off.
   * @default { intervalMs: 60_000, graceMs: 900_000 }
   */
  recoverySweep?: { intervalMs?: number; graceMs?: number } | false;
  /**
   * Deletes finished deliveries and bulk recoveries past the service's `retention`, in batches (see
   * docs/operations.md, "Retention"). Every worker may run it; `false` leaves it
   * to other workers. Off anyway when the service's `retention` is `false`.
   * @default { intervalMs: 60_000, batchSize: 500 }
   */
  retentionPurge?: RetentionPurgeOptions | false;
  /**
   * Walks bulk recoveries (`webhooks.recoverDeliveries`): this worker takes running
   * recoveries that no worker holds and replays their failed deliveries a page at a
   * time, under a lease of `leaseMs`. `false`: this worker leaves them to others.
   * @default { pollIntervalMs: 1000, pageSize: 100, maxWalks: 4 }
   */
  bulkRecovery?: RecoveryWalkerOptions | false;
}

/** Worker options with every default applied. */
export type WorkerSettings = Required<
  Omit<WorkerOptions, 'recoverySweep' | 'bulkRecovery' | 'retentionPurge'>
> & {
  recoverySweep: { intervalMs: number; graceMs: number } | false;
  retentionPurge: Required<RetentionPurgeOptions> | false;
  bulkRecovery: RecoveryWalkerSettings | null;
};

/** Validates the options and applies their defaults. */
export function resolveWorkerOptions(options: WorkerOptions): WorkerSettings {
  const sweep = options.recoverySweep;
  return {
    concurrency: positiveIntegerOption('concurrency', options.concurrency, 512),
    perAgencyConcurrency: positiveIntegerOption('perAgencyConcurrency', options.perAgencyConcurrency, 8),
    leaseMs: positiveIntegerOption('leaseMs', options.leaseMs, 30_000),
    pollIntervalMs: positiveIntegerOption('pollIntervalMs', options.pollIntervalMs, 1000),
    retentionPurge: resolveRetentionPurgeOptions(options.retentionPurge),
    bulkRecovery: resolveRecoveryWalkerOptions(options.bulkRecovery),
    recoverySweep:
      sweep === false
        ? false
        : {
            intervalMs: positiveIntegerOption('recoverySweep.intervalMs', sweep?.intervalMs, 60_000),
            graceMs: positiveIntegerOption('recoverySweep.graceMs', sweep?.graceMs, 900_000),
          },
  };
}
