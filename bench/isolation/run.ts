/**
 * `pnpm --filter @svc/bench run isolation`: do hanging receivers cost only
 * their own agencies? 100 agencies × 20 deliveries with 0 %, 10 % and 30 % of
 * the agencies' receivers hanging (each beside an idle twin, where those
 * agencies send nothing), with a hostname per agency and with one shared
 * origin, on the memory, PostgreSQL and Redis backends, the service and
 * worker on default settings; then 300 test sends to new origins at once.
 * Writes the `isolation` section of docs/benchmarks.md (`--no-write`: print only).
 *
 * Environment: BENCH_BACKENDS (memory,pg,redis), BENCH_ROUNDS (7, at most),
 * BENCH_BUDGET_S (600: no round starts that would end past it),
 * BENCH_AGENCIES (100), BENCH_PER_AGENCY (20), BENCH_TEST_SENDS (300),
 * BENCH_CPU_HOGS (0: busy processes beside the run, a host under CPU load),
 * DATABASE_URL, REDIS_URL.
 */
import { loadavg } from 'node:os';
import { generateSigningSecret } from '@svc/webhooks-core';
import { writeBenchSection } from '../lib/report';
import { BACKENDS, type BackendKind } from './backends';
import { startCpuHogs } from './cpu-hog';
import { createGate } from './gate';
import type { Measurement, Naming, RunSetup } from './measurement';
import { startIsolationReceivers } from './receivers';
import { type Line, measureRound, newLine, settleLine, warmUp } from './schedule';
import { buildSection } from './section';
import { measureTestSends } from './test-sends';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BUDGET_S = Number(process.env.BENCH_BUDGET_S ?? 600);
const AGENCIES = Number(process.env.BENCH_AGENCIES ?? 100);
const PER_AGENCY = Number(process.env.BENCH_PER_AGENCY ?? 20);
const TEST_SENDS = Number(process.env.BENCH_TEST_SENDS ?? 300);
const CPU_HOGS = Number(process.env.BENCH_CPU_HOGS ?? 0);
/** A hog outlives no run: the budget, the last round past it, the test sends and settling. */
const HOG_LIMIT_S = BUDGET_S * 2 + 120;
const SELECTED = selectedBackends(process.env.BENCH_BACKENDS);
const NAMINGS: readonly Naming[] = ['own', 'shared'];
const write = !process.argv.includes('--no-write');

function selectedBackends(list: string | undefined): BackendKind[] {
  if (!list) return [...BACKENDS];
  const names = list.split(',').map((name) => name.trim());
  const known = names.filter((name): name is BackendKind => (BACKENDS as readonly string[]).includes(name));
  if (known.length !== names.length) {
    throw new Error(`BENCH_BACKENDS must list some of ${BACKENDS.join(', ')}; got "${list}"`);
  }
  return known;
}

const elapsedS = (since: number) => (performance.now() - since) / 1000;

/**
 * Rounds over every line (backend × naming) in turn, so that each line's
 * measurements are spread over the run and drift of the machine touches them
 * all alike. A further round starts only if, as long as the longest round so
 * far, it would end within the budget.
 */
async function measureLines(setup: RunSetup, started: number): Promise<{ lines: Line[]; rounds: number }> {
  const lines = SELECTED.flatMap((backend) => NAMINGS.map((naming) => newLine(backend, naming)));
  const warmUps: Measurement[] = [];
  let longestRoundS = 0;
  let rounds = 0;
  while (rounds < ROUNDS && (rounds === 0 || elapsedS(started) + longestRoundS <= BUDGET_S)) {
    const roundStarted = performance.now();
    for (const line of lines) {
      if (rounds === 0 && line.naming === NAMINGS[0]) warmUps.push(await warmUp(setup, line.backend));
      await measureRound(setup, line, rounds);
    }
    rounds += 1;
    longestRoundS = Math.max(longestRoundS, elapsedS(roundStarted));
    console.log(`round ${rounds} took ${Math.round(elapsedS(roundStarted))} s`);
  }
  await Promise.all(warmUps.map((measurement) => measurement.settled));
  return { lines, rounds };
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const hogs = startCpuHogs(CPU_HOGS, HOG_LIMIT_S);
  const setup: RunSetup = {
    receivers: await startIsolationReceivers(),
    gate: createGate(),
    secret: generateSigningSecret(),
    agencies: AGENCIES,
    perAgency: PER_AGENCY,
  };
  try {
    const { lines, rounds } = await measureLines(setup, started);
    const levels = (await Promise.all(lines.map(settleLine))).flat();
    const testSends = await measureTestSends(setup.receivers, TEST_SENDS, setup.secret);
    const section = buildSection(levels, testSends, {
      agencies: AGENCIES,
      perAgency: PER_AGENCY,
      rounds,
      seconds: elapsedS(started),
      load: [loadBefore, loadavg()[0] ?? 0],
      budgetS: BUDGET_S,
      cpuHogs: hogs.count,
    });
    if (write) writeBenchSection('isolation', section);
    console.log(section);
  } finally {
    hogs.stop();
    await setup.receivers.close();
  }
}

await main();
