import { startTestReceiver } from '@svc/test-support';
import { expectEachReplayedOnce, runRecoveryCrash } from '@svc/test-support/recovery-crash';
import { createWebhookService } from '@svc/webhooks-core';
import { it } from 'vitest';
import { createRedisWebhooks } from '../src/index';
import { connectTestRedis, describeRedis, REDIS_URL, removeKeys, uniquePrefix } from './redis-test-env';
import { spawnWorkerProcess } from './worker-processes';

/** Short, so the killed worker's recoveries are taken over within seconds. */
const LEASE_MS = 2_000;

describeRedis('bulk recovery across worker processes', () => {
  it('a recovery of 5,000 failed deliveries survives a SIGKILLed worker: each one replayed exactly once', async () => {
    const redis = connectTestRedis();
    const prefix = uniquePrefix('recovery-crash');
    const receiver = await startTestReceiver({ respond: () => ({ status: 422 }) });
    const { store, queue } = createRedisWebhooks({ redis, prefix });
    const webhooks = createWebhookService({ store, queue, urlPolicy: { allowPrivateNetworks: true } });
    try {
      const result = await runRecoveryCrash({
        webhooks,
        receiverUrl: receiver.url,
        spawnWorker: () =>
          spawnWorkerProcess({
            redisUrl: REDIS_URL,
            prefix,
            receiverCa: receiver.ca,
            concurrency: 16,
            leaseMs: LEASE_MS,
            linked: true,
          }),
      });

      expectEachReplayedOnce(result);
    } finally {
      await webhooks.close();
      await queue.close();
      await receiver.close();
      await removeKeys(redis, prefix);
      await redis.quit();
    }
  }, 180_000);
});
