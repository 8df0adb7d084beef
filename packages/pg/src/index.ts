/**
 * `@svc/webhooks-pg`: the PostgreSQL store and queue for `@svc/webhooks-core`,
 * versioned migrations, and transactional emit (the outbox pattern).
 *
 * Every function takes one options object with the host's `pool`
 * (`createPgWebhooks({ pool })`, `migrate({ pool, schema })`) and never ends it.
 *
 * @packageDocumentation
 * @module @svc/webhooks-pg
 */
export { createPgWebhooks, type PgWebhooks, type PgWebhooksOptions } from './pg-webhooks';
export { ListenSilentError } from './queue/listen-silent-error';
export { createPgQueue, type PgQueueOptions } from './queue/pg-queue';
export type { ListenTarget } from './queue/wakeup-listener';
export { type MigrateOptions, type MigrateResult, migrate } from './schema/migrate';
export { SCHEMA_VERSION } from './schema/migration-list';
export { DEFAULT_SCHEMA } from './schema/schema-name';
export { getSchemaVersion, type SchemaVersionOptions } from './schema/schema-version';
export { createPgStore, type PgStoreOptions } from './store/pg-store';
