import type { Migration } from './migration';

/**
 * Version 1: configurations, and deliveries that double as the queue.
 *
 * Ids and agency ids use the "C" collation: byte order, so time-ordered ids
 * (UUIDv7, ULID) sort by creation and comparisons are plain memcmp. Times are
 * bigint epoch ms, exactly what the records carry. `payload` is `json`, not
 * `jsonb`, so the metadata keeps its key order and round-trips byte for byte.
 *
 * fillfactor 80 leaves room on each page so a claim (which changes only
 * unindexed columns) is a HOT update; see docs/postgres.md for every index.
 *
 * The trigger sends a NOTIFY whenever a row gains an unclaimed queue entry
 * (insert of a pending delivery, enqueue, reschedule). NOTIFY is transactional,
 * so a delivery written in a host transaction wakes workers only on COMMIT; and
 * since it lives in the schema, rows made due by hand in psql wake workers too.
 */
export const createTables: Migration = {
  version: 1,
  name: 'create-tables',
  locks: [],
  sql: `
CREATE TABLE {{schema}}.webhook_configs (
  agency_id              text COLLATE "C" PRIMARY KEY,
  id                     text NOT NULL,
  webhook_url            text NOT NULL,
  signing_secret         text NOT NULL,
  enabled                boolean NOT NULL,
  subscribed_event_types text[] NOT NULL,
  created_at             bigint NOT NULL,
  updated_at             bigint NOT NULL
);

CREATE TABLE {{schema}}.webhook_deliveries (
  id                    text COLLATE "C" PRIMARY KEY,
  agency_id             text COLLATE "C" NOT NULL,
  event_id              text COLLATE "C" NOT NULL,
  event_type            text NOT NULL,
  entity_type           text NOT NULL,
  entity_id             text,
  parent_entity_id      text,
  created_by_id         text,
  created_by_role       text,
  payload               json NOT NULL,
  created_on            bigint NOT NULL,
  created_at            bigint NOT NULL,
  status                text NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
  attempt               integer NOT NULL,
  max_attempts          integer NOT NULL,
  next_retry_at         bigint,
  last_attempt_at       bigint,
  delivered_at          bigint,
  last_response_code    integer,
  last_error_message    text,
  last_response_excerpt text,
  -- The queue: a row has a queue entry while run_at is set (when it is due);
  -- claim_id and lease_until are set while a worker holds it.
  run_at                bigint,
  claim_id              text,
  lease_until           bigint,
  CONSTRAINT webhook_deliveries_agency_event_key UNIQUE (agency_id, event_id)
) WITH (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.05);

CREATE INDEX webhook_deliveries_agency_id_idx
  ON {{schema}}.webhook_deliveries (agency_id, id DESC);

CREATE INDEX webhook_deliveries_agency_status_id_idx
  ON {{schema}}.webhook_deliveries (agency_id, status, id DESC);

CREATE INDEX webhook_deliveries_due_idx
  ON {{schema}}.webhook_deliveries (run_at)
  WHERE run_at IS NOT NULL;

CREATE INDEX webhook_deliveries_pending_retry_idx
  ON {{schema}}.webhook_deliveries (next_retry_at)
  WHERE status = 'pending';

CREATE INDEX webhook_deliveries_created_at_brin
  ON {{schema}}.webhook_deliveries USING brin (created_at);

CREATE FUNCTION {{schema}}.notify_claimable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_webhooks:' || TG_TABLE_SCHEMA, '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER webhook_deliveries_notify_claimable
  AFTER INSERT OR UPDATE OF run_at ON {{schema}}.webhook_deliveries
  FOR EACH ROW WHEN (NEW.run_at IS NOT NULL AND NEW.claim_id IS NULL)
  EXECUTE FUNCTION {{schema}}.notify_claimable();
`,
};
