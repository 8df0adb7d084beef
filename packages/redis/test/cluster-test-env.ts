import { randomBytes } from 'node:crypto';
import { Cluster, type ClusterOptions, type Redis } from 'ioredis';
import { describe } from 'vitest';

/**
 * The Redis Cluster the cluster tests use: `REDIS_CLUSTER_NODES`, a comma-separated
 * list of `host:port` (CI starts one with .ci/redis-cluster.sh). Unset, the cluster
 * suites are skipped with a message; with CI=true they fail, so CI never passes by skipping.
 */
export const CLUSTER_NODES = (process.env.REDIS_CLUSTER_NODES ?? '')
  .split(',')
  .map((node) => node.trim())
  .filter((node) => node !== '')
  .map((node) => {
    const colon = node.lastIndexOf(':');
    return { host: node.slice(0, colon), port: Number(node.slice(colon + 1)) };
  });

async function probeCluster(): Promise<boolean> {
  if (CLUSTER_NODES.length === 0) {
    const message = 'REDIS_CLUSTER_NODES is not set.';
    if (process.env.CI === 'true') throw new Error(`${message} CI=true: the Redis Cluster tests must run.`);
    console.warn(
      `\n!!! ${message} SKIPPING the Redis Cluster suites (start one with .ci/redis-cluster.sh).\n`,
    );
    return false;
  }
  const cluster = connectTestCluster({ clusterRetryStrategy: () => null });
  try {
    const info = String(await cluster.cluster('INFO'));
    if (!info.includes('cluster_state:ok')) throw new Error(`cluster_state is not ok:\n${info}`);
    return true;
  } catch (error) {
    const message = `The Redis Cluster at ${process.env.REDIS_CLUSTER_NODES} is not usable (${(error as Error).message}).`;
    if (process.env.CI === 'true') throw new Error(`${message} CI=true: the Redis Cluster tests must run.`);
    console.warn(`\n!!! ${message} SKIPPING the Redis Cluster suites.\n`);
    return false;
  } finally {
    cluster.disconnect();
  }
}

/** A fresh cluster client; the caller quits it. */
export function connectTestCluster(options: ClusterOptions = {}): Cluster {
  const cluster = new Cluster(CLUSTER_NODES, { redisOptions: { maxRetriesPerRequest: 3 }, ...options });
  cluster.on('error', () => {});
  return cluster;
}

export const clusterReachable = await probeCluster();

/** `describe`, skipped (loudly, see above) without a usable cluster outside CI. */
export function describeCluster(name: string, body: () => void): void {
  describe.skipIf(!clusterReachable)(name, body);
}

/** A key prefix no other test or run uses, with its own hash tag (what a linked pair needs on a cluster). */
export function uniqueTaggedPrefix(label: string): string {
  return `{whk-test-${label}-${randomBytes(6).toString('hex')}}:`;
}

/** A key prefix no other test or run uses, without a tag: store and queue keys then sit on their own slots. */
export function uniqueUntaggedPrefix(label: string): string {
  return `whk-test:${label}:${randomBytes(6).toString('hex')}:`;
}

/** Deletes every key under `prefix` on every master. */
export async function removeClusterKeys(cluster: Cluster, prefix: string): Promise<void> {
  // SCAN's MATCH is a glob: braces are literal there, but `*?[\` are not.
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  await Promise.all(
    cluster.nodes('master').map(async (node: Redis) => {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) await node.unlink(key);
      } while (cursor !== '0');
    }),
  );
}
