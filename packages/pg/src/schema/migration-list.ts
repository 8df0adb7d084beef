import { createTables } from './0001-create-tables';
import { fairClaimsAndCircuits } from './0002-fair-claims-and-circuits';
import { deliveryListFilters } from './0003-delivery-list-filters';
import { attemptHistory } from './0004-attempt-history';
import { bulkRecoveries } from './0005-bulk-recoveries';
import { endpointHealth } from './0006-endpoint-health';
import { retentionIndex } from './0007-retention-index';
import { recoveryListIndex } from './0008-recovery-list-index';
import { signatureSchemes } from './0009-signature-schemes';
import { recoveryRetentionIndex } from './0010-recovery-retention-index';
import type { Migration } from './migration';

/**
 * Every migration this release ships, in order. The SQL lives in TypeScript
 * string modules (`0001-create-tables.ts`, …) rather than `.sql` files so it
 * survives any bundling (ESM, CJS, a host that bundles its server) without
 * file-system lookups at run time.
 */
export const MIGRATIONS: readonly Migration[] = [
  createTables,
  fairClaimsAndCircuits,
  deliveryListFilters,
  attemptHistory,
  bulkRecoveries,
  endpointHealth,
  retentionIndex,
  recoveryListIndex,
  signatureSchemes,
  recoveryRetentionIndex,
];

/**
 * The schema version the adapters of this release need (the latest migration).
 * Compare it with {@link getSchemaVersion} in a health check or a deploy step.
 */
export const SCHEMA_VERSION: number = MIGRATIONS.length;
