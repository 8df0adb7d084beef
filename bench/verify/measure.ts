import { Bench } from 'tinybench';

/** A prepared call and how many of them one timed sample runs. */
export interface MeasuredTask {
  id: string;
  call: () => unknown;
  /** Whether `call` returns a promise that must settle before the next call. */
  isAsync: boolean;
  batch: number;
}

export interface MeasureOptions {
  rounds: number;
  timeMs: number;
  warmupMs: number;
}

/**
 * Measures ops/s of every task. Each timed sample runs `batch` calls, so the timer's own cost is spread
 * over many calls instead of inflating each one (which would push every ratio towards 1). The tasks run
 * interleaved in several rounds and each task's result is the median over rounds of its median sample:
 * other processes on a shared machine then disturb all contenders alike instead of a few.
 */
export async function measure(
  tasks: readonly MeasuredTask[],
  options: MeasureOptions,
): Promise<Map<string, number>> {
  const perRound = new Map<string, number[]>(tasks.map((task) => [task.id, []]));
  for (let round = 0; round < options.rounds; round++) {
    const bench = new Bench({ time: options.timeMs, warmupTime: options.warmupMs, throws: true });
    for (const task of tasks) bench.add(task.id, batched(task));
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
      const batch = tasks.find((t) => t.id === task.name)?.batch ?? 1;
      perRound.get(task.name)?.push((batch * 1000) / result.latency.p50);
    }
  }
  return new Map([...perRound].map(([id, values]) => [id, median(values)]));
}

/** Runs `batch` calls per sample and returns the last result, so the optimiser cannot drop the calls. */
function batched(task: MeasuredTask): () => unknown {
  const { call, batch } = task;
  if (task.isAsync) {
    return async () => {
      let last: unknown;
      for (let i = 0; i < batch; i++) last = await call();
      return last === undefined ? undefined : null;
    };
  }
  return () => {
    let last: unknown;
    for (let i = 0; i < batch; i++) last = call();
    return last === undefined ? undefined : null;
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
