import type { Migration } from './migration';

/**
 * Version 4: every delivery's attempt history.
 *
 * `webhook_attempts` holds one row per attempt, keyed by (delivery, attempt
 * number), so its primary key is also the index that lists a delivery's attempts
 * in order. The store writes a row in the same statement as the compare-and-set
 * that records the attempt, so a row exists exactly when its attempt was
 * recorded. The foreign key deletes a delivery's attempts with it, whoever
 * deletes the delivery (`purgeDeliveries`, or the host by hand).
 *
 * `next_attempt_trigger` is what the delivery's next attempt is recorded as:
 * `automatic`, or the trigger of the replay that made it pending again. Adding a
 * column with a constant default rewrites nothing (PostgreSQL 11 and later): it
 * takes the table's lock only for a moment, and every existing row reads
 * `automatic`.
 */
export const attemptHistory: Migration = {
  version: 4,
  name: 'attempt-history',
  locks: [{ table: 'webhook_deliveries', mode: 'ACCESS EXCLUSIVE' }],
  sql: `
ALTER TABLE {{schema}}.webhook_deliveries
  ADD COLUMN next_attempt_trigger text NOT NULL DEFAULT 'automatic';

CREATE TABLE {{schema}}.webhook_attempts (
  delivery_id      text COLLATE "C" NOT NULL
                   REFERENCES {{schema}}.webhook_deliveries (id) ON DELETE CASCADE,
  attempt          integer NOT NULL,
  trigger          text NOT NULL CHECK (trigger IN ('automatic', 'replay', 'recovery')),
  started_at       bigint NOT NULL,
  duration_ms      integer NOT NULL,
  response_code    integer,
  error_kind       text,
  error_message    text,
  response_excerpt text,
  PRIMARY KEY (delivery_id, attempt)
);
`,
};
