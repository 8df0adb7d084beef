import { createHash } from 'node:crypto';
import type { QueryConfig, QueryResultRow } from 'pg';
import type { Queryable } from './queryable';

/** A SQL text the adapters run often, with the name it is prepared under. */
export interface Statement {
  text: string;
  /** Derived from the text, so two adapters on different schemas never clash. */
  name: string;
}

/** Names a statement by a hash of its text (the same text always gets the same name). */
export function statement(text: string): Statement {
  const digest = createHash('sha1').update(text).digest('hex').slice(0, 20);
  return { text, name: `svc_webhooks_${digest}` };
}

/**
 * Runs a statement. Named (prepared) statements are parsed and planned once per
 * connection instead of on every call, which matters on the worker's hot path;
 * `prepared: false` sends them unnamed (for poolers that cannot keep prepared
 * statements, such as PgBouncer in transaction mode).
 */
export async function run<Row extends QueryResultRow>(
  target: Queryable,
  stmt: Statement,
  values: unknown[],
  prepared: boolean,
): Promise<Row[]> {
  const result = await target.query<Row>(queryConfig(stmt, values, prepared));
  return result.rows;
}

/** The node-postgres query config of a statement: named when `prepared`. */
export function queryConfig(stmt: Statement, values: unknown[], prepared: boolean): QueryConfig {
  return prepared ? { name: stmt.name, text: stmt.text, values } : { text: stmt.text, values };
}
