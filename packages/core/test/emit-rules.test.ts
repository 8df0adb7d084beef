import { hostResolver, jobCancelled } from '@svc/test-support';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createEventCatalogue,
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  defineEvent,
  InvalidOptionError,
  PayloadTooLargeError,
  type WebhookService,
  WebhookValidationError,
} from '../src/index';

const AGENCY = 'agency-a';
const resolve = hostResolver({ 'hooks.example.test': '93.184.216.34' });

/** Events whose metadata is free-form, so a test can put anything JSON cannot write in it. */
const events = createEventCatalogue([
  defineEvent({ type: 'note_added', entityType: 'job', metadata: z.record(z.string(), z.unknown()) }),
]);

function serviceWith(options: { maxPayloadBytes?: number } = {}): WebhookService<typeof events> {
  return createWebhookService({
    store: createMemoryStore(),
    queue: createMemoryQueue(),
    events,
    urlPolicy: { resolve },
    ...options,
  });
}

async function subscribed(webhooks: WebhookService<typeof events>): Promise<void> {
  await webhooks.putConfig(AGENCY, {
    webhookUrl: 'https://hooks.example.test/hooks',
    enabled: true,
    subscribedEventTypes: ['job_cancelled', 'job_created', 'quote_approved', 'message_sent', 'note_added'],
  });
}

const quoteApproved = {
  fulfilmentId: 'ful_1',
  jobId: 'job_1',
  agencyId: AGENCY,
  jobNumber: 1042,
  serviceProviderId: 'sp_1',
  quoteStatus: 'approved',
};

const jobCreatedNormal = {
  jobId: 'job_1',
  agencyId: AGENCY,
  jobNumber: 1042,
  categoryId: 'cat_plumbing',
  propertyId: 'prop_1',
  estateId: null,
  requestorType: null,
  requestorInfo: null,
  originalJobId: null,
  originalJobNumber: null,
  originalAgencyId: null,
  originalAgencyName: null,
  cancellationReason: null,
  propertyRecreated: null,
  transferredToServiceMaintenance: null,
};

const jobCreatedTransfer = {
  ...jobCreatedNormal,
  agencyId: 'agency-maintenance',
  propertyId: null,
  originalJobId: 'job_0',
  originalJobNumber: 1001,
  originalAgencyId: 'agency-b',
  originalAgencyName: 'Harbour Lettings',
  cancellationReason: 'Landlord moved to the maintenance plan',
  propertyRecreated: true,
  transferredToServiceMaintenance: true,
};

/** The refusal `action` threw: a validation error, with nothing stored for the agency. */
async function refused(
  webhooks: WebhookService<typeof events>,
  action: () => Promise<unknown>,
): Promise<WebhookValidationError> {
  const error = await action().then(
    () => {
      throw new Error('expected the emit to be refused');
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebhookValidationError);
  expect((await webhooks.listDeliveries(AGENCY)).deliveries).toEqual([]);
  return error as WebhookValidationError;
}

let webhooks: WebhookService<typeof events>;

beforeEach(async () => {
  webhooks = serviceWith();
  await subscribed(webhooks);
});

describe('the spec’s event rules at emit', () => {
  const quote = (extra: Record<string, unknown>) => ({
    agencyId: AGENCY,
    eventType: 'quote_approved' as const,
    entityId: 'quote_1',
    metadata: quoteApproved,
    ...extra,
  });

  it('quote_approved needs its job as parentEntityId', async () => {
    const error = await refused(webhooks, () => webhooks.emit(quote({})));
    expect(error.code).toBe('validation_failed');
    expect(error.details.issues).toEqual([
      { path: 'parentEntityId', message: expect.stringContaining('job id') },
    ]);
    expect(error.message).toContain('"parentEntityId"');
  });

  it('quote_approved refuses a parentEntityId other than metadata.jobId, and takes the job', async () => {
    const error = await refused(webhooks, () => webhooks.emit(quote({ parentEntityId: 'job_2' })));
    expect(error.details.issues[0]).toEqual({
      path: 'parentEntityId',
      message: expect.stringContaining('metadata.jobId ("job_1")'),
    });
    await expect(webhooks.emit(quote({ parentEntityId: 'job_1' }))).resolves.toMatchObject({
      deliveryId: expect.any(String),
    });
  });

  it('message_sent needs its thread as parentEntityId, also under a host schema', async () => {
    const message = { agencyId: AGENCY, eventType: 'message_sent' as const, entityId: 'msg_1', metadata: {} };
    const error = await refused(webhooks, () => webhooks.emit(message));
    expect(error.details.issues).toEqual([
      { path: 'parentEntityId', message: expect.stringContaining('thread') },
    ]);
    await expect(webhooks.emit({ ...message, parentEntityId: 'thread_1' })).resolves.not.toBeNull();

    const hostEvents = createEventCatalogue([
      defineEvent({
        type: 'message_sent',
        entityType: 'message',
        metadata: z.strictObject({ body: z.string() }),
      }),
    ]);
    expect(() => hostEvents.parseEvent({ ...message, metadata: { body: 'Hello' } })).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
  });

  const jobCreated = (metadata: Record<string, unknown>) => ({
    agencyId: AGENCY,
    eventType: 'job_created' as const,
    entityId: 'job_1',
    metadata: metadata as typeof jobCreatedNormal,
  });

  it('job_created takes the normal and the transfer path', async () => {
    await expect(webhooks.emit(jobCreated(jobCreatedNormal))).resolves.not.toBeNull();
    await expect(webhooks.emit(jobCreated(jobCreatedTransfer))).resolves.not.toBeNull();
  });

  it.each([
    ['a normal path naming a source job', { ...jobCreatedNormal, originalJobId: 'job_0' }, ['originalJobId']],
    [
      'a normal path with propertyRecreated',
      { ...jobCreatedNormal, propertyRecreated: false, cancellationReason: 'x' },
      ['cancellationReason', 'propertyRecreated'],
    ],
    ['a transfer that keeps its property', { ...jobCreatedTransfer, propertyId: 'prop_1' }, ['propertyId']],
    [
      'a transfer without its source',
      { ...jobCreatedTransfer, originalAgencyId: null, originalJobNumber: null },
      ['originalJobNumber', 'originalAgencyId'],
    ],
    [
      'a transfer without a reason',
      { ...jobCreatedTransfer, cancellationReason: null },
      ['cancellationReason'],
    ],
    [
      'a transfer whose property was not recreated',
      { ...jobCreatedTransfer, propertyRecreated: false },
      ['propertyRecreated'],
    ],
    [
      'transferredToServiceMaintenance false',
      { ...jobCreatedNormal, transferredToServiceMaintenance: false },
      ['transferredToServiceMaintenance'],
    ],
  ])('job_created refuses %s, naming each field', async (_case, metadata, fields) => {
    const error = await refused(webhooks, () => webhooks.emit(jobCreated(metadata)));
    expect(error.code).toBe('invalid_metadata');
    expect(error.details.issues.map((issue) => issue.path)).toEqual(
      fields.map((field) => `metadata.${field}`),
    );
  });

  it.each([
    ['seconds', 1_700_000_000, 'seconds'],
    ['microseconds', 1_700_000_000_000_000, 'microseconds'],
  ])('createdOn in %s is refused', async (_unit, createdOn, hint) => {
    const error = await refused(webhooks, () => webhooks.emit(jobCancelled(AGENCY, 1, { createdOn })));
    expect(error.code).toBe('validation_failed');
    expect(error.details.issues).toEqual([{ path: 'createdOn', message: expect.stringContaining(hint) }]);
  });

  it('createdOn in milliseconds is kept', async () => {
    const emitted = await webhooks.emit(jobCancelled(AGENCY, 1, { createdOn: 1_700_000_000_123 }));
    await expect(webhooks.getDelivery(AGENCY, emitted!.deliveryId)).resolves.toMatchObject({
      createdOn: 1_700_000_000_123,
    });
  });
});

describe('emit limits', () => {
  const note = (metadata: Record<string, unknown>) => ({
    agencyId: AGENCY,
    eventType: 'note_added' as const,
    entityId: 'job_1',
    metadata,
  });

  it.each([
    ['a BigInt', { count: 10n }],
    [
      'a cycle',
      (() => {
        const cyclic: Record<string, unknown> = { name: 'loop' };
        cyclic.self = cyclic;
        return cyclic;
      })(),
    ],
    [
      'a throwing toJSON',
      {
        when: {
          toJSON: () => {
            throw new Error('clock unavailable');
          },
        },
      },
    ],
  ])('metadata with %s is refused with validation_failed at metadata', async (_case, metadata) => {
    const error = await refused(webhooks, () => webhooks.emit(note(metadata)));
    expect(error.code).toBe('validation_failed');
    expect(error.details.issues).toEqual([
      { path: 'metadata', message: expect.stringContaining('Cannot be serialised as JSON') },
    ]);
  });

  it('refuses metadata over maxPayloadBytes by its UTF-8 bytes as JSON, stores nothing, and takes one at the limit', async () => {
    const limited = serviceWith({ maxPayloadBytes: 2_000 });
    await subscribed(limited);
    // 'é' is two bytes: 1,000 of them are 2,000 bytes, and {"text":""} makes the JSON 2,011.
    const error = await limited.emit(note({ text: 'é'.repeat(1_000) })).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ code: 'payload_too_large', details: { maxBytes: 2_000 } });
    const bytes = (error as PayloadTooLargeError).details.bytes;
    expect(bytes).toBe(2_011);
    expect((await limited.listDeliveries(AGENCY)).deliveries).toEqual([]);

    // Eleven of the two-byte characters made one-byte bring the JSON to exactly the limit.
    const atLimit = 'é'.repeat(1_000 - 11) + 'a'.repeat(11);
    await expect(limited.emit(note({ text: `${atLimit}a` }))).rejects.toMatchObject({
      details: { bytes: 2_001, maxBytes: 2_000 },
    });
    await expect(limited.emit(note({ text: atLimit }))).resolves.not.toBeNull();
  });

  it('defaults to 256 KiB', async () => {
    await expect(webhooks.emit(note({ text: 'a'.repeat(200 * 1024) }))).resolves.not.toBeNull();
    await expect(webhooks.emit(note({ text: 'a'.repeat(256 * 1024) }))).rejects.toMatchObject({
      code: 'payload_too_large',
      details: { maxBytes: 262_144 },
    });
  });

  it.each([0, -1, 1.5, Number.NaN])('maxPayloadBytes %s is an invalid option', (maxPayloadBytes) => {
    expect(() => serviceWith({ maxPayloadBytes })).toThrow(InvalidOptionError);
  });
});
