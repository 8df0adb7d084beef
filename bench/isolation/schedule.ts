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

/** A measurement and its ratios. */
interface Pending {
  measurement: Measurement;
  /** To the mean of the 0 % measurements around it; null for a 0 % one, or without a finished pair. */
  ratio: number | null;
  /** A hanging measurement's rate ÷ its idle twin's; null for the others, or when either did not finish. */
  twinRatio: number | null;
}

/** Every measurement of one backend and naming, over the rounds. */
export interface Line {
  backend: BackendKind;
  naming: Naming;
  byLevel: Map<number, Pending[]>;
  /** The idle twins of the hanging measurements, by hanging share. */
  idleByLevel: Map<number, Pending[]>;
  /** Hanging shares whose measurement hit its deadline: not measured again. */
  hopeless: Set<number>;
}

export function newLine(backend: BackendKind, naming: Naming): Line {
  return {
    backend,
    naming,
    byLevel: new Map([0, ...HANGING_LEVELS].map((level) => [level, []])),
    idleByLevel: new Map(HANGING_LEVELS.map((level) => [level, []])),
    hopeless: new Set(),
  };
}

let measurements = 0;
const count = (n: number) => Math.round(n).toLocaleString('en-US');

async function run(setup: RunSetup, line: Line, hangingPercent: number, deadlineMs: number, idle = false) {
  const tag = `${line.backend}-${line.naming}-${hangingPercent}${idle ? '-idle' : ''}-${++measurements}`;
  const measurement = await measure(setup, {
    backend: line.backend,
    naming: line.naming,
    hangingPercent,
    idle,
    tag,
    deadlineMs,
  });
  void logSettlement(measurement);
  return measurement;
}

function logMeasurement(
  measurement: Measurement,
  ratio: number | null,
  twinRatio: number | null = null,
): void {
  const { plan, delivered, healthyExpected, seconds, rate, finished, setupSeconds } = measurement;
  const bound = finished ? '' : '< ';
  const twinText = twinRatio === null ? '' : ` (${twinRatio.toFixed(2)}× its idle twin)`;
  const ratioText = ratio === null ? '' : `, ${bound}${ratio.toFixed(2)}×${twinText}`;
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
      `held by hanging receivers ≤ ${receiver?.peakOpen ?? '?'}, lost ${audit?.lost ?? '?'}, ` +
      `healthy attempts timed out ${measurement.tracker.healthyFailures.get('timeout') ?? 0}${error ? `; ${error}` : ''}`,
  );
}

/** A 0 % measurement, not reported: the first of a backend runs cold code paths. */
export async function warmUp(setup: RunSetup, backend: BackendKind): Promise<Measurement> {
  return run(setup, newLine(backend, 'own'), 0, BASELINE_LIMIT_MS);
}

async function baseline(setup: RunSetup, line: Line): Promise<Measurement> {
  const measurement = await run(setup, line, 0, BASELINE_LIMIT_MS);
  line.byLevel.get(0)?.push({ measurement, ratio: null, twinRatio: null });
  logMeasurement(measurement, null);
  return measurement;
}

function hangingDeadlineMs(before: Measurement): number {
  return Math.min(DEADLINE_CAP_MS, Math.max(DEADLINE_FLOOR_MS, DEADLINE_FACTOR * before.seconds * 1000));
}

/**
 * One round of a line: 0 %, the hanging shares still worth measuring (10 % then
 * 30 %, the other way round in odd rounds), each beside its idle twin (the twin
 * first in odd rounds), 0 % again. Each hanging measurement and twin is divided
 * by the mean of the two 0 % ones around it, no ratio when either of them did
 * not finish (its rate is only a bound); each hanging measurement also by its
 * twin, when both finished.
 */
export async function measureRound(setup: RunSetup, line: Line, round: number): Promise<void> {
  const levels = HANGING_LEVELS.filter((level) => !line.hopeless.has(level));
  if (levels.length === 0) return;
  const odd = round % 2 === 1;
  if (odd) levels.reverse();
  const before = await baseline(setup, line);
  const pairs: Array<{ hanging: Measurement; twin: Measurement }> = [];
  for (const percent of levels) {
    const deadlineMs = hangingDeadlineMs(before);
    const first = await run(setup, line, percent, deadlineMs, odd);
    const second = await run(setup, line, percent, deadlineMs, !odd);
    pairs.push(odd ? { hanging: second, twin: first } : { hanging: first, twin: second });
  }
  const after = await baseline(setup, line);
  const reference = before.finished && after.finished ? (before.rate + after.rate) / 2 : null;
  const ratioOf = (measurement: Measurement) => (reference === null ? null : measurement.rate / reference);
  for (const { hanging, twin } of pairs) {
    const percent = hanging.plan.hangingPercent;
    const twinRatio = hanging.finished && twin.finished ? hanging.rate / twin.rate : null;
    line.byLevel.get(percent)?.push({ measurement: hanging, ratio: ratioOf(hanging), twinRatio });
    line.idleByLevel.get(percent)?.push({ measurement: twin, ratio: ratioOf(twin), twinRatio: null });
    logMeasurement(twin, ratioOf(twin));
    logMeasurement(hanging, ratioOf(hanging), twinRatio);
    if (!hanging.finished) line.hopeless.add(percent);
  }
}

/** The line's measurements once every one of them has settled: each hanging share followed by its twins. */
export async function settleLine(line: Line): Promise<LevelRuns[]> {
  const groups = [...line.byLevel].flatMap(([hangingPercent, pending]) => {
    const twins = line.idleByLevel.get(hangingPercent);
    const own = { hangingPercent, idle: false, pending };
    return twins ? [own, { hangingPercent, idle: true, pending: twins }] : [own];
  });
  return Promise.all(
    groups.map(async ({ hangingPercent, idle, pending }) => {
      const runs: Settled[] = await Promise.all(
        pending.map(async ({ measurement, ratio, twinRatio }) => ({
          measurement,
          ratio,
          twinRatio,
          settlement: await measurement.settled,
        })),
      );
      return { backend: line.backend, naming: line.naming, hangingPercent, idle, runs };
    }),
  );
}
