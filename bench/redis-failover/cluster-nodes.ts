/** The cluster of REDIS_CLUSTER_NODES (`host:port,…`; .ci/redis-cluster.sh starts one on 7000–7005). */
export function clusterNodes(): { host: string; port: number }[] {
  const list =
    process.env.REDIS_CLUSTER_NODES ??
    '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003,127.0.0.1:7004,127.0.0.1:7005';
  return list.split(',').map((node) => {
    const colon = node.lastIndexOf(':');
    return { host: node.slice(0, colon), port: Number(node.slice(colon + 1)) };
  });
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}
