import { jobCancelled, startTestReceiver } from '@svc/test-support';
import { createWebhookService, createWorker } from '@svc/webhooks-core';
import { Cluster } from 'ioredis';
import { createRedisWebhooks } from '../../packages/redis/src/index';
import { percentile } from './cluster-nodes';

/** One measurement of the linked pair on the cluster, with or without `durability`. */
export interface DurabilitySample {
  /** Sequential emits: latency of one emit, ms (sorted). */
  emitLatencies: number[];
  /** Emits per second with `inFlight` emits outstanding. */
  emitsPerSecond: number;
  /** Deliveries per second of a backlog drained by one worker (each attempt recorded, durably when on). */
  deliveriesPerSecond: number;
}

export interface DurabilityRunOptions {
  nodes: { host: string; port: number }[];
  durable: boolean;
  label: string;
  sequential: number;
  concurrent: number;
  inFlight: number;
  backlog: number;
}

export async function measureDurability(options: DurabilityRunOptions): Promise<DurabilitySample> {
  const cluster = new Cluster(options.nodes);
  cluster.on('error', () => {});
  const receiver = await startTestReceiver();
  const prefix = `{whk-bench-durability-${options.label}}:`;
  const linked = createRedisWebhooks({
    redis: cluster,
    prefix,
    durability: options.durable ? { replicas: 1, timeoutMs: 1_000 } : undefined,
  });
  const webhooks = createWebhookService({
    store: linked.store,
    queue: linked.queue,
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca: receiver.ca }, timeoutMs: 5_000 },
  });
  try {
    await webhooks.putConfig('agency-1', {
      webhookUrl: receiver.url,
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
    let n = 0;
    const next = () => jobCancelled('agency-1', n++);
    const emitLatencies: number[] = [];
    for (let i = 0; i < options.sequential; i++) {
      const started = performance.now();
      await webhooks.emit(next());
      emitLatencies.push(performance.now() - started);
    }
    emitLatencies.sort((a, b) => a - b);

    let issued = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (issued < options.concurrent) {
          issued++;
          await webhooks.emit(next());
        }
      }),
    );
    const emitsPerSecond = options.concurrent / ((performance.now() - started) / 1000);

    // Everything emitted so far is the backlog; the worker's attempt records are the durable writes.
    const total = options.sequential + options.concurrent;
    const worker = createWorker(webhooks, {
      concurrency: 64,
      perAgencyConcurrency: 64,
      recoverySweep: false,
    });
    const drainStart = performance.now();
    await worker.start();
    await receiver.waitForRequests(total, 120_000);
    for (;;) {
      const counts = await linked.queue.counts();
      if (counts.queued + counts.claimed === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const deliveriesPerSecond = total / ((performance.now() - drainStart) / 1000);
    await worker.stop();
    return { emitLatencies, emitsPerSecond, deliveriesPerSecond };
  } finally {
    await webhooks.close();
    await linked.close();
    await Promise.all(
      cluster.nodes('master').map(async (node) => {
        let cursor = '0';
        do {
          const [nextCursor, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          cursor = nextCursor;
          if (keys.length > 0) await Promise.all(keys.map((key) => node.unlink(key)));
        } while (cursor !== '0');
      }),
    );
    cluster.disconnect();
    await receiver.close();
  }
}

export function latencySummary(sorted: readonly number[]): { p50: number; p99: number } {
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}
