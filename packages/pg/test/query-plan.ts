import pg from 'pg';

/** The fields of an `EXPLAIN (ANALYZE, FORMAT JSON)` plan node the plan tests read. */
export interface PlanNode {
  'Node Type'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Heap Fetches'?: number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/**
 * EXPLAIN ANALYZE of `text` run as a prepared statement with `values`, planned for
 * those values (`custom`) or generically (`generic`), as node-postgres's prepared
 * statements may be after a few executions. Returns the plan's root.
 */
export async function explainPrepared(
  pool: pg.Pool,
  text: string,
  values: readonly unknown[],
  plan: 'custom' | 'generic',
): Promise<PlanNode> {
  const client = await pool.connect();
  try {
    // EXPLAIN ANALYZE runs the statement: a DELETE or UPDATE under test must change nothing.
    await client.query('BEGIN');
    await client.query(
      `SET LOCAL plan_cache_mode = ${plan === 'custom' ? 'force_custom_plan' : 'force_generic_plan'}`,
    );
    await client.query(`PREPARE statement_under_test AS ${text}`);
    const literals = values.map((value) => pg.escapeLiteral(String(value))).join(', ');
    const { rows } = await client.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE statement_under_test(${literals})`,
    );
    return (rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.query('DEALLOCATE ALL').catch(() => undefined);
    client.release();
  }
}

/** Every node of the plan, the root first. */
export function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}
