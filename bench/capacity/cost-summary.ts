import type { MemoryCostRun } from './memory-cost';
import type { PgCostRun, PgSnapshot } from './pg-cost';
import { costByKind, type KindCost } from './pg-kinds';
import type { StatementStats } from './pg-statements';
import type { RedisCostRun, RedisSnapshot } from './redis-cost';

/** What one delivery cost, whatever the backend; `null` where a backend has no such figure. */
export interface DeliveryCost {
  /** Statements (pg) or commands (Redis) the client sent. */
  sentPerDelivery: number | null;
  /** Statements or commands the server ran, nested ones (triggers, scripts' calls) included. */
  executedPerDelivery: number | null;
  transactionsPerDelivery: number | null;
  /** Server execution time: pg_stat_statements' top-level `total_exec_time`, or commandstats µs. */
  execMsPerDelivery: number | null;
  /** CPU of the server processes (user + system, from /proc). */
  serverCpuMsPerDelivery: number | null;
  /** Of `serverCpuMsPerDelivery`, what the emits cost (backlog runs only: emits and deliveries apart). */
  serverCpuMsPerEmit: number | null;
  walBytesPerDelivery: number | null;
  /** CPU of the one process that emitted and delivered. */
  processCpuMsPerDelivery: number;
}

function statementDelta(start: PgSnapshot, end: PgSnapshot): StatementStats[] {
  const key = (row: StatementStats) => `${row.toplevel}\u0000${row.query}`;
  const before = new Map(start.counters.statements.map((row) => [key(row), row]));
  return end.counters.statements.map((row) => {
    const earlier = before.get(key(row));
    return earlier
      ? {
          ...row,
          calls: row.calls - earlier.calls,
          execMs: row.execMs - earlier.execMs,
          rows: row.rows - earlier.rows,
        }
      : row;
  });
}

/** The per-delivery figures of a pg run, and its statements by kind. */
export function summarisePg(run: PgCostRun): { cost: DeliveryCost; kinds: KindCost[] } {
  const n = run.deliveries;
  const statements = statementDelta(run.start, run.end).filter((row) => row.calls > 0);
  const toplevel = statements.filter((row) => row.toplevel);
  const sum = (rows: StatementStats[], field: 'calls' | 'execMs') =>
    rows.reduce((total, row) => total + row[field], 0);
  const { start, emitted, end } = run;
  return {
    cost: {
      sentPerDelivery: sum(toplevel, 'calls') / n,
      executedPerDelivery: sum(statements, 'calls') / n,
      transactionsPerDelivery: (end.counters.transactions - start.counters.transactions) / n,
      execMsPerDelivery: sum(toplevel, 'execMs') / n,
      serverCpuMsPerDelivery: ((end.serverCpu - start.serverCpu) * 1000) / n,
      serverCpuMsPerEmit: emitted ? ((emitted.serverCpu - start.serverCpu) * 1000) / n : null,
      walBytesPerDelivery: (end.counters.walBytes - start.counters.walBytes) / n,
      processCpuMsPerDelivery: ((end.processCpu - start.processCpu) * 1000) / n,
    },
    kinds: costByKind(statements, n),
  };
}

/** Calls per delivery of one Redis command: sent by the client, run by the server, and its µs. */
export interface CommandCost {
  command: string;
  sentPerDelivery: number;
  executedPerDelivery: number;
  usecPerDelivery: number;
}

const SCRIPT_COMMANDS = new Set(['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'fcall', 'fcall_ro']);

function commandDelta(start: RedisSnapshot, end: RedisSnapshot, n: number): CommandCost[] {
  const names = new Set([...end.commands.keys(), ...end.sent.keys()]);
  return [...names]
    .map((command) => {
      const before = start.commands.get(command) ?? { calls: 0, usec: 0 };
      const after = end.commands.get(command) ?? { calls: 0, usec: 0 };
      const sent = (end.sent.get(command) ?? 0) - (start.sent.get(command) ?? 0);
      return {
        command,
        sentPerDelivery: sent / n,
        executedPerDelivery: (after.calls - before.calls) / n,
        usecPerDelivery: (after.usec - before.usec) / n,
      };
    })
    .filter((cost) => cost.sentPerDelivery > 0 || cost.executedPerDelivery > 0)
    .sort((a, b) => b.usecPerDelivery - a.usecPerDelivery);
}

/**
 * The per-delivery figures of a Redis run, and its commands. A script's µs
 * include the commands it ran, which commandstats also lists under their own
 * names; so the server time counts each command name in the share the client
 * sent itself (all of a script's, none of a ZADD only scripts ran).
 */
export function summariseRedis(run: RedisCostRun): { cost: DeliveryCost; commands: CommandCost[] } {
  const n = run.deliveries;
  const { start, emitted, end } = run;
  const commands = commandDelta(start, end, n);
  const topLevelUsec = commands.reduce((total, cost) => {
    if (cost.executedPerDelivery === 0) return total;
    const share = SCRIPT_COMMANDS.has(cost.command)
      ? 1
      : Math.min(1, cost.sentPerDelivery / cost.executedPerDelivery);
    return total + cost.usecPerDelivery * share;
  }, 0);
  return {
    cost: {
      sentPerDelivery: commands.reduce((total, cost) => total + cost.sentPerDelivery, 0),
      executedPerDelivery: commands.reduce((total, cost) => total + cost.executedPerDelivery, 0),
      transactionsPerDelivery: null,
      execMsPerDelivery: topLevelUsec / 1000,
      serverCpuMsPerDelivery: ((end.serverCpu - start.serverCpu) * 1000) / n,
      serverCpuMsPerEmit: emitted ? ((emitted.serverCpu - start.serverCpu) * 1000) / n : null,
      walBytesPerDelivery: null,
      processCpuMsPerDelivery: ((end.processCpu - start.processCpu) * 1000) / n,
    },
    commands,
  };
}

/** The per-delivery figures of a memory run: the process's CPU only. */
export function summariseMemory(run: MemoryCostRun): DeliveryCost {
  return {
    sentPerDelivery: null,
    executedPerDelivery: null,
    transactionsPerDelivery: null,
    execMsPerDelivery: null,
    serverCpuMsPerDelivery: null,
    serverCpuMsPerEmit: null,
    walBytesPerDelivery: null,
    processCpuMsPerDelivery: (run.processCpuSeconds * 1000) / run.deliveries,
  };
}

/** The median of each figure over several runs of one backend and regime. */
export function medianCost(costs: readonly DeliveryCost[]): DeliveryCost {
  const pick = <K extends keyof DeliveryCost>(field: K): DeliveryCost[K] => {
    const values = costs.map((cost) => cost[field]).filter((value): value is number => value !== null);
    if (values.length === 0) return null as DeliveryCost[K];
    return medianOf(values) as DeliveryCost[K];
  };
  return {
    sentPerDelivery: pick('sentPerDelivery'),
    executedPerDelivery: pick('executedPerDelivery'),
    transactionsPerDelivery: pick('transactionsPerDelivery'),
    execMsPerDelivery: pick('execMsPerDelivery'),
    serverCpuMsPerDelivery: pick('serverCpuMsPerDelivery'),
    serverCpuMsPerEmit: pick('serverCpuMsPerEmit'),
    walBytesPerDelivery: pick('walBytesPerDelivery'),
    processCpuMsPerDelivery: pick('processCpuMsPerDelivery') ?? 0,
  };
}

/** The median (the mean of the middle two for an even count). */
export function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
