import type { Migration } from './migration';

/**
 * Version 9: Standard Webhooks beside the spec's signature (design §6.3).
 *
 * `webhook_configs` gains `signature_scheme` (`'service'`, `'standard'` or
 * `'both'`, checked) and `signing_keys`, the agency's Ed25519 key pairs as a JSON
 * array (`[]` when asymmetric signatures are off; private keys as the service
 * wrote them, sealed when it has `secretEncryption`). Existing rows read
 * `'service'` and `[]`: exactly what they sent before.
 *
 * Both defaults are constants, so nothing is rewritten (PostgreSQL 11 and later);
 * the CHECK reads the table once to validate it, under the same lock: 56 ms for
 * 200,000 configurations (46 MB) on a 2-core development machine, well under a
 * millisecond for a few thousand.
 *
 * Why this cannot deadlock with live traffic, old release or new: it is one
 * statement on one table, so it asks for one lock (ACCESS EXCLUSIVE on
 * `webhook_configs`) and holds nothing else while it waits; after it, the ledger
 * insert needs only ROW EXCLUSIVE on `schema_migrations`, which nobody else
 * writes. Emits and workers never hold a lock on `webhook_configs` while asking
 * for another: every statement on it is a single autocommit statement on the
 * pool (a host transaction only ever inserts deliveries), and every one names its
 * columns, so prepared statements of an older release keep their result shape.
 * While the ALTER waits for the statements in flight, new config reads queue
 * behind it for that moment; none fails. One ALTER with both columns keeps that
 * to one lock acquisition (see `test/signature-schemes.pg.test.ts`).
 */
export const signatureSchemes: Migration = {
  version: 9,
  name: 'signature-schemes',
  locks: [{ table: 'webhook_configs', mode: 'ACCESS EXCLUSIVE' }],
  sql: `
ALTER TABLE {{schema}}.webhook_configs
  ADD COLUMN signature_scheme text NOT NULL DEFAULT 'service'
    CONSTRAINT webhook_configs_signature_scheme_check
    CHECK (signature_scheme IN ('service', 'standard', 'both')),
  ADD COLUMN signing_keys jsonb NOT NULL DEFAULT '[]';
`,
};
