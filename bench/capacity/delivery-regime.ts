import { createWorker, type WebhookService, type WorkerOptions } from '@svc/webhooks-core';
import { emitBacklog } from '../lib/backlog';
import { waitForDeliveries } from './delivered-wait';

/**
 * How deliveries arrive in a cost measurement.
 * - `backlog`: all emitted first, then one worker drains them, so each claim takes a full batch:
 *   the database work per delivery when workers are saturated, what bounds the capacity.
 * - `paced`: emitted one by one at `perSecond` while the worker runs, each claim finding the one or
 *   two just emitted: the work per delivery at a light, steady load.
 */
export type Regime = { kind: 'backlog' } | { kind: 'paced'; perSecond: number };

/** Reads of the backend's counters around the phases of one run. */
export interface PhaseMeter<Snapshot> {
  snapshot(): Promise<Snapshot>;
}

/** Snapshots before the run, after the emits (backlog only: emits and deliveries are apart), and after. */
export interface RegimeSnapshots<Snapshot> {
  start: Snapshot;
  emitted: Snapshot | null;
  end: Snapshot;
  wallSeconds: number;
}

/** The worker every cost measurement uses: the defaults a host gets from `createWorker(webhooks)`. */
const WORKER_OPTIONS: WorkerOptions = {};

/** Emits at a steady pace, one `emit` after another, each waiting for its turn on the clock. */
async function emitPaced(
  webhooks: WebhookService,
  agencies: readonly string[],
  count: number,
  perSecond: number,
): Promise<void> {
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const wait = started + (n * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const agencyId = agencies[n % agencies.length]!;
    await webhooks.emit({
      agencyId,
      eventType: 'job_cancelled',
      entityId: `job-${n}`,
      metadata: { jobId: `job-${n}`, agencyId, jobNumber: n, reason: 'benchmark' },
    });
  }
}

/**
 * Delivers `perAgency` deliveries of each agency through `webhooks` in `regime`,
 * with a fresh worker that is stopped (every attempt recorded) before the last
 * snapshot. `received` counts what the receiver has got so far.
 */
export async function runRegime<Snapshot>(options: {
  webhooks: WebhookService;
  agencies: readonly string[];
  perAgency: number;
  regime: Regime;
  received: () => Promise<number>;
  meter: PhaseMeter<Snapshot>;
}): Promise<RegimeSnapshots<Snapshot>> {
  const { webhooks, agencies, perAgency, regime, received, meter } = options;
  const count = agencies.length * perAgency;
  const target = (await received()) + count;
  const worker = createWorker(webhooks, WORKER_OPTIONS);
  const began = performance.now();
  const start = await meter.snapshot();
  let emitted: Snapshot | null = null;
  if (regime.kind === 'backlog') {
    await emitBacklog(webhooks, agencies, perAgency);
    emitted = await meter.snapshot();
    await worker.start();
  } else {
    await worker.start();
    await emitPaced(webhooks, agencies, count, regime.perSecond);
  }
  await waitForDeliveries(received, target, `${regime.kind} run`);
  await worker.stop();
  const wallSeconds = (performance.now() - began) / 1000;
  return { start, emitted, end: await meter.snapshot(), wallSeconds };
}
