import type { DeliveryCost } from './cost-summary';
import { medianOf } from './cost-summary';
import type { FleetRun } from './fleet';

/**
 * Share of a core the model plans to use, for the database server and for
 * each worker process alike: past it, queues (run queue, lock waits, the event
 * loop) make latency climb long before the rate stops rising.
 */
export const PLANNED_UTILISATION = 0.7;

/** Deliveries per second one unit can carry at most, from the work each delivery costs it. */
export interface BackendCapacity {
  /** Per core of the server, from the server processes' CPU per delivery: the bound the model uses. */
  perCoreFromCpu: number;
  /** Per core, from statement or command execution time alone (no parsing, network, commit): looser. */
  perCoreFromExec: number;
  /** CPU ms per delivery in a worker process of the fleet runs (median over the runs with the most workers). */
  workerCpuMsPerDelivery: number;
  /** Deliveries per second one worker process can carry on a core of its own, at {@link PLANNED_UTILISATION}. */
  perWorkerPlanned: number;
}

/** Worker CPU per delivery over the fleet runs with `workers` processes (median over rounds). */
export function workerCpuMsPerDelivery(runs: readonly FleetRun[], workers = 1): number {
  const matching = runs.filter((run) => run.workers === workers);
  return medianOf(
    matching.map((run) => (run.workerCpuSeconds.reduce((a, b) => a + b, 0) * 1000) / run.deliveries),
  );
}

/**
 * The model: a server core spends `serverCpuMsPerDelivery` on each delivery
 * (emit, claim, record), so it carries at most 1000 / that per second; a
 * worker process likewise from its own CPU per delivery. Measured at
 * saturation (the backlog regime), where claims and records go in batches.
 */
export function backendCapacity(cost: DeliveryCost, fleet: readonly FleetRun[]): BackendCapacity {
  const workerMs = workerCpuMsPerDelivery(fleet, Math.max(...fleet.map((run) => run.workers)));
  return {
    perCoreFromCpu: 1000 / (cost.serverCpuMsPerDelivery ?? Number.NaN),
    perCoreFromExec: 1000 / (cost.execMsPerDelivery ?? Number.NaN),
    workerCpuMsPerDelivery: workerMs,
    perWorkerPlanned: (1000 / workerMs) * PLANNED_UTILISATION,
  };
}

/** Worker processes (each with a core) that `rate` deliveries per second takes, by the model. */
export function workersFor(rate: number, capacity: BackendCapacity): number {
  return Math.ceil(rate / capacity.perWorkerPlanned);
}

/** Server cores that `rate` deliveries per second keeps busy, at {@link PLANNED_UTILISATION}. */
export function serverCoresFor(rate: number, capacity: BackendCapacity): number {
  return rate / capacity.perCoreFromCpu / PLANNED_UTILISATION;
}
