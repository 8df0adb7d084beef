import type { BackendKind } from './backends';
import type { Measurement, Naming, Settlement } from './measurement';
import { type TransportStats, withinCaps } from './transport-stats';

/** A measurement with its settlement resolved. */
export interface Settled {
  measurement: Measurement;
  settlement: Settlement;
  /** Ratio to the mean of the 0 % measurements before and after it; null for a 0 % one or without a finished pair. */
  ratio: number | null;
  /** A hanging measurement's rate ÷ its idle twin's; null for the others, or when either did not finish. */
  twinRatio: number | null;
}

/** Every measurement of one backend, naming and hanging share. */
export interface LevelRuns {
  backend: BackendKind;
  naming: Naming;
  hangingPercent: number;
  /** The idle twins of that hanging share: its agencies configured, sending nothing. */
  idle: boolean;
  runs: Settled[];
}

/** The bar of each hanging share: healthy agencies' rate as a ratio of the all-healthy rate. */
export const BARS = new Map<number, number>([
  [10, 0.9],
  [30, 0.8],
]);

/** One line of the summary table, figures not yet formatted. */
export interface LevelSummary {
  backend: BackendKind;
  naming: Naming;
  hangingPercent: number;
  /** Idle twins: the hanging share's agencies send nothing. */
  idle: boolean;
  /** Median healthy rate of the finished runs; with none, the upper bound of an unfinished one. */
  rate: number;
  /**
   * Median ratio to the 0 % runs around each run (null for 0 %, or when no run
   * had a finished 0 % pair). An upper bound when `bounded`.
   */
  ratio: number | null;
  /** The rate and ratio are upper bounds: a hanging run (or every 0 % run) did not finish. */
  bounded: boolean;
  /** Runs that did not deliver every healthy delivery before their deadline. */
  unfinished: number;
  bar: number | null;
  /** Whether the ratio met the bar; null for 0 %. */
  met: boolean | null;
  /** Highest peaks over the runs; null when the service has no `transportStats()`. */
  peak: TransportStats | null;
  withinCaps: boolean | null;
  /** Deliveries lost over the runs; null when a run could not be audited. */
  lost: number | null;
  /** The ratio of each run that has one, in order. */
  ratios: number[];
  /** Median of the hanging runs' ratios to their idle twins; null for other lines, or when none has one. */
  twinRatio: number | null;
  /** The ratio to its idle twin of each hanging run that has one, in order. */
  twinRatios: number[];
}

/** The median; of an even count, the mean of the middle two (a line often has just two 0 % runs). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] ?? Number.NaN;
  return ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

function higher(a: TransportStats | null, b: TransportStats): TransportStats {
  if (!a) return b;
  return {
    pools: Math.max(a.pools, b.pools),
    sockets: Math.max(a.sockets, b.sockets),
    maxPools: Math.min(a.maxPools, b.maxPools),
    maxSockets: Math.min(a.maxSockets, b.maxSockets),
  };
}

/** The highest peaks over the runs, against the lowest caps seen. */
function highestPeak(runs: readonly Settled[]): TransportStats | null {
  return runs.reduce<TransportStats | null>((peak, { settlement }) => {
    const seen = settlement.peak.transport;
    return seen ? higher(peak, seen) : peak;
  }, null);
}

/** Deliveries the runs' audits found lost; null when a run could not be audited. */
function lostIn(runs: readonly Settled[]): number | null {
  let lost = 0;
  for (const { settlement } of runs) {
    if (!settlement.audit) return null;
    lost += settlement.audit.lost;
  }
  return lost;
}

/** The rate of a line and whether it is only a bound. */
function lineRate(runs: readonly Settled[], hangingPercent: number): { rate: number; bounded: boolean } {
  const finished = runs.filter((run) => run.measurement.finished);
  const unfinished = runs.find((run) => !run.measurement.finished);
  // A hanging share that missed its deadline is not measured again: that run decides the line.
  if (unfinished && (hangingPercent > 0 || finished.length === 0)) {
    return { rate: unfinished.measurement.rate, bounded: true };
  }
  return { rate: median(finished.map((run) => run.measurement.rate)), bounded: false };
}

function lineRatio(runs: readonly Settled[], hangingPercent: number, bounded: boolean): number | null {
  if (hangingPercent === 0) return null;
  if (bounded) return runs.find((run) => !run.measurement.finished)?.ratio ?? null;
  const ratios = runs.map((run) => run.ratio).filter((ratio): ratio is number => ratio !== null);
  return ratios.length > 0 ? median(ratios) : null;
}

export function summarize(level: LevelRuns): LevelSummary {
  const { runs, hangingPercent, idle } = level;
  const { rate, bounded } = lineRate(runs, hangingPercent);
  const ratio = lineRatio(runs, hangingPercent, bounded);
  // The twins are reported for scale, not judged.
  const bar = idle ? null : (BARS.get(hangingPercent) ?? null);
  const peak = highestPeak(runs);
  const twinRatios = runs.map((run) => run.twinRatio).filter((value): value is number => value !== null);
  return {
    backend: level.backend,
    naming: level.naming,
    hangingPercent,
    idle,
    rate,
    ratio,
    bounded,
    unfinished: runs.filter((run) => !run.measurement.finished).length,
    bar,
    met: bar === null ? null : ratio !== null && !bounded && ratio >= bar,
    peak,
    withinCaps: withinCaps(peak),
    lost: lostIn(runs),
    ratios: runs.map((run) => run.ratio).filter((value): value is number => value !== null),
    twinRatio: twinRatios.length > 0 ? median(twinRatios) : null,
    twinRatios,
  };
}
