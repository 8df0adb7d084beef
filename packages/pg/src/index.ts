export { type MigrateOptions, type MigrateResult, migrate } from './migrate';
export { SCHEMA_VERSION } from './migration-list';
export { createPgQueue, type PgQueueOptions } from './queue';
export { getSchemaVersion } from './schema-check';
export { DEFAULT_SCHEMA } from './schema-name';
export { createPgStore, type PgStoreOptions } from './store';
export { createPgWebhooks, type PgWebhooks, type PgWebhooksOptions } from './webhooks';
