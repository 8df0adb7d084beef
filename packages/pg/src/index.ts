/**
 * `@svc/webhooks-pg`: the PostgreSQL store and queue for `@svc/webhooks-core`,
 * versioned migrations, and transactional emit (the outbox pattern).
 *
 * @packageDocumentation
 * @module @svc/webhooks-pg
 */
export { type MigrateOptions, type MigrateResult, migrate } from './migrate';
export { SCHEMA_VERSION } from './migration-list';
export { createPgQueue, type PgQueueOptions } from './queue';
export { getSchemaVersion } from './schema-check';
export { DEFAULT_SCHEMA } from './schema-name';
export { createPgStore, type PgStoreOptions } from './store';
export { createPgWebhooks, type PgWebhooks, type PgWebhooksOptions } from './webhooks';
