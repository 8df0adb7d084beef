import type { StatementStats } from './pg-statements';

/**
 * What each statement the adapters send is for, told by its text. The first
 * match wins, so the attempt record (an UPDATE that also inserts the attempt)
 * comes before the emit's INSERT. A statement none of them names is reported
 * under its first words, so a new statement shows up rather than hides.
 */
const KINDS: ReadonlyArray<readonly [kind: string, pattern: RegExp]> = [
  ['record attempts, settle claims', /^WITH input AS \(\s*SELECT \* FROM unnest\(/],
  ['emit: insert delivery', /INSERT INTO \S*webhook_deliveries/],
  ['emit: wake-up trigger (nested)', /pg_notify\(/],
  ['attempt row foreign key check (nested)', /FOR KEY SHARE/],
  ['claim', /^WITH RECURSIVE head AS/],
  ['lease renewal', /^UPDATE \S*webhook_deliveries SET lease_until = /],
  ['queue: enqueue, ack or reschedule', /^UPDATE \S*webhook_deliveries (AS d )?SET run_at/],
  ['idle wait: next due time', /^SELECT LEAST\(/],
  ['configuration read', /FROM \S*webhook_configs/],
  ['circuit breaker read', /^SELECT [^;]* FROM \S*webhook_circuits/],
  ['circuit breaker write', /webhook_circuits/],
  ['bulk recoveries (worker check)', /webhook_recoveries/],
  ['retention purge', /^DELETE FROM/],
  ['delivery read (recovery sweep, get)', /^SELECT id, agency_id, event_id/],
  ['transaction control', /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/i],
  ['LISTEN / UNLISTEN', /^(LISTEN|UNLISTEN)/i],
  ['NOTIFY (self-check)', /^(NOTIFY|SELECT pg_notify)/i],
];

/** The kind of one statement (see {@link KINDS}). */
export function statementKind(query: string): string {
  const text = query.trim();
  for (const [kind, pattern] of KINDS) if (pattern.test(text)) return kind;
  return `other: ${text.replace(/\s+/g, ' ').slice(0, 48)}…`;
}

/** Calls and execution time per delivery of one kind of statement. */
export interface KindCost {
  kind: string;
  toplevel: boolean;
  callsPerDelivery: number;
  execMsPerDelivery: number;
}

/** Sums `statements` by kind, per delivery, most expensive first. */
export function costByKind(statements: readonly StatementStats[], deliveries: number): KindCost[] {
  const kinds = new Map<string, KindCost>();
  for (const row of statements) {
    const kind = statementKind(row.query);
    const key = `${kind}\u0000${row.toplevel}`;
    const cost = kinds.get(key) ?? {
      kind,
      toplevel: row.toplevel,
      callsPerDelivery: 0,
      execMsPerDelivery: 0,
    };
    cost.callsPerDelivery += row.calls / deliveries;
    cost.execMsPerDelivery += row.execMs / deliveries;
    kinds.set(key, cost);
  }
  return [...kinds.values()].sort((a, b) => b.execMsPerDelivery - a.execMsPerDelivery);
}
