import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../src/delivery/delivery';
import {
  buildEnvelope,
  buildTestEnvelope,
  ENVELOPE_FIELDS,
  serializeEnvelope,
  type WebhookEnvelope,
  webhookEnvelopeSchema,
} from '../src/delivery/envelope';
import { TEST_EVENT_TYPE } from '../src/events/event-definition';

/** The field order of the spec's "Delivery envelope" table, written out independently of the source. */
const SPEC_ORDER = [
  'webhookId',
  'eventType',
  'entityType',
  'entityId',
  'parentEntityId',
  'createdById',
  'createdByRole',
  'metadata',
  'createdOn',
  'deliveredAt',
  'attempt',
];

const record: DeliveryRecord = {
  id: '01919a4e-3b2c-7000-8f3a-6c1d2e4b5a69',
  agencyId: 'ag_1',
  eventId: 'evt_1',
  eventType: 'quote_approved',
  entityType: 'quote',
  entityId: 'quote_1',
  parentEntityId: 'job_1',
  createdById: 'agent_7',
  createdByRole: 'Agent',
  payload: {
    fulfilmentId: 'ful_1',
    jobId: 'job_1',
    agencyId: 'ag_1',
    jobNumber: 1042,
    serviceProviderId: 'sp_1',
    quoteStatus: 'approved',
  },
  createdOn: 1_700_000_000_000,
  createdAt: 1_700_000_000_005,
  status: 'pending',
  attempt: 0,
  maxAttempts: 5,
  nextRetryAt: 1_700_000_000_005,
  lastAttemptAt: null,
  deliveredAt: null,
  lastResponseCode: null,
  lastErrorMessage: null,
  lastResponseExcerpt: null,
  nextAttemptTrigger: 'automatic',
};

describe('buildEnvelope()', () => {
  it('maps a delivery record and an attempt onto the spec fields', () => {
    expect(buildEnvelope(record, 1, 1_700_000_060_000)).toEqual({
      webhookId: 'whdel_01919a4e-3b2c-7000-8f3a-6c1d2e4b5a69',
      eventType: 'quote_approved',
      entityType: 'quote',
      entityId: 'quote_1',
      parentEntityId: 'job_1',
      createdById: 'agent_7',
      createdByRole: 'Agent',
      metadata: record.payload,
      createdOn: 1_700_000_000_000,
      deliveredAt: 1_700_000_060_000,
      attempt: 1,
    });
  });

  it('keeps webhookId the same across attempts and a replay, so receivers can deduplicate', () => {
    const ids = [1, 2, 5, 6].map(
      (attempt) => buildEnvelope(record, attempt, 1_700_000_000_000 + attempt).webhookId,
    );
    expect(new Set(ids)).toEqual(new Set(['whdel_01919a4e-3b2c-7000-8f3a-6c1d2e4b5a69']));
  });

  it('produces an envelope that the published schema accepts', () => {
    expect(webhookEnvelopeSchema.safeParse(buildEnvelope(record, 3, 1_700_000_000_000)).success).toBe(true);
  });
});

describe('serializeEnvelope()', () => {
  const envelope = buildEnvelope(record, 2, 1_700_000_600_000);

  it('writes the keys in exactly the spec order', () => {
    expect(Object.keys(JSON.parse(serializeEnvelope(envelope)))).toEqual(SPEC_ORDER);
    expect([...ENVELOPE_FIELDS]).toEqual(SPEC_ORDER);
  });

  it('writes the spec order even when the given object has its keys in another order', () => {
    const reversed = Object.fromEntries(Object.entries(envelope).reverse()) as unknown as WebhookEnvelope;
    expect(serializeEnvelope(reversed)).toBe(serializeEnvelope(envelope));
    expect(serializeEnvelope(reversed).startsWith('{"webhookId":')).toBe(true);
    expect(serializeEnvelope(reversed).endsWith(',"attempt":2}')).toBe(true);
  });

  it('round-trips through JSON.parse and keeps null fields present', () => {
    const sparse = buildEnvelope(
      { ...record, parentEntityId: null, createdById: null, createdByRole: null },
      1,
      1,
    );
    const parsed = JSON.parse(serializeEnvelope(sparse));
    expect(parsed).toEqual(sparse);
    expect(parsed).toHaveProperty('createdByRole', null);
  });

  it('gives exactly what JSON.stringify gives for the envelope in spec order, for any field values', () => {
    // Any UTF-16 code unit: lone surrogates, control characters, quotes and backslashes included.
    const codeUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: codeUnit, maxLength: 40 }),
    );
    const nullableText = fc.option(text, { nil: null });
    const number = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double());
    const anyEnvelope = fc.record({
      webhookId: text,
      eventType: text,
      entityType: text,
      entityId: nullableText,
      parentEntityId: nullableText,
      createdById: nullableText,
      createdByRole: nullableText,
      metadata: fc.dictionary(text, fc.jsonValue()),
      createdOn: number,
      deliveredAt: number,
      attempt: number,
    });
    fc.assert(
      fc.property(anyEnvelope, (generated) => {
        const envelope = generated as unknown as WebhookEnvelope;
        const inSpecOrder = Object.fromEntries(ENVELOPE_FIELDS.map((field) => [field, envelope[field]]));
        expect(serializeEnvelope(envelope)).toBe(JSON.stringify(inSpecOrder));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes compact JSON (no whitespace between tokens)', () => {
    expect(serializeEnvelope(envelope)).toBe(JSON.stringify(JSON.parse(serializeEnvelope(envelope))));
  });
});

describe('buildTestEnvelope()', () => {
  it('builds the webhook_test envelope about the agency itself', () => {
    const envelope = buildTestEnvelope('ag_1', '01919a4e-0000-7000-8000-000000000000', 1_700_000_000_000);
    expect(envelope).toEqual({
      webhookId: 'whdel_test_01919a4e-0000-7000-8000-000000000000',
      eventType: 'webhook_test',
      entityType: 'agency',
      entityId: 'ag_1',
      parentEntityId: null,
      createdById: null,
      createdByRole: 'System',
      metadata: { message: expect.any(String), agencyId: 'ag_1' },
      createdOn: 1_700_000_000_000,
      deliveredAt: 1_700_000_000_000,
      attempt: 1,
    });
    expect(envelope.eventType).toBe(TEST_EVENT_TYPE);
    expect(Object.keys(JSON.parse(serializeEnvelope(envelope)))).toEqual(SPEC_ORDER);
  });
});
