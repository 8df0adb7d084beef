import { describeQueueConformance, describeStoreConformance } from '@svc/webhooks-core/testing';
import { afterAll } from 'vitest';
import {
  createRedisQueue,
  createRedisStore,
  createRedisWebhooks,
  type RedisDeliveryQueue,
} from '../src/index';
import {
  clusterReachable,
  connectTestCluster,
  removeClusterKeys,
  uniqueTaggedPrefix,
  uniqueUntaggedPrefix,
} from './cluster-test-env';

const durability = { replicas: 1, timeoutMs: 2_000 };

function siblingsOn(prefix: string): { open: () => RedisDeliveryQueue; close: () => Promise<void> } {
  const opened: { queue: RedisDeliveryQueue; client: ReturnType<typeof connectTestCluster> }[] = [];
  return {
    open: () => {
      const client = connectTestCluster();
      const queue = createRedisQueue({ redis: client, prefix });
      opened.push({ queue, client });
      return queue;
    },
    close: async () => {
      await Promise.all(opened.map(({ queue }) => queue.close()));
      await Promise.all(opened.map(({ client }) => client.quit()));
    },
  };
}

/**
 * The core conformance suites on a real Redis Cluster (3 masters, 3 replicas): the separate
 * store and queue under an untagged prefix (their keys on the slots of `{store}` and `{queue}`),
 * and the linked pair under a tagged one, with replicas acknowledging every write.
 */
export function describeClusterConformance(): void {
  if (!clusterReachable) return;
  const cluster = connectTestCluster();
  afterAll(async () => {
    await cluster.quit();
  });
  describeStoreConformance('Redis Cluster', () => {
    const prefix = uniqueUntaggedPrefix('cluster-store');
    return {
      store: createRedisStore({ redis: cluster, prefix }),
      teardown: () => removeClusterKeys(cluster, prefix),
    };
  });

  describeQueueConformance('Redis Cluster', () => {
    const prefix = uniqueUntaggedPrefix('cluster-queue');
    const queue = createRedisQueue({ redis: cluster, prefix });
    const siblings = siblingsOn(prefix);
    return {
      queue,
      sibling: siblings.open,
      teardown: async () => {
        await queue.close();
        await siblings.close();
        await removeClusterKeys(cluster, prefix);
      },
    };
  });

  describeStoreConformance('Redis Cluster, linked store and queue, durability on', () => {
    const prefix = uniqueTaggedPrefix('cluster-linked-store');
    const linked = createRedisWebhooks({ redis: cluster, prefix, durability });
    return {
      store: linked.store,
      teardown: async () => {
        await linked.close();
        await removeClusterKeys(cluster, prefix);
      },
    };
  });

  describeQueueConformance('Redis Cluster, linked store and queue, durability on', () => {
    const prefix = uniqueTaggedPrefix('cluster-linked-queue');
    const linked = createRedisWebhooks({ redis: cluster, prefix, durability });
    const siblings = siblingsOn(prefix);
    return {
      queue: linked.queue,
      store: linked.store,
      sibling: siblings.open,
      teardown: async () => {
        await linked.close();
        await siblings.close();
        await removeClusterKeys(cluster, prefix);
      },
    };
  });
}
