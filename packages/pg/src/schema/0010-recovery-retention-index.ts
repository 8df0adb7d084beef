import type { Migration } from './migration';

/**
 * Version 10: `webhook_recoveries_finished_idx (completed_at) WHERE status <> 'running'`,
 * behind the retention purge of finished bulk recoveries.
 *
 * The purge deletes the oldest finished recoveries first: `WHERE status <> 'running'
 * AND completed_at < $1 ORDER BY completed_at LIMIT n`. Version 5's indexes hold
 * running rows only and version 8's is by agency, so without this one every round
 * of every worker read the whole table to find nothing, the common answer once the
 * backlog is gone. With it, a round reads the first index page and stops. The status
 * is a literal in the statement, so the planner proves the partial predicate for a
 * generic plan too (see `test/recovery-retention.pg.test.ts`).
 *
 * Partial: a running row, the one the walker updates after every page, is not in
 * it; a row enters once, when it finishes. The table holds one small row per
 * recovery started, so the build is short, even though a migration's transaction
 * keeps CONCURRENTLY out of reach; IF NOT EXISTS lets an operator build it
 * beforehand anyway (same definition, see docs/postgres.md).
 */
export const recoveryRetentionIndex: Migration = {
  version: 10,
  name: 'recovery-retention-index',
  locks: [{ table: 'webhook_recoveries', mode: 'SHARE' }],
  sql: `
CREATE INDEX IF NOT EXISTS webhook_recoveries_finished_idx
  ON {{schema}}.webhook_recoveries (completed_at)
  WHERE status <> 'running';
`,
};
