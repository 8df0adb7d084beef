import { describe, expect, it } from 'vitest';
import { sleep } from '../deadline';
import { makeEntry, type QueueHarness } from './queue-harness';
import { settlesWithin } from './settle-within';

/** Generous bound for "promptly": a pass never waits for it; a failure reports instead of hanging. */
const PROMPT_MS = 5_000;
/** Long enough that a timeout can never be mistaken for a wake-up. */
const LONG_WAIT_MS = 120_000;

/** waitForWork: wake-ups, timeout and abort; it never rejects. */
export function describeWaitCases(harness: () => QueueHarness): void {
  describe('waitForWork', () => {
    it('resolves after timeoutMs when no work arrives', async () => {
      const wait = harness().queue.waitForWork({ timeoutMs: 50 });
      expect(await settlesWithin(wait, PROMPT_MS), 'resolved within 5 s of a 50 ms timeout').toBe(true);
    });

    it('wakes promptly on enqueue, and not before (when capabilities.wakeups)', async (context) => {
      const { queue, enqueue } = harness();
      context.skip(!queue.capabilities.wakeups, 'capabilities.wakeups is false: waitForWork only times out');
      const controller = new AbortController();
      try {
        let settled = false;
        const wait = queue.waitForWork({ timeoutMs: LONG_WAIT_MS, signal: controller.signal }).then(() => {
          settled = true;
        });
        await sleep(20);
        expect(settled, 'resolved before anything was enqueued').toBe(false);
        await enqueue(makeEntry());
        expect(await settlesWithin(wait, PROMPT_MS), 'resolved within 5 s of an enqueue').toBe(true);
      } finally {
        controller.abort();
      }
    });

    it('resolves promptly when its signal aborts', async () => {
      const controller = new AbortController();
      const wait = harness().queue.waitForWork({ timeoutMs: LONG_WAIT_MS, signal: controller.signal });
      controller.abort();
      expect(await settlesWithin(wait, PROMPT_MS), 'resolved within 5 s of the abort').toBe(true);
    });

    it('resolves for a signal that is already aborted', async () => {
      const wait = harness().queue.waitForWork({ timeoutMs: LONG_WAIT_MS, signal: AbortSignal.abort() });
      expect(await settlesWithin(wait, PROMPT_MS), 'resolved within 5 s').toBe(true);
    });
  });
}
