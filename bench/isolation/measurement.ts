import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createWorker, type WebhookService, type WebhookWorker } from '@svc/webhooks-core';
import { jobCancelled } from '../lib/memory-fixtures';
import { pollUntil } from '../lib/poll';
import { type Audit, auditDeliveries, type EmittedDelivery } from './audit';
import { type Backend, type BackendKind, openBackend } from './backends';
import type { Gate } from './gate';
import type { IsolationReceivers, ReceiverCounts } from './receivers';
import { type AgencyConfig, configureAgencies, createIsolationService } from './service-setup';
import { createTracker, type Tracker } from './tracker';
import { type PeakStats, type StatsSampler, startStatsSampler } from './transport-stats';

/** `own`: a hostname per agency (`a<i>.hooks.test`); `shared`: every agency on one origin (`hooks.test`). */
export type Naming = 'own' | 'shared';

/** What the measurements of a run share. */
export interface RunSetup {
  receivers: IsolationReceivers;
  gate: Gate;
  secret: string;
  agencies: number;
  perAgency: number;
}

export interface MeasurementPlan {
  backend: BackendKind;
  naming: Naming;
  /** Share of the agencies whose receiver hangs, in percent. */
  hangingPercent: number;
  /**
   * The twin of a hanging measurement: those agencies are configured as before
   * but emit nothing, so the healthy agencies deliver the same work with nobody
   * hanging.
   */
  idle: boolean;
  /** Unique per measurement: names its schema or key prefix, and tags its requests to the receivers. */
  tag: string;
  /** Longest wait for the healthy deliveries, in ms; a run still short of them then is reported unfinished. */
  deadlineMs: number;
}

/** Known once the worker has stopped and the deliveries were audited; never rejects. */
export interface Settlement {
  audit: Audit | null;
  /** Why there is no audit, or what went wrong while cleaning up. */
  error: string | null;
  peak: PeakStats;
  receiver: ReceiverCounts | null;
  /** How long `worker.stop()` took: it waits for the attempts still held by hanging receivers. */
  stopMs: number;
}

export interface Measurement {
  plan: MeasurementPlan;
  /** Fresh backend, configurations and the emitted backlog, before the timed part: seconds. */
  setupSeconds: number;
  /** Healthy agencies' deliveries: (agencies − hanging agencies) × per agency. */
  healthyExpected: number;
  /** Healthy deliveries recorded as delivered when the measurement ended. */
  delivered: number;
  /** Whether every healthy delivery was delivered before the deadline. */
  finished: boolean;
  /** Worker start to the last healthy delivery (or to the deadline when unfinished), in seconds. */
  seconds: number;
  /** Worker start to the first healthy delivery, in ms; null when none was delivered. */
  firstDeliveryMs: number | null;
  /** The longest the event loop of the worker's process was late to run a timer while timed, in ms. */
  longestStallMs: number;
  /** Healthy deliveries per second; when unfinished, an upper bound: `healthyExpected / deadline`. */
  rate: number;
  tracker: Tracker;
  settled: Promise<Settlement>;
}

/** Longest wait for `worker.stop()`: the attempt timeout (10 s by default) plus a wide margin. */
const STOP_LIMIT_MS = 60_000;

const agencyIdOf = (index: number) => `a${index}`;

function urlOf(setup: RunSetup, plan: MeasurementPlan, index: number, hanging: boolean): string {
  const path = `/${hanging ? 'hang' : 'ok'}/${plan.tag}/${agencyIdOf(index)}`;
  const { ports } = setup.receivers;
  if (plan.naming === 'shared') return `https://hooks.test:${ports.shared}${path}`;
  return `https://${agencyIdOf(index)}.hooks.test:${hanging ? ports.hang : ports.ok}${path}`;
}

/** The agencies of a plan; the first ones hang (they come first in the backlog, too). */
function agenciesOf(setup: RunSetup, plan: MeasurementPlan): Array<AgencyConfig & { hanging: boolean }> {
  const hangingCount = Math.round((setup.agencies * plan.hangingPercent) / 100);
  return Array.from({ length: setup.agencies }, (_, index) => {
    const hanging = index < hangingCount;
    return { agencyId: agencyIdOf(index), webhookUrl: urlOf(setup, plan, index, hanging), hanging };
  });
}

/**
 * The backlog, agency by agency with the hanging agencies first: the order that
 * is hardest on the healthy ones (a queue serving oldest first would hand every
 * slot to hanging agencies before any healthy delivery). One agency's deliveries
 * are emitted concurrently, which keeps emitting to PostgreSQL or Redis short.
 */
async function emitBacklog(
  webhooks: WebhookService,
  agencies: ReadonlyArray<{ agencyId: string; hanging: boolean }>,
  perAgency: number,
): Promise<EmittedDelivery[]> {
  const emitted: EmittedDelivery[] = [];
  let eventNumber = 0;
  for (const { agencyId, hanging } of agencies) {
    const results = await Promise.all(
      Array.from({ length: perAgency }, () => webhooks.emit(jobCancelled(agencyId, eventNumber++))),
    );
    for (const result of results) {
      if (!result) throw new Error(`emit for ${agencyId} produced no delivery: is it configured?`);
      emitted.push({ id: result.deliveryId, hanging });
    }
  }
  return emitted;
}

/** Starts the worker and waits for the healthy deliveries or the deadline, whichever comes first. */
async function timeHealthy(
  worker: WebhookWorker,
  tracker: Tracker,
  deadlineMs: number,
): Promise<{ finished: boolean; seconds: number; firstDeliveryMs: number | null; longestStallMs: number }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), deadlineMs);
  });
  // What a host's own work in the same process (its API, say) would wait at worst.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const startedAt = performance.now();
  await worker.start();
  const finished = await Promise.race([tracker.allHealthyDelivered.then(() => true as const), deadline]);
  loopDelay.disable();
  clearTimeout(timer);
  const endedAt = finished ? tracker.lastDeliveredAt() : performance.now();
  const firstAt = tracker.firstDeliveredAt();
  return {
    finished,
    seconds: (endedAt - startedAt) / 1000,
    firstDeliveryMs: firstAt === null ? null : firstAt - startedAt,
    longestStallMs: loopDelay.max / 1e6,
  };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function stopWithin(worker: WebhookWorker, limitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`worker.stop() still waiting after ${limitMs} ms`)), limitMs);
  });
  try {
    await Promise.race([worker.stop(), limit]);
  } finally {
    clearTimeout(timer);
  }
}

interface Running {
  setup: RunSetup;
  plan: MeasurementPlan;
  backend: Backend;
  webhooks: WebhookService;
  worker: WebhookWorker;
  sampler: StatsSampler;
  emitted: EmittedDelivery[];
}

/** How long the receivers may take to see the connections the sender closed when its attempts ended. */
export const CLOSE_GRACE_MS = 1_000;

/**
 * The receivers' counts of `tag`, asked again until no held request is open or
 * the grace has passed. The sender closes a held connection when its attempt
 * ends, before `worker.stop()` resolves, but the receivers' process sees the
 * close a moment later. Asked at once (the memory backend's audit takes a few
 * milliseconds), they counted some open in about one measurement per run, and
 * every one of those was closed when asked again.
 */
async function countsOnceClosed(receivers: IsolationReceivers, tag: string): Promise<ReceiverCounts> {
  const { value } = await pollUntil(
    () => receivers.counts(tag),
    (counts) => counts.open === 0,
    CLOSE_GRACE_MS,
  );
  return value;
}

/**
 * The part after the timed one, left to run in the background while the next
 * measurement goes on: stop the worker (its hanging attempts end at the attempt
 * timeout), audit every delivery, close everything, drop the schema or keys.
 * The audit and the closing go through the gate: store reads and the closing of
 * a healthy run's connections (a thousand TLS sockets with own hostnames) would
 * otherwise be paid by whichever measurement is being timed meanwhile.
 */
async function settle(running: Running): Promise<Settlement> {
  const { setup, plan, backend, webhooks, worker, sampler, emitted } = running;
  const errors: string[] = [];
  const stopStarted = performance.now();
  await stopWithin(worker, STOP_LIMIT_MS).catch((error: unknown) => errors.push(describeError(error)));
  const stopMs = performance.now() - stopStarted;
  const peak = sampler.stop();
  return setup.gate.run(async () => {
    const audit = await auditDeliveries(backend.store, backend.queue, emitted).catch((error: unknown) => {
      errors.push(`audit failed: ${describeError(error)}`);
      return null;
    });
    const receiver = await countsOnceClosed(setup.receivers, plan.tag).catch(() => null);
    if (receiver && receiver.open > 0) {
      errors.push(
        `${receiver.open} requests still held open by the hanging receivers ${CLOSE_GRACE_MS} ms after worker.stop()`,
      );
    }
    await webhooks.close().catch((error: unknown) => errors.push(describeError(error)));
    await backend.close().catch((error: unknown) => errors.push(describeError(error)));
    return { audit, error: errors.length > 0 ? errors.join('; ') : null, peak, receiver, stopMs };
  });
}

/**
 * One measurement on a fresh backend and a fresh service with default settings:
 * configure the agencies, emit the whole backlog, then time a default worker
 * from its start to the last healthy delivery. Resolves when the timed part
 * ends; `settled` follows once the worker has stopped and the audit is done.
 */
export async function measure(setup: RunSetup, plan: MeasurementPlan): Promise<Measurement> {
  const setupStarted = performance.now();
  const backend = await openBackend(plan.backend, plan.tag);
  let webhooks: WebhookService | undefined;
  try {
    const agencies = agenciesOf(setup, plan);
    const hanging = new Set(agencies.filter((agency) => agency.hanging).map((agency) => agency.agencyId));
    const healthyExpected = (agencies.length - hanging.size) * setup.perAgency;
    await configureAgencies(backend.store, agencies, setup.secret);
    const tracker = createTracker(hanging, healthyExpected);
    webhooks = createIsolationService(backend, setup.receivers.ca, tracker.hooks);
    const senders = plan.idle ? agencies.filter((agency) => !agency.hanging) : agencies;
    const emitted = await emitBacklog(webhooks, senders, setup.perAgency);
    const worker = createWorker(webhooks);
    const sampler = startStatsSampler(webhooks, () => worker.inFlight);
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    const timed = await setup.gate.run(() => timeHealthy(worker, tracker, plan.deadlineMs));
    return {
      plan,
      setupSeconds,
      healthyExpected,
      delivered: tracker.delivered(),
      finished: timed.finished,
      seconds: timed.seconds,
      firstDeliveryMs: timed.firstDeliveryMs,
      longestStallMs: timed.longestStallMs,
      rate: timed.finished ? healthyExpected / timed.seconds : healthyExpected / (plan.deadlineMs / 1000),
      tracker,
      settled: settle({ setup, plan, backend, webhooks, worker, sampler, emitted }),
    };
  } catch (error) {
    // Set-up failed before the background part took over the clean-up.
    await webhooks?.close().catch(() => undefined);
    await backend.close().catch(() => undefined);
    throw error;
  }
}
