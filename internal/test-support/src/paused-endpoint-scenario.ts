import {
  createWebhookService,
  createWorker,
  type DeliveryQueue,
  type WebhookService,
  type WebhookServiceOptions,
  type WebhookStore,
  type WebhookWorker,
} from '@svc/webhooks-core';
import { afterEach, describe, expect, it } from 'vitest';
import { hostResolver } from './host-resolver';
import { jobCancelled, type ServiceHarness, startServiceHarness } from './service-harness';

/** A store and queue on the backend under test, opened anew for each simulated process. */
export interface ScenarioBackend {
  store: WebhookStore;
  queue: DeliveryQueue;
  /** Closes what this pair opened (not the shared database). */
  close?: () => Promise<void>;
}

/** Options of {@link describePausedEndpointScenario}. */
export interface PausedEndpointScenarioOptions {
  /** The backend's name in the test titles. */
  name: string;
  /** A new store and queue on the one shared backend: each call stands for another process. */
  open: () => ScenarioBackend | Promise<ScenarioBackend>;
}

/**
 * The service's options as a host runs it in its own integration tests: the
 * breaker's defaults (five failures, 30 s open), a fast retry schedule, and the
 * worker's default poll interval. Only tests reach 127.0.0.1, hence
 * `allowPrivateNetworks`.
 */
const AS_HOSTS_RUN_IT = {
  retry: { schedule: [100, 100, 100, 100], jitterRatio: 0 },
  circuitBreaker: {},
} satisfies Partial<WebhookServiceOptions>;
const WORKER_DEFAULTS = { pollIntervalMs: 1_000 };
/**
 * The breaker's first open period is 30 s: anything that arrives well within it
 * was released by the person's action, not by the probe time. The bars (1 s for
 * the person's delivery, 2 s for the held ones after it) are measured by
 * `bench/paused-endpoint`; this bound only tells the two mechanisms apart.
 */
const RELEASED_WITHIN_MS = 6_000;

/**
 * What a person sees and can do while an endpoint is paused by its circuit
 * breaker, end to end through a real HTTPS receiver, on one backend with two
 * worker processes and a third process (no worker) serving the API: held
 * deliveries show when they will really be tried, and a replay, a test send or
 * a bulk recovery made in the API process releases deliveries the workers hold.
 *
 * @example
 * ```ts
 * describePausedEndpointScenario({ name: 'PostgreSQL', open: () => createPgWebhooks({ pool, schema }) });
 * ```
 */
export function describePausedEndpointScenario(options: PausedEndpointScenarioOptions): void {
  describe(`a paused endpoint on ${options.name}: what a person sees and does, across processes`, () => {
    let world: PausedWorld | undefined;
    afterEach(async () => {
      await world?.close();
      world = undefined;
    });

    it('held deliveries show when they will be tried; a replay after the fix goes at once and releases them', async () => {
      world = await startPausedWorld(options);
      const { api, harness } = world;
      const failed = await world.openBreaker('agency-a');
      const held = await world.emitHeld('agency-a', [2, 3]);

      const circuit = await harness.webhooks.store.getCircuit('agency-a');
      expect(circuit).toMatchObject({ status: 'open' });
      const openUntil = circuit?.openUntil as number;
      for (let look = 0; look < 4; look += 1) {
        for (const deliveryId of held) {
          const detail = await api.getDelivery('agency-a', deliveryId);
          expect(detail).toMatchObject({ status: 'pending', nextRetryAt: openUntil, pausedUntil: openUntil });
        }
        await sleep(300);
      }
      expect(await api.getEndpointHealth('agency-a')).toMatchObject({
        state: 'failing',
        pausedUntil: openUntil,
      });
      expect(world.requestsFor(held), 'nothing was sent while paused').toEqual([]);

      harness.receiver.respond(() => ({ status: 200 }));
      const replayedAt = Date.now();
      await api.replay('agency-a', failed);
      await world.waitDelivered('agency-a', failed, replayedAt);
      for (const deliveryId of held) await world.waitDelivered('agency-a', deliveryId, replayedAt);
      expect(await harness.webhooks.store.getCircuit('agency-a')).toMatchObject({ status: 'closed' });
      expect(await api.getEndpointHealth('agency-a')).toMatchObject({ state: 'healthy', pausedUntil: null });
      const replay = (await api.listAttempts('agency-a', failed)).attempts.at(-1);
      expect(replay).toMatchObject({ attempt: 6, trigger: 'replay', responseCode: 200 });
    });

    it('a replay while the receiver still fails is tried at once, fails, and the breaker opens again for longer', async () => {
      world = await startPausedWorld(options);
      const { api, harness } = world;
      const failed = await world.openBreaker('agency-b');
      const [held] = await world.emitHeld('agency-b', [2]);
      const firstPause = (await api.getEndpointHealth('agency-b')).pausedUntil as number;

      const replayedAt = Date.now();
      await api.replay('agency-b', failed);
      await harness.waitForStatus('agency-b', failed, 'failed');
      const attempts = (await api.listAttempts('agency-b', failed)).attempts;
      expect(attempts.at(-1)).toMatchObject({ attempt: 6, trigger: 'replay', responseCode: 503 });
      expect((attempts.at(-1)?.startedAt as number) - replayedAt).toBeLessThan(RELEASED_WITHIN_MS);

      const health = await harness.waitForHealth('agency-b', (h) => (h.pausedUntil ?? 0) > firstPause);
      expect(await harness.webhooks.store.getCircuit('agency-b')).toMatchObject({
        status: 'open',
        openings: 2,
      });
      // The replay made a probe due at once, so the held delivery may have been sent as that probe;
      // either way it is held again now, until the longer pause ends.
      const detail = await api.getDelivery('agency-b', held as string);
      expect(detail).toMatchObject({ status: 'pending', pausedUntil: health.pausedUntil });
      expect(detail.nextRetryAt).toBe(health.pausedUntil);
      expect(world.requestsFor([held as string]).length).toBeLessThanOrEqual(1);
    });

    it('a successful test send closes the breaker and the held deliveries go', async () => {
      world = await startPausedWorld(options);
      const { api, harness } = world;
      await world.openBreaker('agency-c');
      const held = await world.emitHeld('agency-c', [2, 3]);

      expect(await api.sendTest('agency-c')).toMatchObject({ success: false, statusCode: 503 });
      expect(await harness.webhooks.store.getCircuit('agency-c'), 'a failed test send').toMatchObject({
        status: 'open',
      });
      harness.receiver.respond(() => ({ status: 200 }));
      const testedAt = Date.now();
      expect(await api.sendTest('agency-c')).toMatchObject({ success: true, statusCode: 200 });
      for (const deliveryId of held) await world.waitDelivered('agency-c', deliveryId, testedAt);
    });

    it('a bulk recovery after the fix goes at once, with the held deliveries', async () => {
      world = await startPausedWorld(options);
      const { api, harness } = world;
      const failed = await world.openBreaker('agency-d');
      const held = await world.emitHeld('agency-d', [2]);
      harness.receiver.respond(() => ({ status: 200 }));
      const startedAt = Date.now();
      const started = await api.recoverDeliveries('agency-d', { since: 0 });
      expect(started).toMatchObject({ matched: 1 });
      await world.waitDelivered('agency-d', failed, startedAt);
      for (const deliveryId of held) await world.waitDelivered('agency-d', deliveryId, startedAt);
      const recovered = (await api.listAttempts('agency-d', failed)).attempts.at(-1);
      expect(recovered).toMatchObject({ trigger: 'recovery', responseCode: 200 });
    });
  });
}

interface PausedWorld {
  /** The first worker process, the receiver, and the service they share. */
  harness: ServiceHarness;
  /** The API process: no worker. */
  api: WebhookService;
  /** Configures the agency, makes its receiver answer 503 and fails one delivery its five attempts, which opens the breaker. */
  openBreaker(agencyId: string): Promise<string>;
  /** Emits deliveries the open breaker holds; resolves once each has been claimed and held at least once. */
  emitHeld(agencyId: string, jobNumbers: number[]): Promise<string[]>;
  /** Waits for success within {@link RELEASED_WITHIN_MS} of `since`. */
  waitDelivered(agencyId: string, deliveryId: string, since: number): Promise<void>;
  /** Requests the receiver got for these deliveries. */
  requestsFor(deliveryIds: readonly string[]): string[];
  close(): Promise<void>;
}

async function startPausedWorld(options: PausedEndpointScenarioOptions): Promise<PausedWorld> {
  const backends: ScenarioBackend[] = [];
  const open = async () => {
    const backend = await options.open();
    backends.push(backend);
    return backend;
  };
  const first = await open();
  const harness = await startServiceHarness({
    store: () => first.store,
    queue: () => first.queue,
    service: AS_HOSTS_RUN_IT,
    worker: WORKER_DEFAULTS,
  });
  const serviceOn = (backend: ScenarioBackend) =>
    createWebhookService({
      store: backend.store,
      queue: backend.queue,
      urlPolicy: { allowPrivateNetworks: true, resolve: hostResolver({ 'hooks.test': '127.0.0.1' }) },
      ...AS_HOSTS_RUN_IT,
      transport: { tls: { ca: harness.receiver.ca }, timeoutMs: 5_000 },
    });
  const second = serviceOn(await open());
  const secondWorker: WebhookWorker = createWorker(second, WORKER_DEFAULTS);
  await secondWorker.start();
  const api = serviceOn(await open());

  return {
    harness,
    api,
    async openBreaker(agencyId) {
      await harness.configure(agencyId);
      harness.receiver.respond(() => ({ status: 503 }));
      const emitted = await api.emit(jobCancelled(agencyId, 1));
      const deliveryId = emitted?.deliveryId as string;
      await harness.waitForStatus(agencyId, deliveryId, 'failed');
      await harness.waitForHealth(agencyId, (health) => health.pausedUntil !== null);
      // A worker process trusts what it read of the breaker for a second (worker/circuit-gate.ts):
      // past that, every process has seen it open.
      await sleep(1_100);
      return deliveryId;
    },
    async emitHeld(agencyId, jobNumbers) {
      const ids: string[] = [];
      for (const jobNumber of jobNumbers) {
        const emitted = await api.emit(jobCancelled(agencyId, jobNumber));
        ids.push(emitted?.deliveryId as string);
      }
      // Long enough for a worker to claim each one and put it back held.
      await sleep(600);
      return ids;
    },
    async waitDelivered(agencyId, deliveryId, since) {
      const delivered = await harness.waitForStatus(agencyId, deliveryId, 'success');
      expect(
        (delivered.deliveredAt as number) - since,
        `${deliveryId} delivered after the action`,
      ).toBeLessThan(RELEASED_WITHIN_MS);
    },
    requestsFor(deliveryIds) {
      const wanted = new Set(deliveryIds.map((id) => `whdel_${id}`));
      return harness.receivedIds().filter((id) => wanted.has(id));
    },
    async close() {
      await secondWorker.stop();
      await second.close();
      await api.close();
      await harness.close();
      for (const backend of backends) await backend.close?.();
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
