import { type ChildProcess, spawn } from 'node:child_process';

/*
 * Busy processes beside the benchmark (BENCH_CPU_HOGS=n): a host under CPU
 * load, where the sender's own process queues work (event-loop lag, connect
 * pacing, the socket budget) and a healthy receiver must still not be charged
 * for it. Each hog is a busy-looping `node` process, killed when the run ends,
 * and ending by itself after its limit should the run die without killing it.
 */

/** What a running set of hogs offers: stop them all. */
export interface CpuHogs {
  count: number;
  stop(): void;
}

/** Starts `count` busy loops that end on their own after `limitS` seconds at most. */
export function startCpuHogs(count: number, limitS: number): CpuHogs {
  // A busy loop never runs a timer: each hog reads the clock itself every ten million turns.
  const script = `const end = Date.now() + ${Math.round(limitS * 1000)}; for (let i = 0; ; i++) if (i % 1e7 === 0 && Date.now() > end) process.exit(0);`;
  const children: ChildProcess[] = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', script], { stdio: 'ignore' }),
  );
  return {
    count,
    stop() {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}
