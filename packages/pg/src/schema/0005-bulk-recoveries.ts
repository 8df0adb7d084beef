import type { Migration } from './migration';

/**
 * Version 5: bulk recoveries.
 *
 * `webhook_recoveries` holds one row per recovery: its window, its counts, and
 * where the workers' walk is. The partial unique index on `agency_id` is what
 * makes "one running recovery per agency" atomic: of two concurrent inserts for
 * an agency, the second meets it and writes nothing. The other partial index is
 * what workers read when they look for running recoveries; finished rows leave
 * both indexes.
 */
export const bulkRecoveries: Migration = {
  version: 5,
  name: 'bulk-recoveries',
  locks: [],
  sql: `
CREATE TABLE {{schema}}.webhook_recoveries (
  id                text COLLATE "C" PRIMARY KEY,
  agency_id         text COLLATE "C" NOT NULL,
  status            text NOT NULL CHECK (status IN ('running', 'completed', 'cancelled')),
  since             bigint NOT NULL,
  until             bigint NOT NULL,
  event_types       text[],
  matched           integer NOT NULL,
  replayed          integer NOT NULL,
  cursor_type_index integer NOT NULL,
  cursor_id         text COLLATE "C",
  page_end_id       text COLLATE "C",
  lease_until       bigint,
  created_at        bigint NOT NULL,
  completed_at      bigint,
  version           integer NOT NULL
);

CREATE UNIQUE INDEX webhook_recoveries_running_agency_idx
  ON {{schema}}.webhook_recoveries (agency_id)
  WHERE status = 'running';

CREATE INDEX webhook_recoveries_running_idx
  ON {{schema}}.webhook_recoveries (created_at, id)
  WHERE status = 'running';
`,
};
