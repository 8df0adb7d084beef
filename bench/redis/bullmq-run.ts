import type { DeliveryRecord } from '@svc/webhooks-core';
import { makeDeliveryId } from '@svc/webhooks-core/testing';
import { signWebhook } from '@svc/webhooks-verify';
import { type Job, Queue, Worker } from 'bullmq';
import { Pool } from 'undici';
// Not public API: the benchmark builds the very bytes the engine sends, so BullMQ does the same work.
import { buildEnvelope, serializeEnvelope } from '../../packages/core/src/delivery/envelope';
import { jobCancelled } from '../lib/memory-fixtures';
import { AGENCY, type BenchSetup, REDIS_URL, type Regime, until } from './bench-setup';

/** What a plain BullMQ job carries: the delivery itself, since there is no store. */
type DeliveryJob = { deliveryId: string; event: ReturnType<typeof jobCancelled>; createdAt: number };

/** The envelope our engine would send for this job, signed the same way at send time. */
function signedRequest(job: DeliveryJob, secret: string): { body: string; headers: Record<string, string> } {
  const now = Date.now();
  const record: DeliveryRecord = {
    id: job.deliveryId,
    agencyId: AGENCY,
    eventId: job.deliveryId,
    eventType: job.event.eventType,
    entityType: 'job',
    entityId: job.event.entityId,
    parentEntityId: null,
    createdById: job.event.createdById,
    createdByRole: job.event.createdByRole,
    payload: job.event.metadata,
    createdOn: job.createdAt,
    createdAt: job.createdAt,
    status: 'pending',
    attempt: 0,
    maxAttempts: 5,
    nextRetryAt: job.createdAt,
    lastAttemptAt: null,
    deliveredAt: null,
    lastResponseCode: null,
    lastErrorMessage: null,
    lastResponseExcerpt: null,
    nextAttemptTrigger: 'automatic',
  };
  const body = serializeEnvelope(buildEnvelope(record, 1, now));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signWebhook(body, secret, now),
      'x-service-webhook-id': `whdel_${job.deliveryId}`,
      'x-service-event-type': job.event.eventType,
    },
  };
}

/** A plain BullMQ producer and worker doing the same job: one job per delivery, one signed undici POST each. */
async function startBullmq(setup: BenchSetup, name: string, concurrency: number, onDone: (job: Job) => void) {
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
  const prefix = `${setup.prefix}${name}`;
  const url = new URL(setup.receiver.url);
  const pool = new Pool(url.origin, { connections: concurrency, connect: { ca: setup.receiver.ca } });
  const queue = new Queue<DeliveryJob>('deliveries', { connection, prefix });
  const worker = new Worker<DeliveryJob>(
    'deliveries',
    async (job) => {
      const { body, headers } = signedRequest(job.data, setup.secret);
      const response = await pool.request({ method: 'POST', path: url.pathname, body, headers });
      await response.body.dump();
      if (response.statusCode < 200 || response.statusCode >= 300)
        throw new Error(`HTTP ${response.statusCode}`);
    },
    { connection, prefix, concurrency, autorun: false },
  );
  worker.on('completed', onDone);
  await worker.waitUntilReady();
  return {
    /** Starts the worker (it is created stopped). */
    run: () => void worker.run(),
    /** Adds the job of delivery `deliveryId` (also the job id). */
    add: (index: number, deliveryId: string = makeDeliveryId()) =>
      queue.add(
        'deliver',
        { deliveryId, event: jobCancelled(AGENCY, index), createdAt: Date.now() },
        { jobId: deliveryId, removeOnComplete: true, removeOnFail: true, attempts: 5 },
      ),
    async stop() {
      await worker.close();
      await queue.close();
      await pool.close();
    },
  };
}

/** Deliveries/s of `count` jobs added one after another, in the given {@link Regime}. */
export async function measureBullmqRate(
  setup: BenchSetup,
  name: string,
  regime: Regime,
  count: number,
  concurrency: number,
): Promise<number> {
  let delivered = 0;
  const bull = await startBullmq(setup, name, concurrency, () => void delivered++);
  const addAll = async () => {
    for (let index = 0; index < count; index++) await bull.add(index);
  };
  const run = async () => bull.run();
  const [before, timed] = regime === 'live' ? [run, addAll] : [addAll, run];
  await before();
  const started = performance.now();
  await timed();
  await until(() => delivered >= count, 120_000, `${count} BullMQ deliveries`);
  const seconds = (performance.now() - started) / 1000;
  await bull.stop();
  return count / seconds;
}

/** Adds at a steady pace; returns each job's time from `add` to its 2xx, in ms. */
export async function measureBullmqLatency(
  setup: BenchSetup,
  name: string,
  perSecond: number,
  count: number,
): Promise<number[]> {
  const addedAt = new Map<string, number>();
  const doneAt = new Map<string, number>();
  const bull = await startBullmq(setup, name, 64, (job) => void doneAt.set(job.id ?? '', performance.now()));
  bull.run();
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    const wait = started + (index * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const deliveryId = makeDeliveryId();
    addedAt.set(deliveryId, performance.now());
    await bull.add(index, deliveryId);
  }
  await until(() => doneAt.size >= count, 30_000, 'paced BullMQ deliveries');
  await bull.stop();
  return [...addedAt].map(([id, at]) => (doneAt.get(id) ?? Number.NaN) - at);
}
