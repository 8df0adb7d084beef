import type { Migration } from './migration';

/**
 * Version 3: the indexes behind the delivery list's filters (`eventType`,
 * `entityId`, the `createdAt` window), alone and with `status` and the cursor.
 *
 * Every list is `WHERE agency_id = $1 [AND …] [AND id < $cursor] ORDER BY id
 * DESC LIMIT n`, and a heap fetch is what costs (each of an agency's rows sits
 * on its own page, since agencies' traffic interleaves). So each index leads with
 * the equality filters, then `id DESC` (the order, so the scan stops after n
 * matches and nothing is sorted), then the range-filtered columns as trailing
 * keys: a btree checks a condition on any key column against the index entry
 * itself, so entries outside the window (or of another status) are stepped over
 * without reading their rows. Only the rows returned are fetched.
 *
 * - `agency_list_idx (agency_id, id DESC, created_at)` replaces version 1's
 *   `(agency_id, id DESC)`: the plain list as before, and any window.
 * - `agency_status_list_idx (agency_id, status, id DESC, created_at)` replaces
 *   `(agency_id, status, id DESC)` the same way: status, and status with a window.
 * - `agency_type_idx (agency_id, event_type, id DESC, status, created_at)`: the
 *   event type with any status and window. A rare type is found without walking
 *   the agency's other deliveries; status and window cost no heap reads.
 * - `agency_entity_idx (agency_id, entity_id, id DESC) WHERE entity_id IS NOT NULL`:
 *   an entity has a handful of deliveries, so every other filter is checked on
 *   those rows. Partial: deliveries without an entity never match the filter.
 *
 * With more than one filter the planner takes the index of the most selective
 * equality (entity, then type, then status). A window walks the newest entries
 * first and steps over those created after `until`: index entries only (about 100
 * to a page), so a window far in the past of a deep history costs one index page
 * per ~100 newer deliveries, never a heap read. An index on `(agency_id,
 * created_at)` was tried and dropped: it finds a window's rows directly, but then
 * reads and sorts all of them (on the benchmark's table, a 1 h window's 72 rows in
 * 3.2 ms where the walk took 0.47 ms; the oldest tenth 2.1 ms against 0.45 ms).
 * EXPLAIN ANALYZE on that table (1,000,000 deliveries, 1,000 agencies; see
 * docs/postgres.md) shows one Index Scan and no Sort for every combination, with
 * generic plans (prepared statements) too.
 *
 * Cost: two more B-trees to maintain on every insert and every update that is not
 * HOT (the two replaced ones only grow by 8 bytes an entry). A migration runs in
 * one transaction, where CREATE INDEX CONCURRENTLY cannot run, so the builds read
 * the table once each and block writes to it meanwhile; the two DROPs come last
 * because they lock out reads too, until the commit right after them. IF NOT
 * EXISTS lets an operator with a large table build the indexes beforehand with
 * CONCURRENTLY (the same definitions, see docs/postgres.md); this migration then
 * only drops the replaced ones.
 */
export const deliveryListFilters: Migration = {
  version: 3,
  name: 'delivery-list-filters',
  locks: [{ table: 'webhook_deliveries', mode: 'ACCESS EXCLUSIVE' }],
  sql: `
CREATE INDEX IF NOT EXISTS webhook_deliveries_agency_list_idx
  ON {{schema}}.webhook_deliveries (agency_id, id DESC, created_at);

CREATE INDEX IF NOT EXISTS webhook_deliveries_agency_status_list_idx
  ON {{schema}}.webhook_deliveries (agency_id, status, id DESC, created_at);

CREATE INDEX IF NOT EXISTS webhook_deliveries_agency_type_idx
  ON {{schema}}.webhook_deliveries (agency_id, event_type, id DESC, status, created_at);

CREATE INDEX IF NOT EXISTS webhook_deliveries_agency_entity_idx
  ON {{schema}}.webhook_deliveries (agency_id, entity_id, id DESC)
  WHERE entity_id IS NOT NULL;

DROP INDEX IF EXISTS {{schema}}.webhook_deliveries_agency_id_idx;

DROP INDEX IF EXISTS {{schema}}.webhook_deliveries_agency_status_id_idx;
`,
};
