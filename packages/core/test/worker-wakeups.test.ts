import { afterEach, describe, expect, it } from 'vitest';
import type { Claim, DeliveryQueue } from '../src/adapters/queue';
import { createMemoryStore } from '../src/memory/memory-store';
import { createWebhookService } from '../src/service/service';
import { createWorker, type WebhookWorker } from '../src/worker/worker';

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/**
 * A queue whose every claim, ack and waitForWork answers only when the test says
 * so, and which logs each call. Its waitForWork behaves like the Redis queue's:
 * a wake-up is delivered once, to the call that was waiting for it.
 */
function scriptedQueue() {
  const calls: string[] = [];
  const claims: Array<ReturnType<typeof deferred<Claim[]>>> = [];
  const acks: Array<ReturnType<typeof deferred<boolean>>> = [];
  const waits: Array<ReturnType<typeof deferred<void>>> = [];
  /** The service clock each claim was made at, and each reschedule's due time. */
  const claimedAt: number[] = [];
  const rescheduledTo: number[] = [];
  const queue: DeliveryQueue = {
    capabilities: { transactions: false, excludeAgencies: true, wakeups: true },
    enqueue: async () => {},
    claim: ({ now }) => {
      claimedAt.push(now);
      calls.push(`claim ${claims.length + 1}`);
      claims.push(deferred<Claim[]>());
      return (claims.at(-1) as ReturnType<typeof deferred<Claim[]>>).promise;
    },
    renew: async () => true,
    ack: () => {
      calls.push('ack');
      acks.push(deferred<boolean>());
      return (acks.at(-1) as ReturnType<typeof deferred<boolean>>).promise;
    },
    reschedule: async (_claim, runAt) => {
      rescheduledTo.push(runAt);
      calls.push('reschedule');
      return true;
    },
    waitForWork: ({ signal }) => {
      // Like every queue, it ends the wait when the worker stops.
      if (signal?.aborted) return Promise.resolve();
      calls.push(`wait ${waits.length + 1}`);
      const wait = deferred<void>();
      waits.push(wait);
      signal?.addEventListener('abort', () => wait.resolve(), { once: true });
      return wait.promise;
    },
  };
  /** Answers everything still pending, so the worker can stop. */
  const releaseAll = () => {
    for (const claim of claims) claim.resolve([]);
    for (const ack of acks) ack.resolve(true);
    for (const wait of waits) wait.resolve();
  };
  return { queue, calls, claims, acks, waits, claimedAt, rescheduledTo, releaseAll };
}

/** Lets every pending promise callback and I/O callback run. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Starts a worker whose agency has one slot, hands it one entry of that agency and then
 * another, which it gives back as saturated; returns once the worker has claimed again.
 */
async function startAndGiveBackOne(script: ReturnType<typeof scriptedQueue>, clock?: () => number) {
  const webhooks = createWebhookService({ store: createMemoryStore(), queue: script.queue, clock });
  worker = createWorker(webhooks, { concurrency: 3, perAgencyConcurrency: 1, recoverySweep: false });
  await worker.start();
  await settle();
  // The agency's one slot is taken...
  script.claims[0]?.resolve([
    { deliveryId: 'gone-1', agencyId: 'agency-a', claimId: 'c1', runAt: 0, leaseUntil: 30_000 },
  ]);
  await settle();
  // ...and a queue that counts leases its own way hands over another of its entries: given back.
  script.claims[1]?.resolve([
    { deliveryId: 'gone-2', agencyId: 'agency-a', claimId: 'c2', runAt: 0, leaseUntil: 30_000 },
  ]);
  await settle();
  expect(script.calls).toEqual(['claim 1', 'claim 2', 'ack', 'reschedule', 'claim 3']);
}

let worker: WebhookWorker | undefined;
let releaseAll = () => {};

afterEach(async () => {
  const stopped = worker?.stop();
  releaseAll();
  await stopped;
});

describe('worker wake-ups', () => {
  it('a wake-up that arrives while the worker is claiming is not lost: it claims again at once', async () => {
    const script = scriptedQueue();
    releaseAll = script.releaseAll;
    const webhooks = createWebhookService({ store: createMemoryStore(), queue: script.queue });
    worker = createWorker(webhooks, { concurrency: 2, perAgencyConcurrency: 2, recoverySweep: false });
    await worker.start();
    await settle();

    // One claim in flight (its delivery is unknown to the store, so the attempt just acks it)...
    script.claims[0]?.resolve([
      { deliveryId: 'gone', agencyId: 'agency-a', claimId: 'c1', runAt: 0, leaseUntil: 30_000 },
    ]);
    await settle();
    // ...the other slot finds nothing, so the worker waits for work.
    script.claims[1]?.resolve([]);
    await settle();
    expect(script.calls).toEqual(['claim 1', 'claim 2', 'ack', 'wait 1']);

    // The attempt ends: the freed slot makes the worker claim while `wait 1` is still outstanding.
    script.acks[0]?.resolve(true);
    await settle();
    expect(script.calls.at(-1)).toBe('claim 3');
    // The queue wakes the outstanding wait during that claim, for work the claim did not see.
    script.waits[0]?.resolve();
    await settle();
    script.claims[2]?.resolve([]);
    await settle();

    // The wake-up was delivered to `wait 1`: waiting again would sleep through it.
    expect(script.calls.slice(4)).toEqual(['claim 3', 'claim 4']);
  });
  it('a slot freed while a claim is in flight is not lost: the worker claims again instead of waiting', async () => {
    const script = scriptedQueue();
    releaseAll = script.releaseAll;
    const webhooks = createWebhookService({ store: createMemoryStore(), queue: script.queue });
    worker = createWorker(webhooks, { concurrency: 2, perAgencyConcurrency: 1, recoverySweep: false });
    await worker.start();
    await settle();

    // The agency's one slot is taken; the next claim skips the agency as saturated.
    script.claims[0]?.resolve([
      { deliveryId: 'gone', agencyId: 'agency-a', claimId: 'c1', runAt: 0, leaseUntil: 30_000 },
    ]);
    await settle();
    expect(script.calls).toEqual(['claim 1', 'claim 2', 'ack']);

    // The attempt ends while that claim is still out: its slot frees with nobody waiting to hear it...
    script.acks[0]?.resolve(true);
    await settle();
    // ...and the claim, made while the agency was saturated, finds nothing.
    script.claims[1]?.resolve([]);
    await settle();

    // The agency's due entries would wait for the poll interval: the worker claims again at once.
    expect(script.calls.slice(3)).toEqual(['claim 3']);
  });
  it('an entry given back because its agency was saturated is not slept past: the worker claims again', async () => {
    const script = scriptedQueue();
    releaseAll = script.releaseAll;
    await startAndGiveBackOne(script);
    script.claims[2]?.resolve([]);
    await settle();
    expect(script.calls.slice(5)).toEqual(['wait 1']);

    // The entry is due again 100 ms later; the wait, planned without it, would last the poll interval.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await settle();
    expect(script.calls.slice(5)).toEqual(['wait 1', 'claim 4']);
  });

  it('a given-back entry is claimed once the service clock says it is due, not when a timer fires early', async () => {
    const script = scriptedQueue();
    releaseAll = script.releaseAll;
    // The service clock runs behind the timers by `lagMs` from the give-back on, as Date.now()
    // can by a millisecond: a claim made when the timer fires would find the entry not yet due.
    let lagMs = 0;
    const clock = () => Date.now() - lagMs;
    await startAndGiveBackOne(script, clock);
    lagMs = 60;
    script.claims[2]?.resolve([]);
    await settle();
    expect(script.calls.slice(3)).toEqual(['reschedule', 'claim 3', 'wait 1']);

    // 100 ms of timers later the service clock is 60 ms short of the entry's due time.
    for (let waited = 0; script.calls.length < 7 && waited < 1_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(script.calls.slice(3)).toEqual(['reschedule', 'claim 3', 'wait 1', 'claim 4']);
    expect(script.claimedAt[3]).toBeGreaterThanOrEqual(script.rescheduledTo[0] as number);
  });
});
