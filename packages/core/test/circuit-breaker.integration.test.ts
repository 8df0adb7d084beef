import {
  FAST_RETRY,
  hostResolver,
  jobCancelled,
  type ServiceHarness,
  startServiceHarness,
} from '@svc/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type { CircuitRecord, WebhookHooks, WebhookService, WebhookWorker } from '../src/index';
import { createWebhookService, createWorker } from '../src/index';

let harness: ServiceHarness | undefined;
let second: { webhooks: WebhookService; worker: WebhookWorker } | undefined;

afterEach(async () => {
  await second?.worker.stop();
  await second?.webhooks.close();
  second = undefined;
  await harness?.close();
  harness = undefined;
});

interface CircuitLog {
  hooks: WebhookHooks;
  changes: CircuitRecord[];
}

function circuitLog(): CircuitLog {
  const changes: CircuitRecord[] = [];
  return { changes, hooks: { onCircuitChange: ({ circuit }) => changes.push(circuit) } };
}

async function waitFor(what: string, condition: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 12_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Requests that arrived while the breaker was open, i.e. between an opening and its probe time. */
function requestsWhileOpen(changes: readonly CircuitRecord[], arrivals: readonly number[]): number[] {
  const periods = changes
    .filter((circuit) => circuit.status === 'open')
    .map((circuit) => [circuit.openedAt as number, circuit.openUntil as number] as const);
  // A request in flight when the breaker opened may still arrive a moment after:
  // only a request that started well inside the period was sent despite it.
  return arrivals.filter((at) => periods.some(([from, until]) => at > from + 50 && at < until));
}

describe('the circuit breaker, through a real HTTPS receiver', () => {
  it('opens after failures in a row, sends nothing while open, and one probe closes it; no attempt is spent waiting', async () => {
    const log = circuitLog();
    harness = await startServiceHarness({
      service: {
        retry: { ...FAST_RETRY, maxAttempts: 20 },
        circuitBreaker: { failureThreshold: 3, openMs: 400, maxOpenMs: 400 },
        hooks: log.hooks,
        transport: { timeoutMs: 300 },
      },
      worker: { perAgencyConcurrency: 1 },
    });
    await harness.configure('agency-a');
    let hanging = true;
    harness.receiver.respond(() => (hanging ? { hangMs: 60_000 } : { status: 200 }));
    const emitted = await Promise.all(
      Array.from({ length: 6 }, (_, index) => harness?.webhooks.emit(jobCancelled('agency-a', index + 1))),
    );
    await waitFor('the breaker to open', () => log.changes.some((circuit) => circuit.status === 'open'));
    expect(log.changes[0]).toMatchObject({ status: 'open', consecutiveFailures: 3 });
    // Let it probe (and fail) once more while the receiver still hangs, then heal it.
    await waitFor(
      'a failed probe',
      () => log.changes.filter((circuit) => circuit.status === 'open').length >= 2,
    );
    hanging = false;
    for (const delivery of emitted)
      await harness.waitForStatus('agency-a', delivery?.deliveryId as string, 'success');

    expect(log.changes.map((circuit) => circuit.status)).toEqual([
      'open',
      'half_open',
      'open',
      'half_open',
      'closed',
    ]);
    const arrivals = harness.receiver.requests.map((request) => request.receivedAt);
    expect(requestsWhileOpen(log.changes, arrivals), 'requests sent while the breaker was open').toEqual([]);
    const { deliveries } = await harness.webhooks.listDeliveries('agency-a', { limit: 100 });
    const attempts = deliveries.reduce((sum, delivery) => sum + delivery.attempt, 0);
    expect(attempts, 'attempts recorded = requests made: waiting spent none').toBe(
      harness.receiver.requests.length,
    );
    expect(await harness.webhooks.store.getCircuit('agency-a')).toMatchObject({
      status: 'closed',
      consecutiveFailures: 0,
    });
  });

  it('is shared through the store: a second worker process does not send while the first opened it', async () => {
    const log = circuitLog();
    const breaker = { failureThreshold: 2, openMs: 500, maxOpenMs: 500 };
    harness = await startServiceHarness({
      service: { retry: { ...FAST_RETRY, maxAttempts: 20 }, circuitBreaker: breaker, hooks: log.hooks },
      worker: { perAgencyConcurrency: 1 },
    });
    const webhooks = createWebhookService({
      store: harness.webhooks.store,
      queue: harness.webhooks.queue,
      urlPolicy: { allowPrivateNetworks: true, resolve: hostResolver({ 'hooks.test': '127.0.0.1' }) },
      retry: { ...FAST_RETRY, maxAttempts: 20 },
      circuitBreaker: breaker,
      hooks: log.hooks,
      transport: { tls: { ca: harness.receiver.ca } },
    });
    second = { webhooks, worker: createWorker(webhooks, { pollIntervalMs: 20, perAgencyConcurrency: 1 }) };
    await second.worker.start();
    await harness.configure('agency-a');
    let failing = true;
    harness.receiver.respond(() => (failing ? { status: 503 } : { status: 200 }));
    const emitted = await Promise.all(
      Array.from({ length: 8 }, (_, index) => harness?.webhooks.emit(jobCancelled('agency-a', index + 1))),
    );
    await waitFor('the breaker to open', () => log.changes.some((circuit) => circuit.status === 'open'));
    failing = false;
    for (const delivery of emitted)
      await harness.waitForStatus('agency-a', delivery?.deliveryId as string, 'success');

    const arrivals = harness.receiver.requests.map((request) => request.receivedAt);
    expect(requestsWhileOpen(log.changes, arrivals), 'requests sent by either worker while open').toEqual([]);
    expect(log.changes.at(-1)?.status).toBe('closed');
  });

  it('a PUT of the configuration closes an open breaker, so deliveries go before the probe time', async () => {
    const log = circuitLog();
    harness = await startServiceHarness({
      service: {
        retry: { ...FAST_RETRY, maxAttempts: 20 },
        circuitBreaker: { failureThreshold: 2, openMs: 600_000, maxOpenMs: 600_000 },
        hooks: log.hooks,
      },
      worker: { perAgencyConcurrency: 1 },
    });
    await harness.configure('agency-a');
    let failing = true;
    harness.receiver.respond(() => (failing ? { status: 500 } : { status: 200 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await waitFor('the breaker to open', () => log.changes.some((circuit) => circuit.status === 'open'));
    failing = false;
    await harness.configure('agency-a');
    expect(await harness.webhooks.store.getCircuit('agency-a')).toMatchObject({
      status: 'closed',
      consecutiveFailures: 0,
    });
    // Ten minutes of open breaker would time this out; the PUT lets it through within seconds.
    await harness.waitForStatus('agency-a', emitted?.deliveryId as string, 'success');
  });

  it('circuitBreaker: false never opens, and writes no breaker state', async () => {
    harness = await startServiceHarness({
      service: { retry: { ...FAST_RETRY, maxAttempts: 8 }, circuitBreaker: false },
    });
    await harness.configure('agency-a');
    harness.receiver.respond(() => ({ status: 503 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted?.deliveryId as string, 'failed');
    expect(failed.attempt).toBe(8);
    expect(await harness.webhooks.store.getCircuit('agency-a')).toBeNull();
  });
});
