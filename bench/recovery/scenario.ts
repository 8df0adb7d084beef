import { randomUUID } from 'node:crypto';
import { createWorker, type WebhookHooks, type WebhookService } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { createIdGenerator } from '../../packages/core/src/ids';
import { type BackendKind, openBackend } from '../isolation/backends';
import type { IsolationReceivers } from '../isolation/receivers';
import { configureAgencies, createIsolationService } from '../isolation/service-setup';
import { emitBacklog } from '../lib/backlog';

/** The agency whose failed deliveries are recovered. */
const RECOVERED_AGENCY = 'agency-recovered';
const CREATED_AT = 1_700_000_000_000;
const INSERT_CHUNK = 250;
/** Longest one measurement may take before it is reported as not finished. */
const MEASUREMENT_TIMEOUT_MS = 300_000;

/**
 * What one measurement delivers:
 * - `fresh`: the recovered agency's deliveries as a backlog of new events, emitted before the
 *   worker starts (the delivery benchmark's backlog, within one agency's in-flight limit);
 * - `live`: the same new events emitted while the worker runs, the emits inside the timed part (the
 *   delivery benchmark's live path: production and delivery in one window, as in a recovery);
 * - `recovery`: the same number of its `failed` deliveries, replayed by a bulk recovery;
 * - `others`: the other agencies' new events alone;
 * - `others+recovery`: the other agencies' new events while the recovery runs;
 * - `others+backlog`: the other agencies' new events while the recovered agency's backlog of new
 *   events (as `fresh`) is delivered: what any busy agency costs the others.
 */
export type Scenario = 'fresh' | 'live' | 'recovery' | 'others' | 'others+recovery' | 'others+backlog';
export const SCENARIOS: readonly Scenario[] = [
  'fresh',
  'live',
  'recovery',
  'others',
  'others+recovery',
  'others+backlog',
];

export interface Sizes {
  recovered: number;
  otherAgencies: number;
  perOtherAgency: number;
}

/** One measurement: the timed group's deliveries per second, from the worker's start to its last delivery. */
export interface Measurement {
  scenario: Scenario;
  backend: BackendKind;
  rate: number;
  seconds: number;
  /** Deliveries of the timed group. */
  delivered: number;
  /** Recovery scenarios: seconds from the worker's start until the recovery's walk completed (every replay queued). */
  walkSeconds: number | null;
}

function counter(target: number) {
  let count = 0;
  let resolve: () => void = () => {};
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  if (target === 0) resolve();
  return {
    done,
    add() {
      if (++count === target) resolve();
    },
  };
}

async function insertFailed(webhooks: WebhookService, count: number): Promise<void> {
  // Ids made at each delivery's createdAt, as an outage leaves them (a store may rely on the time in an id).
  let createdAt = CREATED_AT;
  const idAtCreation = createIdGenerator({ now: () => createdAt });
  for (let start = 0; start < count; start += INSERT_CHUNK) {
    const batch = Array.from({ length: Math.min(INSERT_CHUNK, count - start) }, (_, offset) => {
      createdAt = CREATED_AT + start + offset;
      return makeDeliveryRecord({
        id: idAtCreation(),
        agencyId: RECOVERED_AGENCY,
        eventType: 'job_cancelled',
        status: 'failed',
        attempt: 5,
        maxAttempts: 5,
        nextRetryAt: null,
        lastAttemptAt: CREATED_AT + 1,
        lastResponseCode: 503,
        createdAt,
      });
    });
    await Promise.all(batch.map((record) => webhooks.store.insertDelivery(record)));
  }
}

/** Runs one measurement on a fresh backend, the service and worker on default settings. */
export async function measure(
  backendKind: BackendKind,
  scenario: Scenario,
  sizes: Sizes,
  receivers: IsolationReceivers,
  secret: string,
): Promise<Measurement> {
  const tag = randomUUID().slice(0, 8);
  const backend = await openBackend(backendKind, `${scenario.replace('+', '-')}-${tag}`);
  const others = Array.from({ length: sizes.otherAgencies }, (_, index) => `agency-${index}`);
  const timesOthers = scenario.startsWith('others');
  const recovers = scenario === 'recovery' || scenario === 'others+recovery';
  const timed = counter(timesOthers ? others.length * sizes.perOtherAgency : sizes.recovered);
  const hooks: WebhookHooks = {
    onDelivered: (delivery) => {
      if ((delivery.agencyId === RECOVERED_AGENCY) !== timesOthers) timed.add();
    },
  };
  const webhooks = createIsolationService(backend, receivers.ca, hooks);
  const url = (agencyId: string) =>
    `https://${agencyId}.hooks.test:${receivers.ports.ok}/ok/${tag}/${agencyId}`;
  await configureAgencies(
    backend.store,
    [RECOVERED_AGENCY, ...others].map((agencyId) => ({ agencyId, webhookUrl: url(agencyId) })),
    secret,
  );
  if (scenario === 'fresh' || scenario === 'others+backlog') {
    await emitBacklog(webhooks, [RECOVERED_AGENCY], sizes.recovered);
  }
  if (recovers) await insertFailed(webhooks, sizes.recovered);
  if (timesOthers) await emitBacklog(webhooks, others, sizes.perOtherAgency);

  const worker = createWorker(webhooks);
  const started = performance.now();
  await worker.start();
  // A failed emit ends the measurement with its error (below) instead of waiting out the timeout.
  const emitting =
    scenario === 'live' ? emitBacklog(webhooks, [RECOVERED_AGENCY], sizes.recovered) : Promise.resolve();
  const emitFailed = emitting.then(() => new Promise<never>(() => {}));
  let walkSeconds: number | null = null;
  let measured = false;
  if (recovers) {
    const { recoveryId } = await webhooks.recoverDeliveries(RECOVERED_AGENCY, {
      since: CREATED_AT,
      until: CREATED_AT + sizes.recovered,
    });
    void (async () => {
      // Ends with the measurement: a walk still running when the timed group is done is reported as not done.
      while ((await webhooks.getRecovery(RECOVERED_AGENCY, recoveryId)).status === 'running') {
        if (measured) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      walkSeconds = (performance.now() - started) / 1000;
    })().catch(() => {});
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), MEASUREMENT_TIMEOUT_MS);
  });
  const ended = await Promise.race([timed.done.then(() => 'done' as const), timedOut, emitFailed]);
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  measured = true;
  await worker.stop();
  await webhooks.close();
  await backend.close();
  if (ended === 'timeout')
    throw new Error(`${backendKind} ${scenario}: not delivered in ${MEASUREMENT_TIMEOUT_MS} ms`);
  const delivered = timesOthers ? others.length * sizes.perOtherAgency : sizes.recovered;
  return { scenario, backend: backendKind, rate: delivered / seconds, seconds, delivered, walkSeconds };
}
