/**
 * `pnpm --filter @svc/bench run capacity`: the database work one delivery
 * costs on PostgreSQL (pg_stat_statements) and Redis (INFO commandstats), the
 * capacity model derived from it, and the rate of 1, 2 and 3 worker processes;
 * written to the `capacity` section of docs/benchmarks.md.
 *
 * It starts its own PostgreSQL 15 cluster (initdb into a temp directory, port
 * CAPACITY_PG_PORT or 5499, pg_stat_statements preloaded) and its own
 * redis-server (CAPACITY_REDIS_PORT or 6399), so nothing else on the machine is
 * counted and the machine's servers are not reconfigured; both are stopped at the end.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { spawnReceiverProcess } from '@svc/test-support';
import { describeMachine, writeBenchSection } from '../lib/report';
import { backendCapacity } from './capacity-model';
import { type CapacityResults, capacitySection } from './capacity-report';
import {
  type CommandCost,
  type DeliveryCost,
  medianCost,
  medianOf,
  summariseMemory,
  summarisePg,
  summariseRedis,
} from './cost-summary';
import { type FleetRun, measureFleet } from './fleet';
import { measureMemoryCost } from './memory-cost';
import { measurePgCost } from './pg-cost';
import type { KindCost } from './pg-kinds';
import { startPrivatePostgres } from './private-postgres';
import { startPrivateRedis } from './private-redis';
import { measureRedisCost } from './redis-cost';

const ROUNDS = Number(process.env.CAPACITY_ROUNDS ?? 3);
const FLEET_ROUNDS = Number(process.env.CAPACITY_FLEET_ROUNDS ?? ROUNDS);
const AGENCIES = 100;
const BACKLOG_PER_AGENCY = Number(process.env.CAPACITY_BACKLOG_PER_AGENCY ?? 50);
const PACED_PER_SECOND = 200;
const PACED_PER_AGENCY = 10;
const FLEET_PER_AGENCY = Number(process.env.CAPACITY_FLEET_PER_AGENCY ?? 60);
const FLEET_SIZES = [1, 2, 3];
const PG_PORT = Number(process.env.CAPACITY_PG_PORT ?? 5499);
const REDIS_PORT = Number(process.env.CAPACITY_REDIS_PORT ?? 6399);

const log = (line: string) => console.log(line);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');

/** The commit measured, and whether the adapters' sources differed from it. */
function describeCommit(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--', '../packages/core', '../packages/pg', '../packages/redis');
  return dirty === '' ? `commit ${commit}` : `commit ${commit} (with uncommitted changes under packages/)`;
}

/** Per-name medians over rounds of rows named by `name`, each numeric field on its own. */
function medianRows<T extends object>(rounds: T[][], name: (row: T) => string): T[] {
  const names = [...new Set(rounds.flatMap((rows) => rows.map(name)))];
  return names.map((each) => {
    const rows = rounds.map((round) => round.find((row) => name(row) === each));
    const first = rows.find((row) => row !== undefined)!;
    const merged = { ...first } as Record<string, unknown>;
    for (const [field, value] of Object.entries(first)) {
      if (typeof value !== 'number') continue;
      merged[field] = medianOf(
        rows.map((row) => (row ? ((row as Record<string, unknown>)[field] as number) : 0)),
      );
    }
    return merged as T;
  });
}

const byCost = (rows: KindCost[]) => rows.sort((a, b) => b.execMsPerDelivery - a.execMsPerDelivery);

async function main(): Promise<void> {
  const loadBefore = load();
  const pgServer = await startPrivatePostgres(PG_PORT);
  const redisServer = await startPrivateRedis(REDIS_PORT);
  const receiver = await spawnReceiverProcess();
  const stopAll = async () => {
    await receiver.close();
    await redisServer.stop();
    pgServer.stop();
  };
  // An interrupted run still stops the servers it started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void stopAll().finally(() => process.exit(130)));
  }
  const costs = new Map<string, DeliveryCost[]>();
  const add = (key: string, cost: DeliveryCost) => costs.set(key, [...(costs.get(key) ?? []), cost]);
  const kinds = { backlog: [] as KindCost[][], paced: [] as KindCost[][] };
  const commands = { backlog: [] as CommandCost[][], paced: [] as CommandCost[][] };
  const fleet: FleetRun[] = [];
  const loads: string[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const regime of [
        { kind: 'backlog' as const },
        { kind: 'paced' as const, perSecond: PACED_PER_SECOND },
      ]) {
        const perAgency = regime.kind === 'backlog' ? BACKLOG_PER_AGENCY : PACED_PER_AGENCY;
        const pg = summarisePg(
          await measurePgCost(pgServer.url, pgServer.pid, receiver, regime, AGENCIES, perAgency),
        );
        add(`pg ${regime.kind}`, pg.cost);
        kinds[regime.kind].push(pg.kinds);
        const redis = summariseRedis(
          await measureRedisCost(redisServer.url, redisServer.pid, receiver, regime, AGENCIES, perAgency),
        );
        add(`redis ${regime.kind}`, redis.cost);
        commands[regime.kind].push(redis.commands);
        const memory = summariseMemory(await measureMemoryCost(receiver, regime, AGENCIES, perAgency));
        add(`memory ${regime.kind}`, memory);
        log(
          `round ${round} ${regime.kind}: server CPU ms/delivery pg ${pg.cost.serverCpuMsPerDelivery?.toFixed(3)}, ` +
            `redis ${redis.cost.serverCpuMsPerDelivery?.toFixed(3)}; app CPU pg ${pg.cost.processCpuMsPerDelivery.toFixed(3)}, ` +
            `redis ${redis.cost.processCpuMsPerDelivery.toFixed(3)}, memory ${memory.processCpuMsPerDelivery.toFixed(3)} (load ${load()})`,
        );
      }
      loads.push(load());
    }
    for (let round = 1; round <= FLEET_ROUNDS; round++) {
      for (const workers of FLEET_SIZES) {
        const common = { receiver, workers, agencyCount: AGENCIES, perAgency: FLEET_PER_AGENCY };
        const pgRun = await measureFleet({
          ...common,
          backend: { kind: 'pg', url: pgServer.url, schema: 'capacity_fleet' },
          serverPid: pgServer.pid,
        });
        const redisRun = await measureFleet({
          ...common,
          backend: { kind: 'redis', url: redisServer.url, prefix: `capacity-fleet:${round}-${workers}:` },
          serverPid: redisServer.pid,
        });
        fleet.push(pgRun, redisRun);
        log(
          `fleet round ${round}, ${workers} worker(s): pg ${Math.round(pgRun.perSecond)}/s, ` +
            `redis ${Math.round(redisRun.perSecond)}/s (load ${load()})`,
        );
      }
      loads.push(load());
    }
  } finally {
    await stopAll();
  }

  const cost = (key: string) => medianCost(costs.get(key) ?? []);
  const results: CapacityResults = {
    context: [
      `${describeMachine()}; measured at ${describeCommit()}.`,
      `Private servers started by the benchmark: PostgreSQL 15 (initdb defaults, \`fsync\` and \`synchronous_commit\` on, plus ${pgServer.settings
        .filter((line) => /preload|track =/.test(line))
        .map((line) => `\`${line}\``)
        .join(
          ', ',
        )}) and redis-server (\`${redisServer.settings.join(' ')}\`), both on loopback with the app.`,
      `Machine load average (1 / 5 / 15 min) ${loadBefore} before the run; after each round ${loads.join('; ')}` +
        " (two cores shared with other work: the rates of the worker-process table are this machine's, the per-delivery costs travel better).",
    ],
    rounds: ROUNDS,
    fleetRounds: FLEET_ROUNDS,
    backlogDeliveries: AGENCIES * BACKLOG_PER_AGENCY,
    pacedDeliveries: AGENCIES * PACED_PER_AGENCY,
    pacedPerSecond: PACED_PER_SECOND,
    costs: ['pg', 'redis', 'memory'].flatMap((backend) =>
      ['backlog', 'paced'].map((regime) => ({ backend, regime, cost: cost(`${backend} ${regime}`) })),
    ),
    pgKinds: {
      backlog: byCost(medianRows(kinds.backlog, (row) => row.kind)),
      paced: byCost(medianRows(kinds.paced, (row) => row.kind)),
    },
    redisCommands: {
      backlog: medianRows(commands.backlog, (row) => row.command).sort(
        (a, b) => b.usecPerDelivery - a.usecPerDelivery,
      ),
      paced: medianRows(commands.paced, (row) => row.command).sort(
        (a, b) => b.usecPerDelivery - a.usecPerDelivery,
      ),
    },
    fleet,
    capacity: {
      pg: backendCapacity(
        cost('pg backlog'),
        fleet.filter((run) => run.backend === 'pg'),
      ),
      redis: backendCapacity(
        cost('redis backlog'),
        fleet.filter((run) => run.backend === 'redis'),
      ),
    },
  };
  writeBenchSection('capacity', capacitySection(results));
  log('wrote the capacity section of docs/benchmarks.md');
}

await main();
