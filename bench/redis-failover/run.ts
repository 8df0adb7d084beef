/**
 * Redis Cluster failover and the `durability` setting, on a real cluster of 3
 * masters and 3 replicas (REDIS_CLUSTER_NODES; .ci/redis-cluster.sh starts one):
 * 1. the cost of `durability: { replicas: 1 }` (Redis WAIT after each emit and each
 *    attempt record), linked store and queue, measured in alternating pairs with it
 *    off: sequential emit latency, emits/s with 64 in flight, deliveries/s draining
 *    a backlog through one worker;
 * 2. the failover bar: runs of 1,500 emits at 250/s to a real HTTPS receiver, the
 *    slot's master SIGKILLed after 250 and started again once a replica took over
 *    (packages/redis/test/failover-scenario.ts), alternately with durability on and off.
 * Writes its section of docs/benchmarks.md.
 *
 * Run: pnpm --filter @svc/bench run redis-failover
 */
import { loadavg } from 'node:os';
import { runFailover } from '../../packages/redis/test/failover-scenario';
import { describeMachine, formatRatio, markdownTable, writeBenchSection } from '../lib/report';
import { clusterNodes, median } from './cluster-nodes';
import { type DurabilitySample, latencySummary, measureDurability } from './durability-cost';

const RUNS = Number(process.env.FAILOVER_RUNS ?? 8);
const ROUNDS = Number(process.env.DURABILITY_ROUNDS ?? 5);
const nodes = clusterNodes();

const ms = (n: number): string => `${n.toFixed(2)} ms`;
const rate = (n: number): string => Math.round(n).toLocaleString('en-US');

async function durabilityCost(): Promise<string> {
  const sample = (durable: boolean, label: string): Promise<DurabilitySample> =>
    measureDurability({
      nodes,
      durable,
      label,
      sequential: 500,
      concurrent: 3_000,
      inFlight: 64,
      backlog: 3_500,
    });
  await sample(false, 'warm-off');
  await sample(true, 'warm-on');
  const off: DurabilitySample[] = [];
  const on: DurabilitySample[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which goes first, so a drift of the machine's load falls on both.
    if (round % 2 === 1) {
      off.push(await sample(false, `off-${round}`));
      on.push(await sample(true, `on-${round}`));
    } else {
      on.push(await sample(true, `on-${round}`));
      off.push(await sample(false, `off-${round}`));
    }
    const [a, b] = [off.at(-1)!, on.at(-1)!];
    console.log(
      `round ${round}: emit p50 off ${ms(latencySummary(a.emitLatencies).p50)} on ${ms(latencySummary(b.emitLatencies).p50)};` +
        ` emits/s off ${rate(a.emitsPerSecond)} on ${rate(b.emitsPerSecond)};` +
        ` deliveries/s off ${rate(a.deliveriesPerSecond)} on ${rate(b.deliveriesPerSecond)}`,
    );
  }
  const stat = (samples: DurabilitySample[], pick: (s: DurabilitySample) => number) =>
    median(samples.map(pick));
  const rows: [string, (s: DurabilitySample) => number, (n: number) => string, boolean][] = [
    ['emit latency p50 (sequential)', (s) => latencySummary(s.emitLatencies).p50, ms, false],
    ['emit latency p99 (sequential)', (s) => latencySummary(s.emitLatencies).p99, ms, false],
    ['emits/s, 64 in flight', (s) => s.emitsPerSecond, rate, true],
    ['deliveries/s, backlog drain (1 worker, concurrency 64)', (s) => s.deliveriesPerSecond, rate, true],
  ];
  return markdownTable(
    ['', 'durability off', 'durability on (replicas 1)', 'on / off'],
    rows.map(([label, pick, format]) => {
      const a = stat(off, pick);
      const b = stat(on, pick);
      return [label, format(a), format(b), formatRatio(b / a)];
    }),
  );
}

async function failovers(): Promise<string> {
  const rows: string[][] = [];
  const totals = { on: { untyped: 0, lost: 0, claims: 0 }, off: { untyped: 0, lost: 0, claims: 0 } };
  for (let run = 1; run <= RUNS; run++) {
    for (const durable of run % 2 === 1 ? [true, false] : [false, true]) {
      const result = await runFailover({
        nodes,
        durability: durable ? { replicas: 1, timeoutMs: 1_000 } : undefined,
        emits: 1_500,
        ratePerSecond: 250,
        killAfter: 250,
      });
      const key = durable ? 'on' : 'off';
      const untyped = result.untyped.length + result.untypedReported.length;
      totals[key].untyped += untyped;
      totals[key].lost += result.lost;
      totals[key].claims += result.reported.claim ?? 0;
      const reported = Object.entries(result.reported)
        .map(([stage, count]) => `${stage} ${count}`)
        .join(', ');
      console.log(`run ${run}, durability ${key}: ${JSON.stringify(result)}`);
      rows.push([
        `${run}`,
        key,
        rate(result.acknowledged),
        `${result.lost}`,
        `${untyped}`,
        rate(result.typedFailures),
        `${(result.unavailableWindowMs / 1000).toFixed(1)} s`,
        `${result.duplicates}`,
        `${result.attemptsRecordedTwice}`,
        reported || '0',
        `${(result.p99Ms / 1000).toFixed(1)} s`,
        `${(result.ackedToReceivedP99Ms / 1000).toFixed(1)} s`,
      ]);
    }
  }
  const table = markdownTable(
    [
      'run',
      'durability',
      'acknowledged',
      'lost',
      'untyped errors',
      'typed failures (retried)',
      'unavailable window',
      'duplicates',
      'attempts recorded twice',
      'worker onError (typed)',
      'emit→receive p99',
      'acknowledged→receive p99',
    ],
    rows,
  );
  return `${table}\n\nDurability on, ${RUNS} runs: ${totals.on.untyped} untyped errors to a caller, ${totals.on.lost} acknowledged deliveries lost, ${totals.on.claims} claim errors reported. Durability off: ${totals.off.untyped} untyped, ${totals.off.lost} lost.`;
}

const started = new Date().toISOString();
const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');
const loadBefore = load();
const cost = await durabilityCost();
const loadBetween = load();
const bar = await failovers();
const loadAfter = load();
writeBenchSection(
  'redis-failover',
  `## Redis Cluster: failover and durability

\`pnpm --filter @svc/bench run redis-failover\` (${started}; ${describeMachine()}): a local cluster of 3 masters and
3 replicas (\`.ci/redis-cluster.sh\`, \`cluster-node-timeout\` 2 s, no persistence), the linked store and queue under one
tagged prefix, ioredis' default cluster options. Machine load average (1 / 5 / 15 min): ${loadBefore} before,
${loadBetween} after the cost pairs, ${loadAfter} after the failover runs (two cores shared with other work: absolute
rates and latencies are this machine's under that load; compare the ratios and the counts).

**The cost of \`durability: { replicas: 1 }\`**: Redis \`WAIT\` after each emit's insert and each attempt record.
Medians of ${ROUNDS} alternating pairs.

${cost}

**Failover under traffic**: per run 1,500 emits at 250/s by a host that retries \`store_unavailable\` with the same
\`eventId\` (every 200 ms), a worker delivering to a local HTTPS receiver, the slot's master SIGKILLed after 250 emits
and started again once a replica has taken over (it rejoins as a replica). The latency columns are dominated by the
worker draining what piled up during the window at this machine's rate; the bar is the lost and untyped columns. *Lost*: acknowledged (the emit resolved)
and never received. *Unavailable window*: first to last emit call that failed typed; with durability on it lasts until
the killed node has rejoined and synced, since the promoted master has no replica to acknowledge before that.

${bar}
`,
);
process.exit(0);
