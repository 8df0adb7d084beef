import { describe, expect, it } from 'vitest';
import { sleep } from '../src/deadline';
import { createMemoryQueue } from '../src/memory/memory-queue';
import { settlesWithin } from '../src/testing/settle-within';

/** Far from the wall clock, so a queue that read Date.now instead of its clock would misjudge every delay. */
const FAKE_NOW = 1_700_000_000_000;
const clock = () => FAKE_NOW;
const LONG_WAIT_MS = 120_000;

describe('createMemoryQueue({ clock }).waitForWork', () => {
  it('resolves when the earliest future entry falls due by the queue clock', async () => {
    const queue = createMemoryQueue({ clock });
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-a', runAt: FAKE_NOW + 30 });
    const controller = new AbortController();
    const wait = queue.waitForWork({ timeoutMs: LONG_WAIT_MS, signal: controller.signal });
    try {
      expect(await settlesWithin(wait, 2_000), 'resolved about 30 ms later').toBe(true);
    } finally {
      controller.abort();
    }
  });

  it('resolves when a lease ends, since the entry is then claimable again', async () => {
    const queue = createMemoryQueue({ clock });
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-a', runAt: FAKE_NOW });
    await queue.claim({ limit: 1, leaseMs: 30, now: FAKE_NOW });
    const controller = new AbortController();
    const wait = queue.waitForWork({ timeoutMs: LONG_WAIT_MS, signal: controller.signal });
    try {
      expect(await settlesWithin(wait, 2_000), 'resolved about 30 ms later').toBe(true);
    } finally {
      controller.abort();
    }
  });

  it('is not woken by entries that are already due (a worker excluding their agency would spin)', async () => {
    const queue = createMemoryQueue({ clock });
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-a', runAt: FAKE_NOW - 1 });
    const controller = new AbortController();
    let settled = false;
    const wait = queue.waitForWork({ timeoutMs: LONG_WAIT_MS, signal: controller.signal }).then(() => {
      settled = true;
    });
    await sleep(20);
    expect(settled, 'resolved although nothing new became due').toBe(false);
    controller.abort();
    await wait;
  });

  it('wakes on reschedule as well as on enqueue', async () => {
    const queue = createMemoryQueue({ clock });
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-a', runAt: FAKE_NOW });
    const [claim] = await queue.claim({ limit: 1, leaseMs: 60_000, now: FAKE_NOW });
    const controller = new AbortController();
    const wait = queue.waitForWork({ timeoutMs: LONG_WAIT_MS, signal: controller.signal });
    try {
      expect(claim && (await queue.reschedule(claim, FAKE_NOW))).toBe(true);
      expect(await settlesWithin(wait, 2_000), 'resolved after the reschedule').toBe(true);
    } finally {
      controller.abort();
    }
  });
});
