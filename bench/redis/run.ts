/**
 * Redis adapters against BullMQ, measured side by side in one run:
 * 1. end to end: deliveries/s from the first `emit` to the last recorded 2xx
 *    (our Redis store + queue + core worker) versus a plain BullMQ worker doing
 *    the same job (one job per delivery, a signed undici POST of the same
 *    envelope to the same child-process receiver, same concurrency);
 * 2. latency at a paced 200 deliveries/s, emit (or add) to recorded 2xx;
 * 3. the queue alone: enqueue → claim → ack versus add → process → complete.
 * Writes its section of docs/benchmarks.md.
 *
 * Run: pnpm --filter @svc/bench run redis   (needs Redis at REDIS_URL, default redis://127.0.0.1:6379)
 */
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { type BenchSetup, median, percentile, setUpBench } from './bench-setup';
import { measureBullmqLatency, measureBullmqThroughput } from './bullmq-run';
import { measureEngineLatency, measureEngineThroughput } from './engine-run';
import { measureBullmqQueue, measureLuaQueue } from './queue-micro';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 64;
const PACED_RATE = 200;
const PACED_COUNT = Number(process.env.BENCH_PACED ?? 2_000);

interface Results {
  engine: number[];
  bullmq: number[];
  luaQueue: number[];
  bullmqQueue: number[];
  engineLatency: number[];
  bullmqLatency: number[];
  verified: number;
}

const format = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => `${n.toFixed(2)} ms`;

async function measure(setup: BenchSetup): Promise<Results> {
  // Warm-up: JIT, TLS sessions and keep-alive connections on both sides, script caches.
  await measureEngineThroughput(setup, 'warm-engine', 2_000, CONCURRENCY);
  await measureBullmqThroughput(setup, 'warm-bullmq', 2_000, CONCURRENCY);
  setup.receiver.reset();

  const results: Results = {
    engine: [],
    bullmq: [],
    luaQueue: [],
    bullmqQueue: [],
    engineLatency: [],
    bullmqLatency: [],
    verified: 0,
  };
  for (let round = 1; round <= ROUNDS; round++) {
    results.bullmq.push(await measureBullmqThroughput(setup, `bullmq-${round}`, DELIVERIES, CONCURRENCY));
    results.engine.push(await measureEngineThroughput(setup, `engine-${round}`, DELIVERIES, CONCURRENCY));
    results.bullmqQueue.push(
      (await measureBullmqQueue(`${setup.prefix}q-bull-${round}`, DELIVERIES, CONCURRENCY)).drainPerSec,
    );
    results.luaQueue.push(
      (await measureLuaQueue(setup.redis, `${setup.prefix}q-lua-${round}:`, DELIVERIES, CONCURRENCY))
        .drainPerSec,
    );
    console.log(
      `round ${round}: end to end engine ${format(results.engine.at(-1)!)}/s vs BullMQ ${format(results.bullmq.at(-1)!)}/s;` +
        ` queue only Lua ${format(results.luaQueue.at(-1)!)}/s vs BullMQ ${format(results.bullmqQueue.at(-1)!)}/s`,
    );
  }
  results.engineLatency = await measureEngineLatency(setup, 'latency-engine', PACED_RATE, PACED_COUNT);
  results.bullmqLatency = await measureBullmqLatency(setup, 'latency-bullmq', PACED_RATE, PACED_COUNT);
  const stats = await setup.receiver.stats();
  if (stats.failed > 0) throw new Error(`The receiver rejected ${stats.failed} signatures`);
  results.verified = stats.verified;
  return results;
}

function latencyRow(label: string, samples: readonly number[]): string[] {
  const sorted = [...samples].sort((a, b) => a - b);
  return [label, ...[50, 90, 99].map((p) => ms(percentile(sorted, p))), ms(sorted.at(-1)!)];
}

function report(results: Results): string {
  const engine = median(results.engine);
  const bullmq = median(results.bullmq);
  const luaQueue = median(results.luaQueue);
  const bullmqQueue = median(results.bullmqQueue);
  const engineP99 = percentile(
    [...results.engineLatency].sort((a, b) => a - b),
    99,
  );
  const ratio = engine / bullmq;
  return [
    '## Redis adapters versus BullMQ',
    '',
    `${describeMachine()}; ${new Date().toISOString().slice(0, 10)}. ${DELIVERIES.toLocaleString('en-US')} deliveries per round,`,
    `concurrency ${CONCURRENCY}, median of ${ROUNDS} interleaved rounds, one local Redis shared by both. The receiver is a`,
    `child process that verifies every signature (${results.verified.toLocaleString('en-US')} verified, none rejected).`,
    'Command: `pnpm --filter @svc/bench run redis`.',
    '',
    markdownTable(
      ['end to end', 'deliveries/s', 'ratio to BullMQ'],
      [
        ['plain BullMQ worker: one job per delivery, signed undici POST', format(bullmq), '1.00×'],
        [
          '`emit` → Redis store + Redis queue → worker → POST → recorded',
          format(engine),
          `${ratio.toFixed(2)}×`,
        ],
      ],
    ),
    '',
    `Bar: ≥ 0.9× BullMQ — ${ratio >= 0.9 ? 'met' : 'missed'}. The engine also keeps the delivery log (insert, compare-and-set`,
    'update, per-agency indexes) that the plain BullMQ worker does not.',
    '',
    `Latency at a paced ${PACED_RATE}/s (${PACED_COUNT.toLocaleString('en-US')} deliveries each), from \`emit\` (or \`add\`) to the 2xx being recorded:`,
    '',
    markdownTable(
      ['path', 'p50', 'p90', 'p99', 'max'],
      [
        latencyRow('Redis adapters', results.engineLatency),
        latencyRow('plain BullMQ', results.bullmqLatency),
      ],
    ),
    '',
    `Bar: p99 under 5 ms — ${engineP99 < 5 ? 'met' : 'missed'}.`,
    '',
    'The queue alone (no HTTP, no store; a no-op job), entries moved through claim + ack per second:',
    '',
    markdownTable(
      ['queue', 'entries/s', 'ratio'],
      [
        ['BullMQ: add → worker → complete', format(bullmqQueue), '1.00×'],
        [
          'Lua over sorted sets: enqueue → claim (batched) → ack',
          format(luaQueue),
          `${(luaQueue / bullmqQueue).toFixed(2)}×`,
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
