import { describe } from 'vitest';
import type { DeliveryQueue } from '../adapters/queue';
import type { WebhookStore } from '../adapters/store';
import { useAdapterFixture } from './adapter-fixture';
import { describeClaimCases } from './queue-claim-cases';
import { describeEnqueueMissingCases } from './queue-enqueue-missing-cases';
import { describeFairnessCases } from './queue-fairness-cases';
import { createQueueHarness, type QueueHarness } from './queue-harness';
import { describeLeaseCases } from './queue-lease-cases';
import { describeLoadCases } from './queue-load-cases';
import { describeWaitCases } from './queue-wait-cases';

/** What a queue factory returns for one test. */
export interface QueueFactoryResult {
  /** An empty queue (a fresh schema, key prefix or instance). */
  queue: DeliveryQueue;
  /**
   * The store the queue shares rows with, for a queue that keeps its entries on
   * the delivery records (a foreign key, or one table for both). When given, the
   * suite inserts a pending delivery for every entry before enqueueing it.
   */
  store?: WebhookStore;
  /**
   * Another queue object on the same backend (same schema or key prefix), as a
   * second worker process would create; the suite checks that a shared
   * `perAgencyLimit` holds across the two. The factory's teardown closes it.
   */
  sibling?: () => DeliveryQueue;
  /** Runs after the test: drop the schema or keys, close what the factory opened. */
  teardown?: () => Promise<void>;
}

/** Options of {@link describeQueueConformance}. */
export interface QueueConformanceOptions {
  /**
   * The smallest time step, in ms, the backend keeps for `runAt` and leases (for
   * example 1000 for a backend that stores whole seconds). Boundaries are then
   * checked one step early ("not yet") and one step minus 1 ms late ("now")
   * instead of to the millisecond.
   * @default 1
   */
  timeGranularityMs?: number;
}

/**
 * Registers the {@link DeliveryQueue} conformance suite (vitest): due times,
 * claims and leases, claim ids, replacement on enqueue, agency exclusion,
 * round robin across agencies and the per-agency cap,
 * wake-ups, and concurrent claimers. `factory` runs before every test and must
 * return an empty queue; `teardown` runs after it.
 *
 * Times are explicit (`now` values from 1_700_000_000_000); the only real waits
 * are in the `waitForWork` cases (at most 100 ms each when the queue behaves).
 * Cases of an optional capability the queue does not declare are skipped with a
 * note.
 *
 * @param name - Shown in the suite title, e.g. `'Redis'`.
 * @param factory - Creates an empty queue for one test.
 * @param options - Backend traits the suite should allow for.
 * @example
 * ```ts
 * // test/conformance.test.ts
 * import { describeQueueConformance } from '@svc/webhooks-core/testing';
 * describeQueueConformance('Redis', async () => {
 *   const prefix = `test:${randomUUID()}:`;
 *   const queue = createRedisQueue({ redis, prefix });
 *   return { queue, teardown: () => deleteKeys(prefix) };
 * });
 * ```
 */
export function describeQueueConformance(
  name: string,
  factory: () => Promise<QueueFactoryResult> | QueueFactoryResult,
  options: QueueConformanceOptions = {},
): void {
  const granularityMs = options.timeGranularityMs ?? 1;
  describe(`DeliveryQueue conformance: ${name}`, () => {
    const fixture = useAdapterFixture(async () => {
      const result = await factory();
      return {
        ...result,
        harness: createQueueHarness(result.queue, result.store, granularityMs, result.sibling),
      };
    });
    const harness = (): QueueHarness => fixture().harness;
    describeClaimCases(harness);
    describeEnqueueMissingCases(harness);
    describeFairnessCases(harness);
    describeLeaseCases(harness);
    describeWaitCases(harness);
    describeLoadCases(harness);
  });
}
