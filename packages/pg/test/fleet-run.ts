/**
 * Three worker processes sharing one database, one SIGKILLed mid-run: the check
 * behind workers.pg.test.ts (direct) and workers-pooler.pg.test.ts (PgBouncer).
 */
import { type ReceivedRequest, startTestReceiver } from '@svc/test-support';
import { createWebhookService } from '@svc/webhooks-core';
import { expect } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { spawnWorker, type WorkerProcess } from './fixtures/worker-processes';
import { createTestPool, createTestSchema } from './pg-test-database';

const AGENCIES = 20;
/** Short, so the killed worker's rows come back within seconds; renewed every third of it. */
const LEASE_MS = 3_000;

function webhookIdOfRequest(request: ReceivedRequest): string {
  return String(request.headers['x-service-webhook-id']);
}

/** Polls `check` until it returns true (the test timeout bounds the wait). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 25));
}

/**
 * Emits `deliveries`, delivers them with three worker processes on `databaseUrl`
 * and SIGKILLs one mid-run: every delivery arrives, each attempt is recorded
 * once, the killed worker's leases are picked up, and only its deliveries repeat.
 */
export async function runFleet(options: {
  databaseUrl: string;
  deliveries: number;
  label: string;
}): Promise<void> {
  const { databaseUrl, deliveries, label } = options;
  const pool = createTestPool();
  const { schema, drop } = await createTestSchema(pool);
  // The service that emits, and the workers, reach the database at `databaseUrl`.
  const emitting = createTestPool({ connectionString: databaseUrl });
  // Each answer takes a moment, so every worker holds a full window of leases when one is killed
  // (around the kill, answers take longer still: see below).
  let answerMs = 15;
  const receiver = await startTestReceiver({ respond: () => ({ status: 200, hangMs: answerMs }) });
  const workers: WorkerProcess[] = [];
  try {
    const adapters = createPgWebhooks({ pool: emitting, schema, notify: false });
    const webhooks = createWebhookService({ ...adapters, urlPolicy: { allowPrivateNetworks: true } });
    const agencies = Array.from({ length: AGENCIES }, (_, index) => `agency-${index}`);
    for (const agencyId of agencies) {
      await webhooks.putConfig(agencyId, {
        webhookUrl: receiver.url,
        enabled: true,
        subscribedEventTypes: ['job_cancelled'],
      });
    }
    const deliveryIds: string[] = [];
    for (let start = 0; start < deliveries; start += 50) {
      const batch = Array.from({ length: 50 }, (_, offset) => {
        const n = start + offset;
        const agencyId = agencies[n % AGENCIES]!;
        return webhooks.emit({
          agencyId,
          eventType: 'job_cancelled',
          entityId: `job-${n}`,
          metadata: { jobId: `job-${n}`, agencyId, jobNumber: n, reason: 'load test' },
        });
      });
      for (const emitted of await Promise.all(batch)) deliveryIds.push(emitted!.deliveryId);
    }

    const recorded = new Map<string, number>();
    const settings = {
      databaseUrl,
      schema,
      ca: receiver.ca,
      concurrency: 32,
      leaseMs: LEASE_MS,
    };
    // Started together: each process takes seconds to load on a busy machine.
    workers.push(
      ...(await Promise.all(
        [0, 1, 2].map(() =>
          spawnWorker({ ...settings, report: true }, (message) => {
            if (message.type !== 'recorded') return;
            const key = `${message.id}#${message.attempt}`;
            recorded.set(key, (recorded.get(key) ?? 0) + 1);
          }),
        ),
      )),
    );

    // Kill one worker while it is busy: it holds leases it will never ack.
    const victim = workers[0]!;
    // Its reports lag, but a worker that reported claims it has not released yet is busy.
    const reportedHeld = (worker: WorkerProcess): number => {
      const held = new Set<string>();
      for (const message of worker.messages) {
        if (message.type === 'claimed') for (const id of message.ids) held.add(id);
        if (message.type === 'released') held.delete(message.id);
      }
      return held.size;
    };
    await until(() => receiver.requests.length >= deliveries / 4);
    // Reports lag: on a loaded machine a worker that reported holding 8 had acked them all
    // when the kill landed, and held nothing. With answers of half a second, the claims a
    // busy worker reports are still held when it dies.
    answerMs = 500;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await until(() => reportedHeld(victim) >= 8);
    await victim.kill();
    answerMs = 15;
    // What the killed worker held is read from the database, not from its reports: messages
    // it sent just before the kill can die in its IPC queue. A survivor finishes an attempt
    // within half a second, so a lease still held by the same claim a second later is the
    // dead one's.
    const leases = async () => {
      const { rows } = await pool.query<{ id: string; claim_id: string }>(
        `SELECT id, claim_id FROM "${schema}".webhook_deliveries WHERE claim_id IS NOT NULL`,
      );
      return new Map(rows.map((row) => [row.id, row.claim_id]));
    };
    const before = await leases();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await leases();
    const held = new Set([...before].filter(([id, claim]) => after.get(id) === claim).map(([id]) => id));
    expect(held.size, 'leases the killed worker held').toBeGreaterThan(0);

    const expected = new Set(deliveryIds.map((id) => `whdel_${id}`));
    await until(() => new Set(receiver.requests.map(webhookIdOfRequest)).size >= expected.size);
    await until(async () => {
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM "${schema}".webhook_deliveries WHERE status = 'success'`,
      );
      return rows[0].n === deliveries;
    });
    // Stopping drains each survivor's IPC channel, so every report it sent is in.
    await Promise.all(workers.slice(1).map((worker) => worker.stop()));

    // Every delivery arrived, and nothing else did.
    const seen = receiver.requests.map(webhookIdOfRequest);
    expect(new Set(seen)).toEqual(expected);
    // Each (delivery, attempt) was recorded exactly once across all processes.
    expect([...recorded.values()].every((count) => count === 1)).toBe(true);
    const { rows } = await pool.query(
      `SELECT attempt, count(*)::int AS n, count(claim_id)::int AS claimed, count(run_at)::int AS queued
             FROM "${schema}".webhook_deliveries GROUP BY attempt`,
    );
    expect(rows).toEqual([{ attempt: 1, n: deliveries, claimed: 0, queued: 0 }]);
    // The attempt history holds each recorded attempt exactly once, and it is the attempt the
    // delivery row records: written by the same statement, never twice, never lost.
    const history = await pool.query(
      `SELECT a.attempt, a.trigger, count(*)::int AS n, count(DISTINCT a.delivery_id)::int AS deliveries,
                count(*) FILTER (WHERE a.started_at = d.last_attempt_at
                                   AND a.response_code = d.last_response_code)::int AS matching
           FROM "${schema}".webhook_attempts AS a
           JOIN "${schema}".webhook_deliveries AS d ON d.id = a.delivery_id
          GROUP BY a.attempt, a.trigger`,
    );
    expect(history.rows).toEqual([
      { attempt: 1, trigger: 'automatic', n: deliveries, deliveries: deliveries, matching: deliveries },
    ]);
    // The killed worker's rows came back and a survivor recorded the unfinished ones (a row whose
    // attempt it recorded just before dying only waited for its ack).
    const recordedBySurvivors = new Set(
      workers
        .slice(1)
        .flatMap((worker) => worker.messages)
        .flatMap((message) => (message.type === 'recorded' ? [message.id] : [])),
    );
    expect([...held].some((id) => recordedBySurvivors.has(id))).toBe(true);
    // Only those rows may reach the receiver twice (at-least-once), and then with the same webhookId.
    const counts = new Map<string, number>();
    for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
    const repeated = [...counts].filter(([, count]) => count > 1).map(([id]) => id.slice('whdel_'.length));
    expect(
      repeated.every((id) => held.has(id)),
      'only the killed worker’s deliveries repeat',
    ).toBe(true);
    console.info(
      `${label}: killed worker held ${held.size} leases; ${repeated.length} deliveries reached the receiver twice`,
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await receiver.close();
    await drop();
    await Promise.all([pool.end(), emitting.end()]);
  }
}
