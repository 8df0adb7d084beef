import { createMemoryQueue, createWebhookService, createWorker, type WebhookStore } from '@svc/webhooks-core';

export interface LatencyResult {
  ratePerSecond: number;
  seconds: number;
  samples: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Emits at a steady `ratePerSecond` for `seconds` and measures, per delivery,
 * the time from calling `emit` to the 2xx being recorded. The store (with the
 * agency's configuration) is shared with the throughput run.
 */
export async function measureLatency(
  store: WebhookStore,
  ca: string,
  ratePerSecond: number,
  seconds: number,
): Promise<LatencyResult> {
  const emittedAt = new Map<string, number>();
  const latencies: number[] = [];
  const webhooks = createWebhookService({
    store,
    queue: createMemoryQueue(),
    urlPolicy: { allowPrivateNetworks: true },
    transport: { tls: { ca } },
    hooks: {
      onDelivered: (delivery) => {
        const start = emittedAt.get(delivery.id);
        if (start !== undefined) latencies.push(performance.now() - start);
      },
    },
  });
  const worker = createWorker(webhooks, { concurrency: 64, perAgencyConcurrency: 64 });
  await worker.start();
  const total = ratePerSecond * seconds;
  const interval = 1000 / ratePerSecond;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const t = performance.now();
    const emitted = await webhooks.emit({
      agencyId: 'bench-agency',
      eventType: 'job_cancelled',
      entityId: `job-${i}`,
      metadata: { jobId: `job-${i}`, agencyId: 'bench-agency', jobNumber: i, reason: 'latency probe' },
    });
    if (emitted) emittedAt.set(emitted.deliveryId, t);
  }
  const deadline = performance.now() + 10_000;
  while (latencies.length < total && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await worker.stop();
  await webhooks.close();
  if (latencies.length < total)
    throw new Error(`Only ${latencies.length} of ${total} paced deliveries arrived`);
  const sorted = latencies.sort((a, b) => a - b);
  return {
    ratePerSecond,
    seconds,
    samples: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1)!,
  };
}
