import { type ReceiverProcess, spawnReceiverProcess } from '@svc/test-support';
import {
  createMemoryQueue,
  createWebhookService,
  createWorker,
  generateSigningSecret,
  type WebhookStore,
} from '@svc/webhooks-core';
import { configuredMemoryStore, jobCancelled } from '../lib/memory-fixtures';
import { describeMachine, markdownTable, writeBenchSection } from '../lib/report';
import { type LatencyResult, measureLatency } from './latency';
import { measureRawCeiling } from './raw-ceiling';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const CONCURRENCY = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const AGENCY = 'bench-agency';
/** Sent by the engine and by the ceiling alike, so both send the same header bytes. */
const USER_AGENT = 'svc-webhooks-bench/1';

interface Setup {
  receiver: ReceiverProcess;
  receiverUrl: string;
  ca: string;
  /** The agency's signing secret; the receiver verifies every delivery with it. */
  secret: string;
  userAgent: string;
}

async function setUp(): Promise<Setup> {
  const secret = generateSigningSecret();
  const receiver = await spawnReceiverProcess({ verify: true, secret });
  return { receiver, receiverUrl: receiver.url, ca: receiver.ca, secret, userAgent: USER_AGENT };
}

/**
 * A new memory store holding only the agency's configuration (same URL and
 * secret), so every measurement starts from the same state instead of carrying
 * the records of the measurements before it.
 */
function freshStore(setup: Setup): Promise<WebhookStore> {
  return configuredMemoryStore([{ agencyId: AGENCY, webhookUrl: setup.receiverUrl }], setup.secret);
}

/**
 * `live`: emits `count` deliveries one after another while a worker drains them,
 * timed from the first emit to the last recorded 2xx (emit shares the process).
 * `backlog`: emits them all first, then times the worker from start to the last 2xx.
 */
async function measureEngine(setup: Setup, count: number, mode: 'live' | 'backlog'): Promise<number> {
  let delivered = 0;
  let done: () => void = () => {};
  const allDelivered = new Promise<void>((resolve) => {
    done = resolve;
  });
  const webhooks = createWebhookService({
    store: await freshStore(setup),
    queue: createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: setup.ca }, connectionsPerOrigin: CONCURRENCY, userAgent: USER_AGENT },
    hooks: {
      onDelivered: () => {
        if (++delivered === count) done();
      },
    },
  });
  const worker = createWorker(webhooks, { concurrency: CONCURRENCY, perAgencyConcurrency: CONCURRENCY });
  const emitAll = async () => {
    for (let i = 0; i < count; i++) await webhooks.emit(jobCancelled(AGENCY, i));
  };
  if (mode === 'backlog') await emitAll();
  const started = performance.now();
  await worker.start();
  if (mode === 'live') await emitAll();
  await allDelivered;
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  await webhooks.close();
  return count / seconds;
}

function format(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const setup = await setUp();
  try {
    // Warm-up, one full-size round of each path: with shorter ones the first rounds
    // still ran partly unoptimised code (the engine has more of it than the ceiling).
    await measureRawCeiling(setup, DELIVERIES, CONCURRENCY);
    await measureEngine(setup, DELIVERIES, 'live');
    await measureEngine(setup, DELIVERIES, 'backlog');
    setup.receiver.reset();

    // This machine's speed drifts by tens of percent within a minute, so every
    // engine measurement sits between two ceiling measurements and is compared
    // with their mean; the ratios are the medians of those per-measurement ratios.
    const ceiling: number[] = [await measureRawCeiling(setup, DELIVERIES, CONCURRENCY)];
    const live: number[] = [];
    const backlog: number[] = [];
    const liveRatios: number[] = [];
    const backlogRatios: number[] = [];
    /** Measures the engine, then a ceiling; returns the engine rate's ratio to the ceilings on either side. */
    const betweenCeilings = async (rates: number[], mode: 'live' | 'backlog'): Promise<number> => {
      rates.push(await measureEngine(setup, DELIVERIES, mode));
      ceiling.push(await measureRawCeiling(setup, DELIVERIES, CONCURRENCY));
      return rates.at(-1)! / ((ceiling.at(-2)! + ceiling.at(-1)!) / 2);
    };
    for (let round = 0; round < ROUNDS; round++) {
      liveRatios.push(await betweenCeilings(live, 'live'));
      backlogRatios.push(await betweenCeilings(backlog, 'backlog'));
      console.log(
        `round ${round + 1}: live ${format(live.at(-1)!)}/s (${liveRatios.at(-1)!.toFixed(2)}×), backlog ${format(backlog.at(-1)!)}/s (${backlogRatios.at(-1)!.toFixed(2)}×), ceilings ${ceiling
          .slice(-3)
          .map(format)
          .join(', ')}/s`,
      );
    }
    const stats = await setup.receiver.stats();
    if (stats.failed > 0) throw new Error(`The receiver rejected ${stats.failed} signatures`);

    const latency = await measureLatency(await freshStore(setup), setup.ca, 200, 5);
    report(
      {
        ceiling: median(ceiling),
        ceilingLow: Math.min(...ceiling),
        ceilingHigh: Math.max(...ceiling),
        live: median(live),
        backlog: median(backlog),
      },
      { live: median(liveRatios), backlog: median(backlogRatios), liveRounds: liveRatios },
      latency,
      stats.verified,
    );
  } finally {
    await setup.receiver.close();
  }
}

function report(
  rates: { ceiling: number; ceilingLow: number; ceilingHigh: number; live: number; backlog: number },
  ratios: { live: number; backlog: number; liveRounds: number[] },
  latency: LatencyResult,
  verified: number,
): void {
  const lines = [
    '## Delivery throughput and latency (memory adapters)',
    '',
    `${describeMachine()}; ${new Date().toISOString().slice(0, 10)}. ${DELIVERIES.toLocaleString('en-US')} deliveries per measurement,`,
    `concurrency ${CONCURRENCY}, ${ROUNDS} rounds. The receiver is a child process that verifies every signature`,
    `(${verified.toLocaleString('en-US')} verified, none rejected). Command: \`pnpm --filter @svc/bench run delivery\`.`,
    '',
    'The ceiling sends pre-signed bodies with exactly the headers the engine sends (signature, webhook id, event',
    "type, content type, user agent), so what the ratio shows is the engine's own cost.",
    'Each engine measurement starts from a new memory store and queue, runs between two ceiling measurements',
    'and is divided by their mean; the ratios are the medians of those per-measurement ratios (the machine',
    `drifts too much for a ratio of medians: in this run the ceiling ranged from ${format(rates.ceilingLow)}/s to`,
    `${format(rates.ceilingHigh)}/s). Rates are medians over all rounds.`,
    '',
    '_Live_: the worker runs while one loop emits every delivery (`await emit` each); first emit to last recorded',
    '2xx, so the emits are paid inside the measurement. With memory adapters `emit` never waits for I/O, so the',
    'loop holds the event loop until it ends and the worker sends in earnest only after it.',
    '_Backlog_: everything is emitted first; worker start to last recorded 2xx.',
    '',
    markdownTable(
      ['path', 'deliveries/s', 'ratio to ceiling'],
      [
        [
          'raw undici `Pool.request` POSTs of the same signed requests (ceiling)',
          format(rates.ceiling),
          '1.00×',
        ],
        [
          'live: `emit` → memory store/queue → worker → transport → recorded',
          format(rates.live),
          `${ratios.live.toFixed(2)}×`,
        ],
        [
          'backlog: memory store/queue → worker → transport → recorded',
          format(rates.backlog),
          `${ratios.backlog.toFixed(2)}×`,
        ],
      ],
    ),
    '',
    `Bar: ≥ 0.70× the ceiling, end to end (live) — ${ratios.live >= 0.7 ? 'met' : 'missed'} (live per round: ${ratios.liveRounds
      .map((ratio) => `${ratio.toFixed(2)}×`)
      .join(', ')}).`,
    '',
    `Latency at a paced ${latency.ratePerSecond}/s for ${latency.seconds} s (${latency.samples} deliveries), from \`emit\``,
    'to the 2xx being recorded (an upper bound of emit-to-receive):',
    '',
    markdownTable(
      ['p50', 'p90', 'p99', 'max'],
      [[latency.p50, latency.p90, latency.p99, latency.max].map((ms) => `${ms.toFixed(2)} ms`)],
    ),
    '',
    `Bar: p99 under 5 ms — ${latency.p99 < 5 ? 'met' : 'missed'}.`,
  ];
  writeBenchSection('delivery', lines.join('\n'));
  console.log(lines.join('\n'));
}

await main();
