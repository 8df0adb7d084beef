import type { Migration } from './migration';

/**
 * Version 2: the index behind fair claims, and the per-agency circuit breakers.
 *
 * `webhook_deliveries_agency_due_idx` lists every queue entry by agency, earliest
 * first. The claim walks it one agency at a time (a loose index scan: one descent
 * per agency, however deep its backlog) and reads each agency's first entries
 * from it, which is what lets claims go round robin without scanning the due rows
 * of a deep backlog. Like the due index it is partial, so it stays as small as
 * the backlog, and it covers neither `claim_id` nor `lease_until`: the claim
 * stays a HOT update.
 *
 * The build scans the table once and blocks writes to it meanwhile (a migration
 * runs in a transaction, where CREATE INDEX CONCURRENTLY cannot); see
 * docs/postgres.md for the time it takes per million rows.
 *
 * `webhook_circuits` holds one row per agency whose breaker was ever written,
 * apart from its configuration (deleting a configuration leaves its breaker).
 * Times are bigint epoch ms like everywhere else; `version` is what saveCircuit's
 * compare-and-set checks.
 */
export const fairClaimsAndCircuits: Migration = {
  version: 2,
  name: 'fair-claims-and-circuits',
  locks: [{ table: 'webhook_deliveries', mode: 'SHARE' }],
  sql: `
CREATE INDEX webhook_deliveries_agency_due_idx
  ON {{schema}}.webhook_deliveries (agency_id, run_at)
  WHERE run_at IS NOT NULL;

CREATE TABLE {{schema}}.webhook_circuits (
  agency_id            text COLLATE "C" PRIMARY KEY,
  status               text NOT NULL CHECK (status IN ('closed', 'open', 'half_open')),
  consecutive_failures integer NOT NULL,
  failing_since        bigint,
  last_failure_at      bigint,
  last_success_at      bigint,
  opened_at            bigint,
  open_until           bigint,
  openings             integer NOT NULL,
  version              integer NOT NULL
);
`,
};
