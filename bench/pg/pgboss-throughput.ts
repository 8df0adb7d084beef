import type { ReceiverProcess } from '@svc/test-support';
import { signWebhook } from '@svc/webhooks-verify';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { Agent, request } from 'undici';
import { DATABASE_URL } from './bench-database';
import { cancelledJob, waitForCount } from './svc-setup';
import type { DrainResult } from './svc-throughput';

const SCHEMA = 'bench_pgboss';
const QUEUE = 'deliveries';
const SECRET = 'a'.repeat(64);

interface JobData {
  event: ReturnType<typeof cancelledJob>;
  url: string;
}

/**
 * A pg-boss instance on a freshly created schema (so no run inherits the jobs of
 * an earlier one), without cron or maintenance, which a drain does not need.
 */
export async function startBoss(): Promise<PgBoss> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  } finally {
    await admin.end();
  }
  const boss = new PgBoss({
    connectionString: DATABASE_URL,
    schema: SCHEMA,
    max: 16,
    schedule: false,
    supervise: false,
  });
  boss.on('error', (error) => console.error('pg-boss:', error));
  await boss.start();
  await boss.createQueue(QUEUE);
  return boss;
}

export async function stopBoss(boss: PgBoss): Promise<void> {
  await boss.stop({ graceful: true, wait: true });
}

/** The work a webhook job does: build the envelope, sign it, POST it with undici. */
export function createJobSender(ca: string, connections: number) {
  const dispatcher = new Agent({ connect: { ca }, connections });
  const send = async (data: JobData, jobId: string): Promise<void> => {
    const body = JSON.stringify({
      webhookId: `whdel_${jobId}`,
      eventType: data.event.eventType,
      entityType: 'job',
      entityId: data.event.entityId,
      metadata: data.event.metadata,
      deliveredAt: Date.now(),
      attempt: 1,
    });
    const response = await request(data.url, {
      method: 'POST',
      body,
      dispatcher,
      headers: {
        'content-type': 'application/json',
        'x-service-signature': signWebhook(body, SECRET),
        'x-service-webhook-id': `whdel_${jobId}`,
      },
    });
    await response.body.dump();
    if (response.statusCode >= 300) throw new Error(`receiver answered ${response.statusCode}`);
  };
  return { send, close: () => dispatcher.close() };
}

/** Inserts one job per delivery, spread over 100 agencies like the other side. */
async function insertJobs(boss: PgBoss, count: number, url: string): Promise<void> {
  for (let start = 0; start < count; start += 1_000) {
    const jobs = [];
    for (let n = start; n < Math.min(count, start + 1_000); n++) {
      jobs.push({ name: QUEUE, data: { event: cancelledJob(`agency-${n % 100}`, n), url } });
    }
    await boss.insert(jobs);
  }
}

/** How pg-boss consumes the jobs in a drain. */
export type PgBossMode = 'work' | 'fetch-loop';

/**
 * pg-boss draining `count` queued jobs with `concurrency` requests in flight.
 *
 * `work`: pg-boss's own worker API, `loops` workers registered with
 * `work(queue, { batchSize: concurrency / loops, pollingIntervalSeconds: 0.5 })`
 * (0.5 s is the smallest interval pg-boss accepts), each handler sending its
 * batch at once. This is how pg-boss is meant to be used.
 *
 * `fetch-loop`:
 `loops` hand-written loops, each fetching `concurrency / loops` jobs, sending
 * them all at once and completing them in one call, and fetching again at once
 * while jobs keep coming (where `work()` may pause for its polling interval). This
 * is pg-boss at its fastest, though not its documented worker.
 */
export async function drainWithPgBoss(
  receiver: ReceiverProcess,
  count: number,
  concurrency: number,
  loops: number,
  mode: PgBossMode,
): Promise<DrainResult> {
  const boss = await startBoss();
  const sender = createJobSender(receiver.ca, concurrency);
  try {
    await insertJobs(boss, count, receiver.url);
    receiver.reset();
    const batchSize = Math.max(1, Math.floor(concurrency / loops));
    let finished = false;
    const loop = async (): Promise<void> => {
      while (!finished) {
        const jobs = await boss.fetch<JobData>(QUEUE, { batchSize });
        if (jobs.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          continue;
        }
        await Promise.all(jobs.map((job) => sender.send(job.data, job.id)));
        await boss.complete(
          QUEUE,
          jobs.map((job) => job.id),
        );
      }
    };
    const started = performance.now();
    const running: Promise<unknown>[] = [];
    for (let index = 0; index < loops; index++) {
      running.push(
        mode === 'fetch-loop'
          ? loop()
          : boss.work<JobData>(QUEUE, { batchSize, pollingIntervalSeconds: 0.5 }, async (jobs) => {
              await Promise.all(jobs.map((job) => sender.send(job.data, job.id)));
            }),
      );
    }
    await waitForCount(async () => (await receiver.stats()).received, count);
    const seconds = (performance.now() - started) / 1000;
    finished = true;
    await Promise.all(running);
    const drain: DrainResult = { deliveries: count, seconds, perSecond: count / seconds };
    return drain;
  } finally {
    await sender.close();
    await stopBoss(boss);
  }
}
