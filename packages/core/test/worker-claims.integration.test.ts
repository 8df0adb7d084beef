import { jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryQueue } from '../src/adapters/queue';
import { createMemoryQueue } from '../src/memory/memory-queue';

let harness: ServiceHarness;
/** Requests the receiver holds, each waiting for its answer. */
let held: Array<{ deliveryId: string; answer: () => void }> = [];

afterEach(async () => {
  for (const request of held.splice(0)) request.answer();
  await harness?.close();
});

/** A memory queue that reports `inProcess` as told and records the `limit` of every claim. */
function recordingQueue(inProcess: boolean): { queue: DeliveryQueue; claimLimits: number[] } {
  const inner = createMemoryQueue();
  const claimLimits: number[] = [];
  const queue: DeliveryQueue = {
    capabilities: { ...inner.capabilities, inProcess },
    enqueue: (entry, options) => inner.enqueue(entry, options),
    claim: (options) => {
      claimLimits.push(options.limit);
      return inner.claim(options);
    },
    renew: (claim, leaseMs, now) => inner.renew(claim, leaseMs, now),
    ack: (claim) => inner.ack(claim),
    reschedule: (claim, runAt) => inner.reschedule(claim, runAt),
    waitForWork: (options) => inner.waitForWork(options),
  };
  return { queue, claimLimits };
}

/**
 * 16 slots, 24 deliveries, a receiver that holds every request until the test
 * lets it go: the first 16 fill the slots and the rest wait in the queue.
 */
async function fillSlots(inProcess: boolean) {
  const { queue, claimLimits } = recordingQueue(inProcess);
  held = [];
  harness = await startServiceHarness({
    queue: () => queue,
    worker: { concurrency: 16, perAgencyConcurrency: 16 },
  });
  await harness.configure('agency-a');
  // Answered at once, these open the agency's window (2, 4, 8, 16) so the held ones fill every slot.
  for (let i = 0; i < 3; i++) {
    const { deliveryId } = (await harness.webhooks.emit(jobCancelled('agency-a', 100 + i)))!;
    await harness.waitForStatus('agency-a', deliveryId, 'success');
  }
  harness.receiver.respond(
    (request) =>
      new Promise((resolve) => {
        const { webhookId } = JSON.parse(request.rawBody) as { webhookId: string };
        held.push({ deliveryId: webhookId.slice('whdel_'.length), answer: () => resolve({ status: 200 }) });
      }),
  );
  for (let i = 0; i < 24; i++) await harness.webhooks.emit(jobCancelled('agency-a', i));
  await harness.receiver.waitForRequests(16);
  const answerOne = async () => {
    const request = held.shift();
    request?.answer();
    if (request) await harness.waitForStatus('agency-a', request.deliveryId, 'success');
  };
  return { claimLimits, answerOne };
}

describe('worker claims', () => {
  it('on an in-process queue, fills a slot as soon as it frees', async () => {
    const { claimLimits, answerOne } = await fillSlots(true);
    await answerOne();
    await harness.receiver.waitForRequests(17);
    expect(claimLimits.at(-1)).toBe(1);
  });

  it('on other queues, waits until an eighth of the slots are free and claims them together', async () => {
    const { claimLimits, answerOne } = await fillSlots(false);
    const claimsBefore = claimLimits.length;
    await answerOne();
    // One free slot of 16 is below the batch of 2: no claim, no 17th request.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(claimLimits.length).toBe(claimsBefore);
    expect(held).toHaveLength(15);
    await answerOne();
    await harness.receiver.waitForRequests(18);
    expect(claimLimits.at(-1)).toBe(2);
  });
});
