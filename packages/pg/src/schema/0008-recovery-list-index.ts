import type { Migration } from './migration';

/**
 * Version 8: `webhook_recoveries_agency_list_idx (agency_id, id)`, behind
 * `listRecoveries`, an agency's recoveries newest first, paged by `id < $cursor`.
 *
 * Version 5's indexes hold running rows only, and finished rows stay, so without
 * this one the newest-first order came from walking the primary key backwards
 * past every other agency's recoveries: EXPLAIN ANALYZE on 5,000 recoveries over
 * 200 agencies read 96 pages and stepped over 3,974 rows for a page of 20. With
 * it, the scan reads the agency's entries only, backwards (a B-tree walks either
 * way, so no `DESC` is needed), from the cursor as an index bound: 22 pages for
 * the same page, 6 for a later one, and no sort. Both columns are already
 * `COLLATE "C"`, so the index order is the byte order the store contract pages by.
 *
 * The table holds one small row per recovery ever started, so the build is
 * short, even though a migration's transaction keeps CONCURRENTLY out of reach.
 */
export const recoveryListIndex: Migration = {
  version: 8,
  name: 'recovery-list-index',
  locks: [{ table: 'webhook_recoveries', mode: 'SHARE' }],
  sql: `
CREATE INDEX webhook_recoveries_agency_list_idx
  ON {{schema}}.webhook_recoveries (agency_id, id);
`,
};
