import type { Recovery, WebhookService } from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import { expect } from 'vitest';

/** A worker in another process, as the backends' fixtures start them. */
export interface KillableWorker {
  /** SIGKILL: no cleanup; its lease on a recovery is left to expire. */
  kill(): Promise<void>;
  /** A graceful stop. */
  stop(): Promise<void>;
}

/** Options of {@link runRecoveryCrash}. */
export interface RecoveryCrashOptions {
  /** A service on the backend under test, in this process, with no worker of its own. */
  webhooks: WebhookService;
  /** Where the agencies' configurations point: a receiver that refuses every delivery (a 4xx). */
  receiverUrl: string;
  /** Starts a worker process on the same backend (it walks recoveries by default). */
  spawnWorker(): Promise<KillableWorker>;
  /** @default 4 */
  agencies?: number;
  /** @default 1_250 */
  perAgency?: number;
  /** Fraction of every delivery replayed when the first worker is killed. @default 0.1 */
  killAt?: number;
}

/** What {@link runRecoveryCrash} saw. */
export interface RecoveryCrashResult {
  /** Every recovery as it ended. */
  recoveries: Recovery[];
  /** Per delivery: how many `recovery` attempts its history holds. */
  recoveryAttempts: Map<string, number>;
  /** Replayed in total when the worker was killed. */
  replayedAtKill: number;
}

const CREATED_AT = 1_700_000_000_000;
const DEADLINE_MS = 120_000;

/**
 * The durable-recovery crash test every backend runs: `agencies × perAgency`
 * failed deliveries, one recovery per agency, walked by one worker process that
 * is SIGKILLed part way; a second worker takes the recoveries over. The
 * receiver refuses every replay, so a replayed delivery is `failed` again:
 * exactly what a resumed walk must not replay a second time.
 */
export async function runRecoveryCrash(options: RecoveryCrashOptions): Promise<RecoveryCrashResult> {
  const { webhooks } = options;
  const agencies = Array.from({ length: options.agencies ?? 4 }, (_, index) => `crash-agency-${index}`);
  const perAgency = options.perAgency ?? 1_250;
  const total = agencies.length * perAgency;
  for (const agencyId of agencies) {
    await webhooks.putConfig(agencyId, {
      webhookUrl: options.receiverUrl,
      enabled: true,
      subscribedEventTypes: ['job_created'],
    });
    for (let start = 0; start < perAgency; start += 250) {
      const batch = Array.from({ length: Math.min(250, perAgency - start) }, (_, offset) =>
        makeDeliveryRecord({
          agencyId,
          status: 'failed',
          attempt: 1,
          maxAttempts: 1,
          nextRetryAt: null,
          lastAttemptAt: CREATED_AT + 1,
          lastResponseCode: 503,
          createdAt: CREATED_AT + start + offset,
        }),
      );
      await Promise.all(batch.map((record) => webhooks.store.insertDelivery(record)));
    }
  }

  const first = await options.spawnWorker();
  const recoveryIds: string[] = [];
  for (const agencyId of agencies) {
    const started = await webhooks.recoverDeliveries(agencyId, {
      since: CREATED_AT,
      until: CREATED_AT + perAgency,
    });
    if (started.matched !== perAgency) {
      throw new Error(`recovery of ${agencyId} did not start as expected: ${JSON.stringify(started)}`);
    }
    recoveryIds.push(started.recoveryId);
  }
  const read = () =>
    Promise.all(recoveryIds.map((id, index) => webhooks.getRecovery(agencies[index] as string, id)));
  const replayed = (recoveries: Recovery[]) =>
    recoveries.reduce((sum, recovery) => sum + recovery.replayed, 0);

  const deadline = Date.now() + DEADLINE_MS;
  const wait = async (done: () => Promise<boolean>, what: string): Promise<void> => {
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`recovery crash test: timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  let replayedAtKill = 0;
  await wait(async () => {
    replayedAtKill = replayed(await read());
    return replayedAtKill >= total * (options.killAt ?? 0.1);
  }, 'the first worker to replay part of the recoveries');
  const second = await options.spawnWorker();
  await first.kill();
  try {
    await wait(async () => (await read()).every((recovery) => recovery.status !== 'running'), 'completion');
    await wait(async () => {
      for (const agencyId of agencies) {
        const pending = await webhooks.store.listDeliveries(agencyId, { status: 'pending', limit: 1 });
        if (pending.length > 0) return false;
      }
      return true;
    }, 'every replay to be attempted');
  } finally {
    await second.stop();
  }

  const recoveryAttempts = new Map<string, number>();
  for (const agencyId of agencies) {
    let beforeId: string | undefined;
    for (;;) {
      const page = await webhooks.store.listDeliveries(agencyId, { limit: 500, beforeId });
      const histories = await Promise.all(page.map((delivery) => webhooks.store.listAttempts(delivery.id)));
      page.forEach((delivery, index) => {
        const recoveryOnes = (histories[index] ?? []).filter((attempt) => attempt.trigger === 'recovery');
        recoveryAttempts.set(delivery.id, recoveryOnes.length);
      });
      if (page.length < 500) break;
      beforeId = page[page.length - 1]?.id;
    }
  }
  return { recoveries: await read(), recoveryAttempts, replayedAtKill };
}

/**
 * What every backend's crash test asserts of {@link runRecoveryCrash}'s result: the worker was
 * killed part way, every recovery completed with all it matched replayed, and every delivery's
 * history holds exactly one `recovery` attempt.
 */
export function expectEachReplayedOnce(result: RecoveryCrashResult, agencies = 4, perAgency = 1_250): void {
  const total = agencies * perAgency;
  expect(result.replayedAtKill, 'killed part way').toBeLessThan(total);
  expect(result.recoveries).toHaveLength(agencies);
  for (const recovery of result.recoveries) {
    expect(recovery).toMatchObject({ status: 'completed', matched: perAgency, replayed: perAgency });
  }
  expect(result.recoveryAttempts.size).toBe(total);
  const deliveriesByCount = new Map<number, number>();
  for (const count of result.recoveryAttempts.values()) {
    deliveriesByCount.set(count, (deliveriesByCount.get(count) ?? 0) + 1);
  }
  expect(Object.fromEntries(deliveriesByCount), 'deliveries by recovery attempts').toEqual({ 1: total });
}
