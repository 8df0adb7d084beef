import { describe, expect, it, vi } from 'vitest';
import { LAG_TOLERANCE_MS, startLagTolerantTimer, withinDeadline } from '../src/deadline';

/** Holds the event loop, as a CPU-bound host would. */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const sleepFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 3_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`Not within 3 s: ${what}`);
    await sleepFor(5);
  }
}

describe('startLagTolerantTimer', () => {
  it('a timer held up by a blocked event loop gives the lag back before it expires', async () => {
    const expired = vi.fn();
    const timer = startLagTolerantTimer(50, expired, 10_000);
    blockEventLoop(300); // fires about 250 ms late
    await sleepFor(0);
    await turn();
    expect(expired, 'the lateness is given back, not charged').not.toHaveBeenCalled();
    expect(timer.lagCreditedMs).toBeGreaterThan(LAG_TOLERANCE_MS);
    await until('the timer to expire once the lag is given back', () => expired.mock.calls.length > 0);
    expect(expired).toHaveBeenCalledOnce();
  });

  it('a timer on time expires without credit', async () => {
    const expired = vi.fn();
    const timer = startLagTolerantTimer(20, expired, 10_000);
    await until('the timer to expire', () => expired.mock.calls.length > 0);
    expect(timer.lagCreditedMs).toBeLessThanOrEqual(LAG_TOLERANCE_MS);
  });

  it('gives back at most maxLagCreditMs in all', async () => {
    const expired = vi.fn();
    const timer = startLagTolerantTimer(10, expired, 40);
    blockEventLoop(300);
    await until('the timer to expire', () => expired.mock.calls.length > 0);
    expect(timer.lagCreditedMs).toBeLessThanOrEqual(40);
  });

  it('stop() cancels it, during the lag credit too', async () => {
    const expired = vi.fn();
    const timer = startLagTolerantTimer(10, expired, 10_000);
    blockEventLoop(100);
    await sleepFor(0);
    timer.stop();
    await sleepFor(200);
    expect(expired).not.toHaveBeenCalled();
  });
});

describe('withinDeadline', () => {
  it('work settled while the loop was blocked past the deadline is done, not timed out', async () => {
    // Both are due while the loop is held; the deadline's timer is the earlier and runs first.
    const work = new Promise<string>((resolve) => setTimeout(() => resolve('answer'), 30));
    const result = withinDeadline(work, 20, undefined, 1_000);
    blockEventLoop(100);
    expect(await result).toEqual({ kind: 'done', value: 'answer' });
  });
});
