import type { BackendKind } from './backends';
import { type Measurement, measure, type Naming, type RunSetup } from './measurement';
import type { LevelRuns, Settled } from './summary';

/** The hanging shares measured against 0 %, in percent. */
export const HANGING_LEVELS = [10, 30] as const;

/** How long the all-healthy (0 %) measurements may take at most, in ms. */
const BASELINE_LIMIT_MS = 30_000;
/**
 * A hanging measurement may take this many times the 0 % one before it (then at
 * least 10 s, at most 30 s). A run stopped there is already far under either
 * bar (its ratio is below 1/3, or below 1/2 where the 30 s cap applies), and
 * waiting for it would only make the whole run longer.
 */
const DEADLINE_FACTOR = 3;
const DEADLINE_FLOOR_MS = 10_000;
const DEADLINE_CAP_MS = 30_000;

/** A measurement and its ratio to the 0 % ones around it (null for a 0 % one, or without a finished pair). */
interface Pending {
  measurement: Measurement;
  ratio: number | null;
}

/** Every measurement of one backend and naming, over the rounds. */
export interface Line {
  backend: BackendKind;
  naming: Naming;
  byLevel: Map<number, Pending[]>;
  /** Hanging shares whose measurement hit its deadline: not measured again. */
  hopeless: Set<number>;
}

export function newLine(backend: BackendKind, naming: Naming): Line {
  return {
    backend,
    naming,
    byLevel: new Map([0, ...HANGING_LEVELS].map((level) => [level, []])),
    hopeless: new Set(),
  };
}

let measurements = 0;
const count = (n: number) => Math.round(n).toLocaleString('en-US');

async function run(setup: RunSetup, line: Line, hangingPercent: number, deadlineMs: number) {
  const tag = `${line.backend}-${line.naming}-${hangingPercent}-${++measurements}`;
  const measurement = await measure(setup, {
    backend: line.backend,
    naming: line.naming,
    hangingPercent,
    tag,
    deadlineMs,
  });
  void logSettlement(measurement);
  return measurement;
}

function logMeasurement(measurement: Measurement, ratio: number | null): void {
  const { plan, delivered, healthyExpected, seconds, rate, finished, setupSeconds } = measurement;
  const bound = finished ? '' : '< ';
  const ratioText = ratio === null ? '' : `, ${bound}${ratio.toFixed(2)}×`;
  console.log(
    `${plan.tag}: ${bound}${count(rate)}/s${ratioText}; ${delivered}/${healthyExpected} healthy in ${seconds.toFixed(2)} s (set-up ${setupSeconds.toFixed(1)} s)`,
  );
}

async function logSettlement(measurement: Measurement): Promise<void> {
  const { audit, peak, receiver, stopMs, error } = await measurement.settled;
  const transport = peak.transport
    ? `pools ${peak.transport.pools}/${peak.transport.maxPools}, sockets ${peak.transport.sockets}/${peak.transport.maxSockets}`
    : 'no transportStats()';
  console.log(
    `  ${measurement.plan.tag} settled: stop ${(stopMs / 1000).toFixed(1)} s, ${transport}, in flight ≤ ${peak.inFlight}, ` +
      `held by hanging receivers ≤ ${receiver?.peakOpen ?? '?'}, lost ${audit?.lost ?? '?'}${error ? `; ${error}` : ''}`,
  );
}

/** A 0 % measurement, not reported: the first of a backend runs cold code paths. */
export async function warmUp(setup: RunSetup, backend: BackendKind): Promise<Measurement> {
  return run(setup, newLine(backend, 'own'), 0, BASELINE_LIMIT_MS);
}

async function baseline(setup: RunSetup, line: Line): Promise<Measurement> {
  const measurement = await run(setup, line, 0, BASELINE_LIMIT_MS);
  line.byLevel.get(0)?.push({ measurement, ratio: null });
  logMeasurement(measurement, null);
  return measurement;
}

function hangingDeadlineMs(before: Measurement): number {
  return Math.min(DEADLINE_CAP_MS, Math.max(DEADLINE_FLOOR_MS, DEADLINE_FACTOR * before.seconds * 1000));
}

/**
 * One round of a line: 0 %, the hanging shares still worth measuring (10 % then
 * 30 %, the other way round in odd rounds), 0 % again. Each hanging measurement
 * is divided by the mean of the two 0 % ones around it; no ratio when either of
 * them did not finish (its rate is only a bound).
 */
export async function measureRound(setup: RunSetup, line: Line, round: number): Promise<void> {
  const levels = HANGING_LEVELS.filter((level) => !line.hopeless.has(level));
  if (levels.length === 0) return;
  if (round % 2 === 1) levels.reverse();
  const before = await baseline(setup, line);
  const hanging: Measurement[] = [];
  for (const percent of levels) hanging.push(await run(setup, line, percent, hangingDeadlineMs(before)));
  const after = await baseline(setup, line);
  const reference = before.finished && after.finished ? (before.rate + after.rate) / 2 : null;
  for (const measurement of hanging) {
    const ratio = reference === null ? null : measurement.rate / reference;
    line.byLevel.get(measurement.plan.hangingPercent)?.push({ measurement, ratio });
    logMeasurement(measurement, ratio);
    if (!measurement.finished) line.hopeless.add(measurement.plan.hangingPercent);
  }
}

/** The line's measurements once every one of them has settled. */
export async function settleLine(line: Line): Promise<LevelRuns[]> {
  return Promise.all(
    [...line.byLevel].map(async ([hangingPercent, pending]) => {
      const runs: Settled[] = await Promise.all(
        pending.map(async ({ measurement, ratio }) => ({
          measurement,
          ratio,
          settlement: await measurement.settled,
        })),
      );
      return { backend: line.backend, naming: line.naming, hangingPercent, runs };
    }),
  );
}
