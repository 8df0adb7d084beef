import type { Migration } from './migration';

/**
 * Version 7: the index behind retention, `finished_idx (status, created_at)
 * WHERE status <> 'pending'`.
 *
 * A purge deletes one status at a time, oldest first: `WHERE status = 'success'
 * AND created_at < $1 ORDER BY created_at LIMIT n`. With only version 1's BRIN on
 * `created_at`, the first purge of a large backlog is fast (old rows are
 * everywhere), but once it has caught up, every round had to walk the rows a
 * longer retention still keeps: EXPLAIN ANALYZE on 1,000,000 deliveries over 120
 * days, after the backlog was gone, showed the purge of successes reading 71,000
 * pages in 372 ms (a sequential scan past the failed deliveries of days 30 to 90
 * to find 3 rows) and the purge of failed ones 18,000 pages in 182 ms (BRIN block
 * ranges emptied by earlier purges), on every round of every worker. With this
 * index both read a few index pages: 3 ms and 0.4 ms, generic plans included (the
 * status is a literal in each statement, so the planner can prove the partial
 * predicate).
 *
 * Partial: pending rows, the hot ones the queue claims and updates, are not in
 * it; a row enters once, when it finishes (an update that is not HOT anyway,
 * since `status` is in the list indexes). The BRIN stays for hosts' own queries
 * by creation time.
 *
 * A migration runs in one transaction, so the build reads the table once and
 * blocks writes meanwhile; IF NOT EXISTS lets an operator with a large table build
 * it beforehand with CONCURRENTLY (same definition, see docs/postgres.md).
 */
export const retentionIndex: Migration = {
  version: 7,
  name: 'retention-index',
  locks: [{ table: 'webhook_deliveries', mode: 'SHARE' }],
  sql: `
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished_idx
  ON {{schema}}.webhook_deliveries (status, created_at)
  WHERE status <> 'pending';
`,
};
