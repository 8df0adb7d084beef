/**
 * `@svc/webhooks-redis`: the Redis store and queue for `@svc/webhooks-core`.
 *
 * With a store in another system (PostgreSQL, memory), run core's
 * `createRecoverySweep` (or the worker's own sweep) with the Redis queue: it
 * uses the queue's `enqueueMissing`, so it never drops a live claim.
 *
 * @packageDocumentation
 * @module @svc/webhooks-redis
 */
export type { RedisClient, RedisConnection } from './connection/connection';
export type { RedisDurability } from './connection/replica-wait';
export type { RedisQueueKeyNames, RedisStoreKeyNames } from './key-names';
export { DEFAULT_KEY_PREFIX } from './key-names';
export type { RedisWebhooks, RedisWebhooksOptions } from './linked/redis-webhooks';
export { createRedisWebhooks } from './linked/redis-webhooks';
export type { RedisDeliveryQueue, RedisQueueCounts, RedisQueueOptions } from './queue/redis-queue';
export { createRedisQueue } from './queue/redis-queue';
export type { RedisStoreOptions, RedisWebhookStore } from './store/redis-store';
export { createRedisStore } from './store/redis-store';
