import type { Migration } from './migration';

/**
 * Version 6: endpoint health and auto-disable.
 *
 * `webhook_circuits` gains the health run kept beside the breaker:
 * `unsuccessful_attempts` (attempts in a row without a 2xx) and
 * `unsuccessful_since` (epoch ms of the first of them). Existing rows read 0 and
 * null, the state of an agency with no run, which is what they were: the run
 * starts counting at the next unsuccessful attempt.
 *
 * `webhook_configs` gains `disabled_at` and `disabled_reason`, set only by the
 * compare-and-set that disables a configuration whose every attempt failed for
 * too long, and cleared by every upsert.
 *
 * Every column is nullable or has a constant default, so each ALTER rewrites
 * nothing (PostgreSQL 11 and later) and holds the table's lock only for a moment.
 */
export const endpointHealth: Migration = {
  version: 6,
  name: 'endpoint-health',
  locks: [
    { table: 'webhook_configs', mode: 'ACCESS EXCLUSIVE' },
    { table: 'webhook_circuits', mode: 'ACCESS EXCLUSIVE' },
  ],
  sql: `
ALTER TABLE {{schema}}.webhook_circuits
  ADD COLUMN unsuccessful_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN unsuccessful_since bigint;

ALTER TABLE {{schema}}.webhook_configs
  ADD COLUMN disabled_at bigint,
  ADD COLUMN disabled_reason text;
`,
};
