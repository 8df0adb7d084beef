/**
 * `pnpm --filter @svc/bench run recovery`: does a bulk recovery replay at the
 * delivery rate, and does it leave other agencies alone? On the memory,
 * PostgreSQL and Redis backends, with the service and worker on default
 * settings and receivers named by hostname (`*.hooks.test` through the resolver
 * hook, as the isolation benchmark):
 *
 * - one agency's 10,000 new events, delivered from a backlog and live (emitted
 *   while the worker runs), against the same number of its failed deliveries
 *   replayed by a recovery (all within the agency's in-flight limit): the
 *   recovery's rate as a ratio of each;
 * - 99 other agencies × 60 new deliveries, alone and while that recovery runs:
 *   their rate with the recovery as a ratio of their rate without.
 *
 * Rounds interleave every measurement, every other sequence in the reverse order;
 * the other agencies' measurements are taken BENCH_OTHERS_REPEATS times a round. Medians
 * are reported. Writes the `recovery` section of docs/benchmarks.md (`--no-write`:
 * print only).
 *
 * Environment: BENCH_BACKENDS (memory,pg,redis), BENCH_ROUNDS (5), BENCH_OTHERS_REPEATS (3),
 * BENCH_RECOVERED (10000), BENCH_OTHER_AGENCIES (99), BENCH_PER_OTHER (60),
 * DATABASE_URL, REDIS_URL.
 */
import { loadavg } from 'node:os';
import { generateSigningSecret } from '@svc/webhooks-core';
import { BACKENDS, type BackendKind } from '../isolation/backends';
import { startIsolationReceivers } from '../isolation/receivers';
import { median } from '../isolation/summary';
import { describeMachine, formatRatio, markdownTable, writeBenchSection } from '../lib/report';
import { type Measurement, measure, SCENARIOS, type Scenario, type Sizes } from './scenario';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * The other agencies' measurements (alone, with a recovery, with a backlog) are short (one or two
 * seconds) and the machine's speed drifts within seconds, so each round takes them this many times.
 */
const OTHERS_REPEATS = Number(process.env.BENCH_OTHERS_REPEATS ?? 3);
const SIZES: Sizes = {
  recovered: Number(process.env.BENCH_RECOVERED ?? 10_000),
  otherAgencies: Number(process.env.BENCH_OTHER_AGENCIES ?? 99),
  perOtherAgency: Number(process.env.BENCH_PER_OTHER ?? 60),
};
const SELECTED: BackendKind[] = process.env.BENCH_BACKENDS
  ? (process.env.BENCH_BACKENDS.split(',') as BackendKind[])
  : [...BACKENDS];
const write = !process.argv.includes('--no-write');

const BARS = { recovery: 0.9, others: 0.9 };

function format(rate: number): string {
  return `${Math.round(rate).toLocaleString('en-US')}/s`;
}

function ratio(value: number, bar: number): string {
  return `${formatRatio(value)} ${value >= bar ? '(met)' : '(**missed**)'}`;
}

/** Every other sequence goes the other way, so that a ratio's two sides take turns going first. */
function inTurn(scenarios: readonly Scenario[], turn: number): Scenario[] {
  return turn % 2 === 0 ? [...scenarios].reverse() : [...scenarios];
}

/**
 * One round of one backend: the recovered agency's measurements, then the other agencies' ones
 * {@link OTHERS_REPEATS} times. Measurements of one scenario pair up by their place in the run.
 */
function roundSequence(round: number): Scenario[] {
  const others = SCENARIOS.filter((scenario) => scenario.startsWith('others'));
  const recovered = SCENARIOS.filter((scenario) => !scenario.startsWith('others'));
  return [
    ...inTurn(recovered, round),
    ...Array.from({ length: OTHERS_REPEATS }, (_, repeat) => inTurn(others, round + repeat)).flat(),
  ];
}

async function main(): Promise<void> {
  for (const backend of SELECTED) {
    if (!(BACKENDS as readonly string[]).includes(backend)) throw new Error(`unknown backend ${backend}`);
  }
  const loadBefore = loadavg()[0] ?? 0;
  const receivers = await startIsolationReceivers();
  const secret = generateSigningSecret();
  const runs = new Map<string, Measurement[]>();
  const key = (backend: BackendKind, scenario: Scenario) => `${backend}/${scenario}`;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const backend of SELECTED) {
        for (const scenario of roundSequence(round)) {
          const result = await measure(backend, scenario, SIZES, receivers, secret);
          runs.set(key(backend, scenario), [...(runs.get(key(backend, scenario)) ?? []), result]);
          const walk = result.walkSeconds === null ? '' : `, walk done at ${result.walkSeconds.toFixed(2)} s`;
          console.log(
            `round ${round} ${backend} ${scenario}: ${format(result.rate)} (${result.seconds.toFixed(2)} s${walk})`,
          );
        }
      }
    }
  } finally {
    await receivers.close();
  }
  const rate = (backend: BackendKind, scenario: Scenario) =>
    median((runs.get(key(backend, scenario)) ?? []).map((run) => run.rate));
  // Ratios of measurements taken side by side (the same round and repeat, a minute apart at most),
  // then their median: the machine's drift between rounds cancels out.
  const pairRatios = (backend: BackendKind, scenario: Scenario, base: Scenario) => {
    const of = runs.get(key(backend, scenario)) ?? [];
    const bases = runs.get(key(backend, base)) ?? [];
    return of.map((run, index) => run.rate / (bases[index]?.rate ?? Number.NaN));
  };
  const pairedRatio = (backend: BackendKind, scenario: Scenario, base: Scenario) =>
    median(pairRatios(backend, scenario, base));
  const othersPairs = SELECTED.map(
    (backend) =>
      `${backend} ${pairRatios(backend, 'others+recovery', 'others')
        .map((value) => value.toFixed(2))
        .join(', ')}`,
  );
  const rows = SELECTED.map((backend) => {
    const fresh = rate(backend, 'fresh');
    const live = rate(backend, 'live');
    const recovery = rate(backend, 'recovery');
    const others = rate(backend, 'others');
    const withRecovery = rate(backend, 'others+recovery');
    const walks = (runs.get(key(backend, 'recovery')) ?? []).flatMap((run) => run.walkSeconds ?? []);
    return [
      backend,
      format(fresh),
      format(live),
      format(recovery),
      ratio(pairedRatio(backend, 'recovery', 'live'), BARS.recovery),
      `${pairedRatio(backend, 'recovery', 'fresh').toFixed(2)}×`,
      format(others),
      format(withRecovery),
      ratio(pairedRatio(backend, 'others+recovery', 'others'), BARS.others),
      `${pairedRatio(backend, 'others+backlog', 'others').toFixed(2)}×`,
      walks.length > 0 ? `${median(walks).toFixed(1)} s` : '–',
    ];
  });
  const loadAfter = loadavg()[0] ?? 0;
  const markdown = `## Bulk recovery (\`bench/recovery\`)

${describeMachine()}; load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after; ${ROUNDS} rounds, the other agencies' measurements ${OTHERS_REPEATS} times a round, every other sequence in the reverse order; rates are medians, ratios the median of the ratios of measurements taken side by side.
Service and worker on default settings (\`perAgencyConcurrency\` 8); Redis is the linked pair (\`createRedisWebhooks\`); receivers by hostname through the resolver hook.

- **Recovery rate**: one agency's ${SIZES.recovered.toLocaleString('en-US')} \`failed\` deliveries replayed by \`recoverDeliveries\`
  (timed from the worker's start, the request's count included, to the last delivery), as a ratio of the same number
  of its new events delivered from a backlog (emitted before the worker starts) and live (emitted while it runs,
  the emits inside the timed part, as the walk is in a recovery's). Bar: ≥ ${BARS.recovery}× the delivery
  benchmark's rate, which is its live rate: that benchmark judges its own bar live, and live is the path
  that, like a recovery, produces its deliveries inside the timed window (a recovery's walk writes each
  replay as an emit writes each event). The backlog, with nothing but delivery in its window, is shown
  beside it for scale, not judged.
- **Other agencies**: ${SIZES.otherAgencies} agencies × ${SIZES.perOtherAgency} new deliveries, timed alone and while
  that recovery runs. Bar: ≥ ${BARS.others}×. For scale, the last column: the same agencies while the recovered
  agency's backlog of new events is delivered instead (what any busy agency costs the others).

${markdownTable(
  [
    'backend',
    'backlog of new events',
    'live new events',
    'recovery',
    'recovery ÷ live',
    'recovery ÷ backlog',
    'other agencies alone',
    'with a recovery running',
    'with ÷ alone',
    'with a backlog instead ÷ alone',
    'recovery walk done at',
  ],
  rows,
)}

Other agencies, with a recovery running ÷ alone, pair by pair: ${othersPairs.join('; ')}.
`;
  console.log(markdown);
  if (write) writeBenchSection('recovery', markdown);
}

await main();
