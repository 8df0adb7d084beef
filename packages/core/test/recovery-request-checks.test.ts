import { hostResolver } from '@svc/test-support';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createEventCatalogue,
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  defineEvent,
  type EventCatalogue,
  InvalidOptionError,
  RateLimitedError,
  type RecoverDeliveriesBody,
  type RecoveryLimitOptions,
  WebhookValidationError,
} from '../src/index';
import { makeDeliveryRecord } from '../src/testing';

// What `recoverDeliveries` refuses before it counts or stores anything: event
// types the service does not know (a typo would otherwise "recover" nothing and
// answer as if it had worked), and more dry runs and starts than the agency's
// `recoveryLimit` allows.

const NOW = 1_700_000_000_000;
const DAY = 86_400_000;
const resolve = hostResolver({ 'hooks.example.test': '93.184.216.34' });

const jobFulfilmentStarted = defineEvent({
  type: 'job_fulfilment_started',
  entityType: 'job',
  metadata: z.strictObject({ jobId: z.string() }),
});

function service(
  options: {
    events?: EventCatalogue;
    recoveryLimit?: RecoveryLimitOptions | false;
    clock?: () => number;
  } = {},
) {
  return createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    urlPolicy: { resolve },
    clock: () => NOW,
    ...options,
  });
}

type Service = ReturnType<typeof service>;

/** Two failed job_created deliveries of agency-a, created before NOW. */
async function seedFailed(webhooks: Service): Promise<void> {
  for (const createdAt of [NOW - 2_000, NOW - 1_000]) {
    await webhooks.store.insertDelivery(
      makeDeliveryRecord({ agencyId: 'agency-a', status: 'failed', nextRetryAt: null, createdAt }),
    );
  }
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** Everything a recovery request could change: the agency's recoveries and deliveries. */
async function snapshot(webhooks: Service): Promise<string> {
  return JSON.stringify({
    recoveries: await webhooks.listRecoveries('agency-a', { limit: 100 }),
    deliveries: await webhooks.store.listDeliveries('agency-a', { limit: 100 }),
  });
}

describe('recoverDeliveries(agencyId, { eventTypes }) refuses event types the service does not know', () => {
  it.each<[string, boolean]>([
    ['a start', false],
    ['a dry run', true],
  ])('%s of an unknown type is validation_failed naming it, and stores nothing', async (_name, dryRun) => {
    const webhooks = service();
    await seedFailed(webhooks);
    const before = await snapshot(webhooks);
    const error = await refusal(
      webhooks.recoverDeliveries('agency-a', { since: NOW - DAY, eventTypes: ['no_such_event'], dryRun }),
    );
    expect(error).toBeInstanceOf(WebhookValidationError);
    expect(error).toMatchObject({
      code: 'validation_failed',
      details: { issues: [{ path: 'eventTypes.0', message: 'Unknown event type "no_such_event"' }] },
    });
    expect((error as Error).message).toContain('"no_such_event"');
    expect((error as Error).message).toContain('GET /event-types');
    expect((await webhooks.listRecoveries('agency-a')).recoveries).toEqual([]);
    expect(await snapshot(webhooks)).toBe(before);
  });

  it('known and unknown types mixed: every unknown one named at its place, once in the message, nothing stored', async () => {
    const webhooks = service();
    await seedFailed(webhooks);
    const error = await refusal(
      webhooks.recoverDeliveries('agency-a', {
        since: NOW - DAY,
        eventTypes: ['job_created', 'job_craeted', 'job_cancelled', 'quote_aproved', 'job_craeted'],
      }),
    );
    expect(error).toBeInstanceOf(WebhookValidationError);
    const { issues } = (error as WebhookValidationError).details;
    expect(issues.map((issue) => issue.path)).toEqual(['eventTypes.1', 'eventTypes.3', 'eventTypes.4']);
    expect((error as Error).message).toBe(
      'Invalid recovery request at "eventTypes.1": unknown event types "job_craeted", "quote_aproved". ' +
        'GET /event-types lists the event types this service knows; leave eventTypes out to recover every type.',
    );
    expect((await webhooks.listRecoveries('agency-a')).recoveries).toEqual([]);
    // The known types alone go through.
    const started = await webhooks.recoverDeliveries('agency-a', {
      since: NOW - DAY,
      eventTypes: ['job_created', 'job_cancelled'],
    });
    expect(started.matched).toBe(2);
  });

  it('knows what putConfig knows: the built-in types and the host’s own, and only the catalogue’s', async () => {
    const cases: [string, EventCatalogue, string, boolean][] = [
      ['a built-in type', createEventCatalogue(), 'job_created', true],
      ['a registered type', createEventCatalogue([jobFulfilmentStarted]), 'job_fulfilment_started', true],
      ['a type not registered', createEventCatalogue(), 'job_fulfilment_started', false],
      [
        'a built-in type left out of the catalogue',
        createEventCatalogue([jobFulfilmentStarted], { includeBuiltIns: false }),
        'job_created',
        false,
      ],
    ];
    for (const [label, events, eventType, known] of cases) {
      const webhooks = service({ events });
      const subscribed = webhooks
        .putConfig('agency-a', {
          webhookUrl: 'https://hooks.example.test/webhooks',
          enabled: true,
          subscribedEventTypes: [eventType],
        })
        .then(
          () => true,
          () => false,
        );
      const recovered = webhooks
        .recoverDeliveries('agency-a', { since: NOW - DAY, eventTypes: [eventType], dryRun: true })
        .then(
          () => true,
          () => false,
        );
      expect([await subscribed, await recovered], label).toEqual([known, known]);
    }
  });

  it('a request without eventTypes recovers every type, as before', async () => {
    const webhooks = service();
    await seedFailed(webhooks);
    expect(await webhooks.recoverDeliveries('agency-a', { since: NOW - DAY, dryRun: true })).toEqual({
      matched: 2,
    });
  });
});

describe('recoverDeliveries past the agency’s recoveryLimit', () => {
  const body = (dryRun: boolean): RecoverDeliveriesBody => ({ since: NOW - DAY, dryRun });

  it('allows 5 dry runs and starts together in a burst, then one every 12 s; a refusal stores nothing', async () => {
    let now = NOW;
    const webhooks = service({ clock: () => now });
    await seedFailed(webhooks);
    for (let index = 0; index < 4; index++) await webhooks.recoverDeliveries('agency-a', body(true));
    const { recoveryId } = await webhooks.recoverDeliveries('agency-a', { since: NOW - DAY });
    await webhooks.cancelRecovery('agency-a', recoveryId);
    const before = await snapshot(webhooks);

    for (const dryRun of [true, false]) {
      const error = await refusal(webhooks.recoverDeliveries('agency-a', body(dryRun)));
      expect(error, dryRun ? 'dry run' : 'start').toBeInstanceOf(RateLimitedError);
      expect(error).toMatchObject({
        code: 'rate_limited',
        retryAfterMs: 12_000,
        details: { agencyId: 'agency-a', retryAfterMs: 12_000 },
      });
      expect((error as Error).message).toBe(
        'Too many bulk recovery requests (dry runs and starts) for this agency; try again in 12 s.',
      );
    }
    expect(await snapshot(webhooks), 'nothing counted, stored or started').toBe(before);

    now += 11_999;
    await expect(webhooks.recoverDeliveries('agency-a', body(true))).rejects.toBeInstanceOf(RateLimitedError);
    now += 1;
    expect(await webhooks.recoverDeliveries('agency-a', body(false))).toEqual({
      recoveryId: expect.any(String),
      matched: 2,
    });
    await expect(webhooks.recoverDeliveries('agency-a', body(true))).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('counts each agency apart', async () => {
    const webhooks = service({ recoveryLimit: { max: 1, perMs: 60_000 } });
    await webhooks.recoverDeliveries('agency-a', body(true));
    await expect(webhooks.recoverDeliveries('agency-a', body(true))).rejects.toBeInstanceOf(RateLimitedError);
    expect(await webhooks.recoverDeliveries('agency-b', body(true))).toEqual({ matched: 0 });
  });

  it('an invalid request uses none of the allowance', async () => {
    const webhooks = service({ recoveryLimit: { max: 1, perMs: 60_000 } });
    for (const invalid of [
      { since: NOW - DAY, eventTypes: ['no_such_event'], dryRun: true },
      { since: NOW, until: NOW - 1, dryRun: true },
      { since: -1 },
    ]) {
      await expect(
        webhooks.recoverDeliveries('agency-a', invalid as RecoverDeliveriesBody),
      ).rejects.toBeInstanceOf(WebhookValidationError);
    }
    expect(await webhooks.recoverDeliveries('agency-a', body(true))).toEqual({ matched: 0 });
  });

  it('recoveryLimit: false turns it off', async () => {
    const webhooks = service({ recoveryLimit: false });
    for (let index = 0; index < 50; index++) {
      expect(await webhooks.recoverDeliveries('agency-a', body(true))).toEqual({ matched: 0 });
    }
  });

  it('takes its own max and perMs, apart from testSendLimit', async () => {
    let now = NOW;
    const webhooks = createWebhookService({
      store: createMemoryStore(),
      queue: createMemoryQueue(),
      clock: () => now,
      recoveryLimit: { max: 2, perMs: 1_000 },
      testSendLimit: false,
    });
    await webhooks.recoverDeliveries('agency-a', body(true));
    await webhooks.recoverDeliveries('agency-a', body(true));
    await expect(webhooks.recoverDeliveries('agency-a', body(true))).rejects.toMatchObject({
      retryAfterMs: 500,
    });
    now += 500;
    await webhooks.recoverDeliveries('agency-a', body(true));
  });

  it.each<[string, RecoveryLimitOptions, string]>([
    ['max 0', { max: 0 }, 'recoveryLimit.max'],
    ['a fractional max', { max: 1.5 }, 'recoveryLimit.max'],
    ['a negative perMs', { perMs: -1 }, 'recoveryLimit.perMs'],
    ['perMs not a number', { perMs: '60000' as never }, 'recoveryLimit.perMs'],
  ])('refuses %s with InvalidOptionError naming the option', (_name, recoveryLimit, option) => {
    const create = () =>
      createWebhookService({ store: createMemoryStore(), queue: createMemoryQueue(), recoveryLimit });
    expect(create).toThrow(InvalidOptionError);
    expect(create).toThrow(expect.objectContaining({ code: 'invalid_option', option }));
  });
});
