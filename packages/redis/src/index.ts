/**
 * `@svc/webhooks-redis`: the Redis store and queue for `@svc/webhooks-core`.
 *
 * @packageDocumentation
 * @module @svc/webhooks-redis
 */
export type { RedisClient, RedisConnection } from './connection';
export type { QueueKeyNames, StoreKeyNames } from './key-space';
export { DEFAULT_KEY_PREFIX } from './key-space';
export type { RedisDeliveryQueue, RedisQueueCounts, RedisQueueOptions } from './queue';
export { createRedisQueue } from './queue';
export type { RecoverySweep, RecoverySweepOptions, SweepableQueue } from './recovery-sweep';
export { createRecoverySweep } from './recovery-sweep';
export type { RedisWebhooks, RedisWebhooksOptions } from './redis-webhooks';
export { createRedisWebhooks } from './redis-webhooks';
export type { RedisStoreOptions, RedisWebhookStore } from './store';
export { createRedisStore } from './store';
