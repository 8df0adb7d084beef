import { describePausedEndpointScenario } from '@svc/test-support/paused-endpoint-scenario';
import { afterAll } from 'vitest';
import { createRedisWebhooks } from '../src/index';
import { connectTestRedis, describeRedis, REDIS_URL, removeKeys, uniquePrefix } from './redis-test-env';

describeRedis('the paused-endpoint scenario on Redis', () => {
  const prefix = uniquePrefix('paused-endpoint');
  afterAll(async () => {
    const redis = connectTestRedis();
    await removeKeys(redis, prefix);
    await redis.quit();
  });

  // Each simulated process opens its own connection, as separate processes would.
  describePausedEndpointScenario({
    name: 'Redis',
    open: () => createRedisWebhooks({ redis: REDIS_URL, prefix }),
  });
});
