import { createWebhookService, type WebhookService } from '@svc/webhooks-core';
import type { Redis } from 'ioredis';
import { createRedisWebhooks, type RedisWebhooks } from '../../packages/redis/src/index';

/**
 * A service on the linked Redis adapters (defaults) under `prefix`, trusting
 * the local receiver's certificate: the Redis counterpart of bench/pg's
 * `createBenchService`.
 */
export function createRedisBenchService(
  redis: Redis,
  prefix: string,
  ca: string,
): { webhooks: WebhookService; adapters: RedisWebhooks } {
  const adapters = createRedisWebhooks({ redis, prefix });
  const webhooks = createWebhookService({
    store: adapters.store,
    queue: adapters.queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca } },
  });
  return { webhooks, adapters };
}
