import {
  FAST_RETRY,
  hostResolver,
  jobCancelled,
  type ServiceHarness,
  startServiceHarness,
} from '@svc/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  WebhookEndpointDisabledEvent,
  WebhookEndpointHealthEvent,
  WebhookHooks,
  WebhookServiceOptions,
} from '../src/index';
import { createMemoryQueue, createMemoryStore, createWebhookService, InvalidOptionError } from '../src/index';

const FIVE_DAYS = 432_000_000;

let harness: ServiceHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface HealthLog {
  hooks: WebhookHooks;
  changes: Array<Pick<WebhookEndpointHealthEvent, 'previous' | 'current'>>;
  disabled: WebhookEndpointDisabledEvent[];
}

function healthLog(): HealthLog {
  const log: HealthLog = {
    changes: [],
    disabled: [],
    hooks: {
      onEndpointHealthChange: ({ previous, current }) => log.changes.push({ previous, current }),
      onEndpointDisabled: (event) => log.disabled.push(event),
    },
  };
  return log;
}

/** A clock the test moves forward: the worker and the service read it for every decision. */
function movableClock(): { now: () => number; advance: (ms: number) => void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => (offset += ms) };
}

async function waitFor(what: string, condition: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 12_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts a harness whose receiver fails: a 500 first, then 404s (an answer to the breaker, no success). */
async function startFailing(service: Partial<WebhookServiceOptions>): Promise<ServiceHarness> {
  const started = await startServiceHarness({
    service: {
      retry: { ...FAST_RETRY, maxAttempts: 2 },
      // High enough that the breaker never holds an attempt back in these tests.
      circuitBreaker: { failureThreshold: 100 },
      ...service,
    },
  });
  let answered = 0;
  started.receiver.respond(() => {
    answered += 1;
    return { status: answered === 1 ? 500 : 404 };
  });
  return started;
}

describe('endpoint health and auto-disable, through a real HTTPS receiver', () => {
  it('fails for five days → disabled with its reason, hooks once, emit refused; a PUT enabling it clears health', async () => {
    const log = healthLog();
    const clock = movableClock();
    harness = await startFailing({ hooks: log.hooks, clock: clock.now });
    const { webhooks } = harness;
    await harness.configure('agency-a');
    expect(await webhooks.getEndpointHealth('agency-a')).toMatchObject({
      state: 'healthy',
      consecutiveFailures: 0,
    });

    const firstAt = clock.now();
    const first = await webhooks.emit(jobCancelled('agency-a', 1));
    await harness.waitForStatus('agency-a', first?.deliveryId as string, 'failed');
    // The attempt's breaker write lands after its status: the clock moves only once it has.
    const failing = await harness.waitForHealth('agency-a', (health) => health.consecutiveFailures === 2);
    expect(failing).toMatchObject({ state: 'failing', consecutiveFailures: 2, lastSuccessAt: null });
    expect(failing.failingSince).toBeGreaterThanOrEqual(firstAt);
    expect(failing.lastFailureAt).toBeGreaterThanOrEqual(failing.failingSince as number);
    expect(log.changes).toEqual([{ previous: 'healthy', current: 'failing' }]);
    expect(log.disabled, 'not yet: the run is younger than five days').toEqual([]);

    clock.advance(FIVE_DAYS);
    const second = await webhooks.emit(jobCancelled('agency-a', 2));
    await waitFor(
      'the configuration to be disabled',
      async () => !(await webhooks.getConfig('agency-a')).enabled,
    );
    const abandoned = await harness.waitForStatus('agency-a', second?.deliveryId as string, 'failed');
    expect(abandoned.attempt, 'its retry was abandoned without a request').toBe(1);

    const stored = await webhooks.store.getConfig('agency-a');
    expect(stored).toMatchObject({ enabled: false, disabledReason: 'auto_disabled_failing' });
    const disabled = await webhooks.getEndpointHealth('agency-a');
    expect(disabled).toMatchObject({
      state: 'disabled',
      consecutiveFailures: 3,
      failingSince: failing.failingSince,
      disabledAt: stored?.disabledAt,
      disabledReason: 'auto_disabled_failing',
    });
    expect(log.disabled).toEqual([
      {
        agencyId: 'agency-a',
        reason: 'auto_disabled_failing',
        webhookUrl: harness.receiver.urlFor('/hooks'),
        failingSince: failing.failingSince,
        disabledAt: stored?.disabledAt,
      },
    ]);
    expect(log.changes).toEqual([
      { previous: 'healthy', current: 'failing' },
      { previous: 'failing', current: 'disabled' },
    ]);
    expect(
      await webhooks.emit(jobCancelled('agency-a', 3)),
      'a disabled configuration takes no event',
    ).toBeNull();
    expect(harness.receiver.requests, 'nothing sent after the disable').toHaveLength(3);
    expect(await webhooks.getConfig('agency-a'), 'GET /config gains no field').not.toHaveProperty(
      'disabledReason',
    );

    harness.receiver.respond(() => ({ status: 204 }));
    await harness.configure('agency-a');
    expect(await webhooks.getEndpointHealth('agency-a')).toMatchObject({
      state: 'healthy',
      consecutiveFailures: 0,
      failingSince: null,
      disabledAt: null,
      disabledReason: null,
    });
    expect(log.changes.at(-1)).toEqual({ previous: 'disabled', current: 'healthy' });

    const fourth = await webhooks.emit(jobCancelled('agency-a', 4));
    const delivered = await harness.waitForStatus('agency-a', fourth?.deliveryId as string, 'success');
    const healthy = await webhooks.getEndpointHealth('agency-a');
    expect(healthy).toMatchObject({ state: 'healthy', lastSuccessAt: delivered.deliveredAt });
    expect(log.disabled, 'disabled once').toHaveLength(1);
    expect(log.changes).toHaveLength(3);
  });

  it('with autoDisable: false, an endpoint failing for six days stays enabled and failing', async () => {
    const log = healthLog();
    const clock = movableClock();
    harness = await startFailing({ hooks: log.hooks, clock: clock.now, autoDisable: false });
    const { webhooks } = harness;
    await harness.configure('agency-a');
    const first = await webhooks.emit(jobCancelled('agency-a', 1));
    await harness.waitForStatus('agency-a', first?.deliveryId as string, 'failed');
    await harness.waitForHealth('agency-a', (health) => health.consecutiveFailures === 2);
    clock.advance(6 * 86_400_000);
    const second = await webhooks.emit(jobCancelled('agency-a', 2));
    await harness.waitForStatus('agency-a', second?.deliveryId as string, 'failed');

    expect(await webhooks.getConfig('agency-a')).toMatchObject({ enabled: true });
    expect(await webhooks.getEndpointHealth('agency-a')).toMatchObject({
      state: 'failing',
      consecutiveFailures: 4,
      disabledAt: null,
      disabledReason: null,
    });
    expect(harness.receiver.requests).toHaveLength(4);
    expect(log.disabled).toEqual([]);
    expect(log.changes).toEqual([{ previous: 'healthy', current: 'failing' }]);
  });

  it('a shorter afterMs disables sooner, counted from the first attempt of the run', async () => {
    const log = healthLog();
    const clock = movableClock();
    harness = await startFailing({ hooks: log.hooks, clock: clock.now, autoDisable: { afterMs: 60_000 } });
    const { webhooks } = harness;
    await harness.configure('agency-a');
    const first = await webhooks.emit(jobCancelled('agency-a', 1));
    await harness.waitForStatus('agency-a', first?.deliveryId as string, 'failed');
    await harness.waitForHealth('agency-a', (health) => health.consecutiveFailures === 2);
    expect((await webhooks.getConfig('agency-a')).enabled, 'a minute has not passed').toBe(true);
    clock.advance(60_000);
    await webhooks.emit(jobCancelled('agency-a', 2));
    await waitFor(
      'the configuration to be disabled',
      async () => !(await webhooks.getConfig('agency-a')).enabled,
    );
    expect(log.disabled).toHaveLength(1);
  });
});

describe('endpoint health without a circuit breaker', () => {
  it('answers from the configuration alone, and refuses autoDisable', async () => {
    const options = {
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      circuitBreaker: false,
    } as const;
    expect(() => createWebhookService({ ...options, autoDisable: { afterMs: 60_000 } })).toThrow(
      InvalidOptionError,
    );
    const webhooks = createWebhookService({
      ...options,
      urlPolicy: { allowPrivateNetworks: true, resolve: hostResolver({ 'hooks.test': '127.0.0.1' }) },
    });
    await expect(webhooks.getEndpointHealth('agency-a')).rejects.toMatchObject({ code: 'config_not_found' });
    await webhooks.putConfig('agency-a', {
      webhookUrl: 'https://hooks.test/a',
      enabled: false,
      subscribedEventTypes: [],
    });
    expect(await webhooks.getEndpointHealth('agency-a')).toEqual({
      state: 'disabled',
      consecutiveFailures: 0,
      lastSuccessAt: null,
      lastFailureAt: null,
      failingSince: null,
      disabledAt: null,
      pausedUntil: null,
      disabledReason: null,
    });
    await webhooks.close();
  });
});
