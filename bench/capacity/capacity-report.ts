import { markdownTable } from '../lib/report';
import {
  type BackendCapacity,
  PLANNED_UTILISATION,
  serverCoresFor,
  workerCpuMsPerDelivery,
  workersFor,
} from './capacity-model';
import { type CommandCost, type DeliveryCost, medianOf } from './cost-summary';
import type { FleetRun } from './fleet';
import type { KindCost } from './pg-kinds';

/** Everything the section reports, gathered by run.ts. */
export interface CapacityResults {
  context: string[];
  rounds: number;
  fleetRounds: number;
  backlogDeliveries: number;
  pacedDeliveries: number;
  pacedPerSecond: number;
  costs: Array<{ backend: string; regime: string; cost: DeliveryCost }>;
  pgKinds: { backlog: KindCost[]; paced: KindCost[] };
  redisCommands: { backlog: CommandCost[]; paced: CommandCost[] };
  fleet: FleetRun[];
  capacity: { pg: BackendCapacity; redis: BackendCapacity };
}

const fixed = (value: number | null, digits = 2) =>
  value === null || Number.isNaN(value) ? '–' : value.toFixed(digits);
const whole = (value: number) => Math.round(value).toLocaleString('en-US');

function costTable(results: CapacityResults): string {
  const rows = results.costs.map(({ backend, regime, cost }) => [
    backend,
    regime,
    fixed(cost.sentPerDelivery),
    fixed(cost.executedPerDelivery),
    fixed(cost.transactionsPerDelivery),
    fixed(cost.execMsPerDelivery, 3),
    fixed(cost.serverCpuMsPerDelivery, 3),
    cost.serverCpuMsPerEmit === null ? '–' : fixed(cost.serverCpuMsPerEmit, 3),
    cost.walBytesPerDelivery === null ? '–' : whole(cost.walBytesPerDelivery),
    fixed(cost.processCpuMsPerDelivery, 3),
  ]);
  return markdownTable(
    [
      'backend',
      'regime',
      'sent / delivery',
      'run by server / delivery',
      'transactions / delivery',
      'server exec ms / delivery',
      'server CPU ms / delivery',
      'of which emit',
      'WAL bytes / delivery',
      'app process CPU ms / delivery',
    ],
    rows,
  );
}

/** Per-kind (or per-command) medians over the rounds, joined on the name. */
function joinRegimes<T>(
  backlog: T[],
  paced: T[],
  name: (row: T) => string,
): Array<[string, T | null, T | null]> {
  const names = [...new Set([...backlog.map(name), ...paced.map(name)])];
  return names.map((each) => [
    each,
    backlog.find((row) => name(row) === each) ?? null,
    paced.find((row) => name(row) === each) ?? null,
  ]);
}

function kindTable(kinds: CapacityResults['pgKinds']): string {
  const label = (kind: KindCost) => kind.kind;
  const rows = joinRegimes(kinds.backlog, kinds.paced, label).map(([kind, backlog, paced]) => [
    kind,
    fixed(backlog?.callsPerDelivery ?? 0),
    fixed(backlog?.execMsPerDelivery ?? 0, 3),
    fixed(paced?.callsPerDelivery ?? 0),
    fixed(paced?.execMsPerDelivery ?? 0, 3),
  ]);
  return markdownTable(
    [
      'statement kind',
      'backlog: calls / delivery',
      'ms / delivery',
      'paced: calls / delivery',
      'ms / delivery',
    ],
    rows,
  );
}

function commandTable(commands: CapacityResults['redisCommands']): string {
  const rows = joinRegimes(commands.backlog, commands.paced, (row) => row.command).map(
    ([command, backlog, paced]) => [
      `\`${command.toUpperCase()}\``,
      fixed(backlog?.sentPerDelivery ?? 0),
      fixed(backlog?.executedPerDelivery ?? 0),
      fixed(backlog?.usecPerDelivery ?? 0, 1),
      fixed(paced?.sentPerDelivery ?? 0),
      fixed(paced?.executedPerDelivery ?? 0),
      fixed(paced?.usecPerDelivery ?? 0, 1),
    ],
  );
  return markdownTable(['command', 'backlog: sent', 'run', 'µs', 'paced: sent', 'run', 'µs'], rows);
}

function fleetTable(fleet: readonly FleetRun[]): string {
  const counts = [...new Set(fleet.map((run) => run.workers))].sort((a, b) => a - b);
  const rows = counts.flatMap((workers) =>
    (['pg', 'redis'] as const).map((backend) => {
      const runs = fleet.filter((run) => run.workers === workers && run.backend === backend);
      const rates = runs.map((run) => run.perSecond);
      const serverShare = medianOf(runs.map((run) => run.serverCpuSeconds / run.seconds));
      return [
        backend,
        String(workers),
        rates.map((rate) => `${whole(rate)}/s`).join(', '),
        `**${whole(medianOf(rates))}/s**`,
        fixed(workerCpuMsPerDelivery(runs, workers), 3),
        fixed(medianOf(runs.map((run) => (run.serverCpuSeconds * 1000) / run.deliveries)), 3),
        fixed(serverShare),
      ];
    }),
  );
  return markdownTable(
    [
      'backend',
      'worker processes',
      'rounds',
      'median deliveries/s',
      'worker CPU ms / delivery',
      'server CPU ms / delivery (no emits)',
      'server cores busy',
    ],
    rows,
  );
}

const PLAN_RATES = [500, 1_000, 2_000, 5_000, 10_000];

function planTable(capacity: CapacityResults['capacity']): string {
  const rows = PLAN_RATES.map((rate) => [
    `${whole(rate)}/s`,
    String(workersFor(rate, capacity.pg)),
    fixed(serverCoresFor(rate, capacity.pg), 1),
    String(workersFor(rate, capacity.redis)),
    fixed(serverCoresFor(rate, capacity.redis), 1),
  ]);
  return markdownTable(
    [
      'deliveries/s',
      'pg: worker processes',
      'pg: primary cores',
      'Redis: worker processes',
      'Redis: shard cores',
    ],
    rows,
  );
}

/** The `capacity` section of docs/benchmarks.md. */
export function capacitySection(results: CapacityResults): string {
  const { pg, redis } = results.capacity;
  const percent = Math.round(PLANNED_UTILISATION * 100);
  return `## Capacity: database work per delivery (\`bench/capacity\`)

${results.context.join('\n')}

What one delivery (emit → claim → HTTPS attempt to a local receiver in its own process → record) costs the
database, median of ${results.rounds} rounds (costs) and ${results.fleetRounds} rounds (worker processes). **backlog**: ${whole(results.backlogDeliveries)} deliveries emitted first, then one
worker drains them (claims and records go in batches: the cost at saturation, which bounds capacity).
**paced**: ${whole(results.pacedDeliveries)} emitted at ${results.pacedPerSecond}/s while the worker runs (a claim per wake-up:
the cost at a light load). "Sent" is what the client sent (pg: top-level statements; Redis: commands counted
on the client), "run by server" adds what ran inside them (pg: the trigger's and foreign-key checks'
statements; Redis: the commands the scripts call). Server exec time is pg_stat_statements' top-level
\`total_exec_time\` (wall time in the executor: no parse, network or commit) or \`INFO commandstats\` µs (scripts
whole, plain commands the client sent); server CPU is the server processes' user + system time from /proc
(everything: protocol, planning, commits, WAL, background writers). The app process emits and delivers;
memory is the same process with no database at all.

${costTable(results)}

PostgreSQL statements by kind (median rounds; "(nested)" kinds run inside another statement, and their
time is also in it):

${kindTable(results.pgKinds)}

Redis commands per delivery (sent by the client, run by the server, µs of server time; a script's µs include
the commands it ran):

${commandTable(results.redisCommands)}

### What one database carries

The model takes the backlog regime's server CPU per delivery (emit included): one PostgreSQL core carries at
most **${whole(pg.perCoreFromCpu)} deliveries/s**, one Redis shard (its command thread is one core) at most
**${whole(redis.perCoreFromCpu)} deliveries/s**. From execution time instead: ${whole(pg.perCoreFromExec)}/s and ${whole(redis.perCoreFromExec)}/s; execution
times are wall clock inside the server, so on a busy machine they include the time the server waited for a
core (commandstats µs above exceeding the server's whole CPU time is that), which is why the model uses CPU.
These are upper bounds: they assume the server's CPU is the only limit and, for PostgreSQL, that it scales
with cores (WAL flushes, lock and index-page contention on the queue's hot rows, autovacuum and disk are not
in them). The planning rows below use ${percent} % of each core.

### Worker processes

Backlog drains by separate worker processes (defaults, \`createWorker(webhooks)\`), each against the same
private server and receiver, rounds alternating:

${fleetTable(results.fleet)}

A worker process spends ${fixed(pg.workerCpuMsPerDelivery, 3)} ms (pg) or ${fixed(redis.workerCpuMsPerDelivery, 3)} ms (Redis) of CPU per delivery
(the runs with the most workers, whose claims are smallest), so on a core of its own, at ${percent} %, it carries about ${whole(pg.perWorkerPlanned)}/s (pg) or
${whole(redis.perWorkerPlanned)}/s (Redis). What a rate takes, by that model (emits not counted in the workers):

${planTable(results.capacity)}
`;
}
