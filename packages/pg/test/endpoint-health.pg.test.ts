import { FAST_RETRY, jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { afterAll, afterEach, expect, it } from 'vitest';
import { createPgWebhooks, getSchemaVersion, migrate } from '../src/index';
import { createSchemaAtVersion } from './old-release';
import {
  createTestPool,
  createTestSchema,
  describePg,
  dropSchema,
  uniqueSchemaName,
} from './pg-test-database';

const BASE_TIME = 1_700_000_000_000;
const HEALTH_VERSION = 6;

describePg('endpoint health on PostgreSQL', () => {
  const pool = createTestPool();
  const drops: Array<() => Promise<void>> = [];
  let harness: ServiceHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    for (const drop of drops.splice(0)) await drop();
  });
  afterAll(async () => {
    await pool.end();
  });

  it('migration 6 keeps older circuits and configurations, which read as no run and not disabled', async () => {
    const schema = uniqueSchemaName('wh_health');
    drops.push(() => dropSchema(pool, schema));
    await createSchemaAtVersion(pool, schema, HEALTH_VERSION - 1);
    expect(await getSchemaVersion({ pool, schema })).toBe(HEALTH_VERSION - 1);
    await pool.query(
      `INSERT INTO "${schema}".webhook_configs
         (agency_id, id, webhook_url, signing_secret, enabled, subscribed_event_types, created_at, updated_at)
       VALUES ('agency-a', 'cfg-a', 'https://hooks.example.com/a', $1, true, '{}', $2, $2)`,
      ['a'.repeat(64), BASE_TIME],
    );
    await pool.query(
      `INSERT INTO "${schema}".webhook_circuits
         (agency_id, status, consecutive_failures, failing_since, last_failure_at, last_success_at, opened_at,
          open_until, openings, version)
       VALUES ('agency-a', 'open', 5, $1, $2, NULL, $2, $3, 1, 4)`,
      [BASE_TIME - 60_000, BASE_TIME, BASE_TIME + 30_000],
    );

    const result = await migrate({ pool, schema });
    expect(result.applied.map((step) => step.name)).toContain('endpoint-health');
    const { store, close } = createPgWebhooks({ pool, schema, notify: false });
    try {
      expect(await store.getCircuit('agency-a')).toEqual({
        agencyId: 'agency-a',
        status: 'open',
        consecutiveFailures: 5,
        failingSince: BASE_TIME - 60_000,
        lastFailureAt: BASE_TIME,
        lastSuccessAt: null,
        openedAt: BASE_TIME,
        openUntil: BASE_TIME + 30_000,
        openings: 1,
        unsuccessfulAttempts: 0,
        unsuccessfulSince: null,
        version: 4,
      });
      expect(await store.getConfig('agency-a')).toMatchObject({
        enabled: true,
        disabledAt: null,
        disabledReason: null,
      });
      const disabled = await store.disableConfig('agency-a', {
        reason: 'auto_disabled_failing',
        now: BASE_TIME + 1,
        expectedUpdatedAt: BASE_TIME,
      });
      expect(disabled).toMatchObject({ enabled: false, disabledAt: BASE_TIME + 1 });
    } finally {
      await close();
    }
  });

  it('a PostgreSQL-backed service disables an endpoint failing for five days, once, and a PUT clears it', async () => {
    const { schema, drop } = await createTestSchema(pool);
    drops.push(drop);
    const webhooks = createPgWebhooks({ pool, schema });
    drops.unshift(() => webhooks.close());
    let offset = 0;
    const disabled: string[] = [];
    harness = await startServiceHarness({
      store: () => webhooks.store,
      queue: () => webhooks.queue,
      service: {
        retry: { ...FAST_RETRY, maxAttempts: 1 },
        circuitBreaker: { failureThreshold: 100 },
        clock: () => Date.now() + offset,
        hooks: { onEndpointDisabled: (event) => disabled.push(event.reason) },
      },
      worker: { pollIntervalMs: 20, recoverySweep: false },
    });
    harness.receiver.respond(() => ({ status: 503 }));
    await harness.configure('agency-a');
    const first = await harness.webhooks.emit(jobCancelled('agency-a', 1));
    await harness.waitForStatus('agency-a', first?.deliveryId as string, 'failed');
    // The clock moves only once the first failure is on the breaker, at the time it happened.
    expect(
      await harness.waitForHealth('agency-a', (health) => health.consecutiveFailures === 1),
    ).toMatchObject({ state: 'failing', consecutiveFailures: 1 });

    offset = 432_000_000;
    const second = await harness.webhooks.emit(jobCancelled('agency-a', 2));
    await harness.waitForStatus('agency-a', second?.deliveryId as string, 'failed');
    await harness.worker.stop();
    expect(await harness.webhooks.getEndpointHealth('agency-a')).toMatchObject({
      state: 'disabled',
      consecutiveFailures: 2,
      disabledReason: 'auto_disabled_failing',
    });
    expect(disabled).toEqual(['auto_disabled_failing']);

    await harness.configure('agency-a');
    expect(await harness.webhooks.getEndpointHealth('agency-a')).toMatchObject({
      state: 'healthy',
      consecutiveFailures: 0,
      failingSince: null,
      disabledAt: null,
      disabledReason: null,
    });
  });
});
