/**
 * Redis adapters against BullMQ, measured side by side in one run:
 * 1. end to end, deliveries/s, our Redis store + queue + core worker (linked and
 *    separate) versus a plain BullMQ worker doing the same job (one job per
 *    delivery, a signed undici POST of the same envelope to the same
 *    child-process receiver, same concurrency), in two regimes: live (one
 *    producer emits while the worker delivers; first emit to last recorded 2xx)
 *    and backlog (everything emitted first; worker start to last recorded 2xx);
 * 2. latency at a paced 200 deliveries/s, emit (or add) to recorded 2xx;
 * 3. the queue alone: enqueue → claim → ack versus add → process → complete.
 * Writes its section of docs/benchmarks.md.
 *
 * Run: pnpm --filter @svc/bench run redis   (needs Redis at REDIS_URL, default redis://127.0.0.1:6379)
 */
import { loadavg } from 'node:os';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { type BenchSetup, median, percentile, setUpBench } from './bench-setup';
import { measureBullmqLatency, measureBullmqRate } from './bullmq-run';
import { measureEngineLatency, measureEngineRate } from './engine-run';
import { measureBullmqQueue, measureLuaQueue } from './queue-micro';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 64;
const PACED_RATE = 200;
const PACED_COUNT = Number(process.env.BENCH_PACED ?? 2_000);

interface Results {
  linked: number[];
  separate: number[];
  bullmq: number[];
  linkedDrain: number[];
  separateDrain: number[];
  bullmqDrain: number[];
  luaQueue: number[];
  bullmqQueue: number[];
  linkedLatency: number[];
  bullmqLatency: number[];
  verified: number;
  /** 1-minute load average at the start and the end of the run. */
  load: number[];
}

const format = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => `${n.toFixed(2)} ms`;
const ratio = (n: number, base: number): string => `${(n / base).toFixed(2)}×`;

/** One interleaved round of every throughput measurement. */
async function measureRound(setup: BenchSetup, round: number, results: Results): Promise<void> {
  results.bullmq.push(await measureBullmqRate(setup, `bullmq-${round}`, 'live', DELIVERIES, CONCURRENCY));
  results.linked.push(
    await measureEngineRate(setup, `linked-${round}`, 'linked', 'live', DELIVERIES, CONCURRENCY),
  );
  results.separate.push(
    await measureEngineRate(setup, `separate-${round}`, 'separate', 'live', DELIVERIES, CONCURRENCY),
  );
  results.bullmqDrain.push(
    await measureBullmqRate(setup, `bullmq-drain-${round}`, 'backlog', DELIVERIES, CONCURRENCY),
  );
  results.linkedDrain.push(
    await measureEngineRate(setup, `linked-drain-${round}`, 'linked', 'backlog', DELIVERIES, CONCURRENCY),
  );
  results.separateDrain.push(
    await measureEngineRate(setup, `separate-drain-${round}`, 'separate', 'backlog', DELIVERIES, CONCURRENCY),
  );
  const bullQueue = await measureBullmqQueue(`${setup.prefix}q-bull-${round}`, DELIVERIES, CONCURRENCY);
  const luaQueue = await measureLuaQueue(
    setup.redis,
    `${setup.prefix}q-lua-${round}:`,
    DELIVERIES,
    CONCURRENCY,
  );
  results.bullmqQueue.push(bullQueue.drainPerSec);
  results.luaQueue.push(luaQueue.drainPerSec);
  console.log(
    `round ${round}: live BullMQ ${format(results.bullmq.at(-1)!)}/s, linked ${format(results.linked.at(-1)!)}/s,` +
      ` separate ${format(results.separate.at(-1)!)}/s; backlog BullMQ ${format(results.bullmqDrain.at(-1)!)}/s,` +
      ` linked ${format(results.linkedDrain.at(-1)!)}/s, separate ${format(results.separateDrain.at(-1)!)}/s;` +
      ` queue only BullMQ ${format(bullQueue.drainPerSec)}/s, Lua ${format(luaQueue.drainPerSec)}/s`,
  );
}

async function measure(setup: BenchSetup): Promise<Results> {
  // Warm-up: JIT, TLS sessions and keep-alive connections on both sides, script caches.
  await measureBullmqRate(setup, 'warm-bullmq', 'live', 2_000, CONCURRENCY);
  await measureEngineRate(setup, 'warm-linked', 'linked', 'live', 2_000, CONCURRENCY);
  await measureEngineRate(setup, 'warm-separate', 'separate', 'live', 2_000, CONCURRENCY);
  setup.receiver.reset();
  const results: Results = {
    linked: [],
    separate: [],
    bullmq: [],
    linkedDrain: [],
    separateDrain: [],
    bullmqDrain: [],
    luaQueue: [],
    bullmqQueue: [],
    linkedLatency: [],
    bullmqLatency: [],
    verified: 0,
    load: [loadavg()[0] ?? 0],
  };
  for (let round = 1; round <= ROUNDS; round++) await measureRound(setup, round, results);
  results.bullmqLatency = await measureBullmqLatency(setup, 'latency-bullmq', PACED_RATE, PACED_COUNT);
  results.linkedLatency = await measureEngineLatency(
    setup,
    'latency-linked',
    'linked',
    PACED_RATE,
    PACED_COUNT,
  );
  const stats = await setup.receiver.stats();
  if (stats.failed > 0) throw new Error(`The receiver rejected ${stats.failed} signatures`);
  results.verified = stats.verified;
  results.load.push(loadavg()[0] ?? 0);
  return results;
}

function latencyRow(label: string, samples: readonly number[]): string[] {
  const sorted = [...samples].sort((a, b) => a - b);
  return [label, ...[50, 90, 99].map((p) => ms(percentile(sorted, p))), ms(sorted.at(-1)!)];
}

function throughputTable(results: Results): string {
  const live = {
    bullmq: median(results.bullmq),
    linked: median(results.linked),
    separate: median(results.separate),
  };
  const drain = {
    bullmq: median(results.bullmqDrain),
    linked: median(results.linkedDrain),
    separate: median(results.separateDrain),
  };
  const row = (label: string, key: keyof typeof live): string[] => [
    label,
    format(live[key]),
    ratio(live[key], live.bullmq),
    format(drain[key]),
    ratio(drain[key], drain.bullmq),
  ];
  return markdownTable(
    ['deliveries/s', 'live', 'vs BullMQ', 'backlog', 'vs BullMQ'],
    [
      row('plain BullMQ worker: one job per delivery, signed undici POST', 'bullmq'),
      row('`createRedisWebhooks` (linked store + queue) → core worker', 'linked'),
      row('`createRedisStore` + `createRedisQueue` (separate) → core worker', 'separate'),
    ],
  );
}

function verdict(value: number, base: number): string {
  return value / base >= 0.9 ? 'met' : 'missed';
}

function report(results: Results): string {
  const luaQueue = median(results.luaQueue);
  const bullmqQueue = median(results.bullmqQueue);
  const linkedP99 = percentile(
    [...results.linkedLatency].sort((a, b) => a - b),
    99,
  );
  return [
    '## Redis adapters versus BullMQ',
    '',
    `${describeMachine()}; ${new Date().toISOString().slice(0, 10)}. ${DELIVERIES.toLocaleString('en-US')} deliveries per`,
    `measurement, concurrency ${CONCURRENCY}, median of ${ROUNDS} interleaved rounds, one local Redis shared by all.`,
    'Producer and worker run in one process on separate connections (as BullMQ’s Queue and Worker do). The receiver',
    `is a child process that verifies every signature (${results.verified.toLocaleString('en-US')} verified, none rejected).`,
    `Command: \`pnpm --filter @svc/bench run redis\`. Load average (1 min) at the start and end of the run:`,
    `${results.load.map((value) => value.toFixed(2)).join(' and ')} (other processes share these cores; compare ratios).`,
    '',
    '*Live*: one producer emits (or adds) one delivery after another while the worker delivers; first emit to last',
    'recorded 2xx. *Backlog*: everything is emitted first; worker start to last recorded 2xx.',
    '',
    throughputTable(results),
    '',
    `Bar: ≥ 0.9× BullMQ (linked) — live ${verdict(median(results.linked), median(results.bullmq))}, backlog`,
    `${verdict(median(results.linkedDrain), median(results.bullmqDrain))}. Unlike the plain BullMQ worker, the engine`,
    'keeps the delivery log: the configuration read at emit, the idempotent insert with per-agency indexes, and the',
    'compare-and-set of every attempt.',
    '',
    `Latency at a paced ${PACED_RATE}/s (${PACED_COUNT.toLocaleString('en-US')} deliveries each), from \`emit\` (or \`add\`) to the`,
    '2xx being recorded:',
    '',
    markdownTable(
      ['path', 'p50', 'p90', 'p99', 'max'],
      [
        latencyRow('`createRedisWebhooks` → core worker', results.linkedLatency),
        latencyRow('plain BullMQ', results.bullmqLatency),
      ],
    ),
    '',
    `Bar: p99 under 5 ms — ${linkedP99 < 5 ? 'met' : 'missed'}.`,
    '',
    'The queue alone (no HTTP, no store; a no-op job), entries moved through claim + ack per second — the measurement',
    'behind building the queue on Lua scripts rather than BullMQ (docs/redis.md):',
    '',
    markdownTable(
      ['queue', 'entries/s', 'ratio'],
      [
        ['BullMQ: add → worker → complete', format(bullmqQueue), '1.00×'],
        [
          'Lua over sorted sets: enqueue → claim (batched) → ack',
          format(luaQueue),
          ratio(luaQueue, bullmqQueue),
        ],
      ],
    ),
  ].join('\n');
}

const setup = await setUpBench();
try {
  const markdown = report(await measure(setup));
  writeBenchSection('redis', markdown);
  console.log(markdown);
} finally {
  await setup.close();
}
