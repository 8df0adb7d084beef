import { expect, it } from 'vitest';
import { CLUSTER_NODES, describeCluster } from './cluster-test-env';
import { runFailover, waitForHealthyCluster } from './failover-scenario';

// Kills the master of the prefix's slot mid-run (SIGKILL) while emits and deliveries flow to a
// real HTTPS receiver, then starts it again (it rejoins as a replica, so reruns start healthy).
// bench/redis-failover repeats this 8 times, with and without durability, for the numbers.
export function describeClusterFailover(): void {
  describeCluster('a Redis Cluster failover mid-run', () => {
    it('with durability on: nothing acknowledged is lost, attempts are recorded once, callers see only store_unavailable, claims stay quiet', async () => {
      await waitForHealthyCluster(CLUSTER_NODES, 60_000);
      const result = await runFailover({
        nodes: CLUSTER_NODES,
        durability: { replicas: 1, timeoutMs: 1_000 },
        emits: 1_500,
        ratePerSecond: 250,
        killAfter: 250,
        log: (line) => console.log(`failover: ${line}`),
      });
      console.log(`failover: ${JSON.stringify(result)}`);
      expect(result.untyped).toEqual([]);
      expect(result.untypedReported).toEqual([]);
      // The kill reached the callers: they were told, typed, and retried.
      expect(result.typedFailures).toBeGreaterThan(0);
      expect(result.abandoned).toBe(0);
      expect(result.acknowledged).toBe(1_500);
      expect(result.lost).toBe(0);
      expect(result.attemptsRecordedTwice).toBe(0);
      expect(result.reported.claim ?? 0).toBe(0);
    }, 240_000);
  });
}
