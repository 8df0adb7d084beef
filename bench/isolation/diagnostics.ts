import { type LevelRuns, median } from './summary';

/** Where the time of one backend, naming and hanging share went, over its runs. */
export interface LevelDiagnostics {
  /** Healthy deliveries delivered, and expected, in the run that delivered the smallest share. */
  delivered: { count: number; expected: number };
  /** Worker start to the first healthy delivery, median over the runs, in ms; null when none had one. */
  firstDeliveryMs: number | null;
  /** The longest event-loop stall of each run while timed, median over the runs, in ms. */
  longestStallMs: number;
  /** Most attempts in flight in the worker at once. */
  peakInFlight: number;
  /** Most requests the hanging receivers held open at once (attempts stuck there). */
  peakHeld: number;
  /** The receivers' TLS handshakes per run (median), full and resumed. */
  handshakes: { full: number; resumed: number };
  /** Attempts to hanging receivers, by how they ended, and how long they took (ms). */
  hangingAttempts: { endings: Map<string, number>; minMs: number; maxMs: number; count: number };
  /** Healthy agencies' attempts that failed, by error kind. */
  healthyFailures: Map<string, number>;
  /** The hanging agencies' deliveries once the worker stopped. */
  hangingEnd: { pendingRetry: number; pendingUnattempted: number; failed: number };
  /** Longest `worker.stop()`, in ms. */
  stopMs: number;
  /** Worker store or queue failures reported through `onError`, by stage. */
  workerErrors: Map<string, number>;
  /** Clean-up or audit problems, as reported. */
  problems: string[];
}

function merge(into: Map<string, number>, from: ReadonlyMap<string, number>): void {
  for (const [key, count] of from) into.set(key, (into.get(key) ?? 0) + count);
}

export function diagnose(level: LevelRuns): LevelDiagnostics {
  const result: LevelDiagnostics = {
    delivered: { count: 0, expected: 0 },
    firstDeliveryMs: null,
    longestStallMs: 0,
    peakInFlight: 0,
    peakHeld: 0,
    handshakes: { full: 0, resumed: 0 },
    hangingAttempts: { endings: new Map(), minMs: Number.POSITIVE_INFINITY, maxMs: 0, count: 0 },
    healthyFailures: new Map(),
    hangingEnd: { pendingRetry: 0, pendingUnattempted: 0, failed: 0 },
    stopMs: 0,
    workerErrors: new Map(),
    problems: [],
  };
  const handshakes = { full: [] as number[], resumed: [] as number[] };
  const firstDeliveries: number[] = [];
  const stalls: number[] = [];
  let worstShare = Number.POSITIVE_INFINITY;
  for (const { measurement, settlement } of level.runs) {
    const share = measurement.delivered / measurement.healthyExpected;
    if (share < worstShare) {
      worstShare = share;
      result.delivered = { count: measurement.delivered, expected: measurement.healthyExpected };
    }
    if (measurement.firstDeliveryMs !== null) firstDeliveries.push(measurement.firstDeliveryMs);
    stalls.push(measurement.longestStallMs);
    result.peakInFlight = Math.max(result.peakInFlight, settlement.peak.inFlight);
    result.peakHeld = Math.max(result.peakHeld, settlement.receiver?.peakOpen ?? 0);
    if (settlement.receiver) {
      handshakes.full.push(settlement.receiver.handshakes.full);
      handshakes.resumed.push(settlement.receiver.handshakes.resumed);
    }
    const { durationsMs, endings } = measurement.tracker.hangingAttempts;
    merge(result.hangingAttempts.endings, endings);
    for (const ms of durationsMs) {
      result.hangingAttempts.minMs = Math.min(result.hangingAttempts.minMs, ms);
      result.hangingAttempts.maxMs = Math.max(result.hangingAttempts.maxMs, ms);
    }
    result.hangingAttempts.count += durationsMs.length;
    merge(result.healthyFailures, measurement.tracker.healthyFailures);
    merge(result.workerErrors, measurement.tracker.workerErrors);
    const hanging = settlement.audit?.hanging;
    if (hanging) {
      result.hangingEnd.pendingRetry += hanging.pendingRetry;
      result.hangingEnd.pendingUnattempted += hanging.pendingUnattempted;
      result.hangingEnd.failed += hanging.failed;
    }
    result.stopMs = Math.max(result.stopMs, settlement.stopMs);
    if (settlement.error) result.problems.push(`${measurement.plan.tag}: ${settlement.error}`);
  }
  if (firstDeliveries.length > 0) result.firstDeliveryMs = median(firstDeliveries);
  if (stalls.length > 0) result.longestStallMs = median(stalls);
  if (handshakes.full.length > 0) {
    result.handshakes = { full: median(handshakes.full), resumed: median(handshakes.resumed) };
  }
  return result;
}
