import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTestEnvelope, ENVELOPE_FIELDS, webhookEnvelopeSchema } from '../src/delivery/envelope';
import { builtInEvents } from '../src/events/built-in-events';
import { createEventCatalogue } from '../src/events/event-catalogue';
import { defineEvent } from '../src/events/event-definition';
import { buildExampleEnvelope, EXAMPLE_TIME } from '../src/events/event-example';
import { buildEventEnvelopeSchema, buildEventJsonSchema } from '../src/events/event-json-schema';
import { buildEventTypesModule, renderType } from '../src/events/event-types-module';
import { webhookTestEvent } from '../src/events/test-event';

const published = [...builtInEvents, webhookTestEvent];

const fulfilmentStarted = defineEvent({
  type: 'job_fulfilment_started',
  entityType: 'job',
  metadata: z.strictObject({ fulfilmentId: z.string(), startedAt: z.number().int() }),
  example: { entityId: 'job_1', metadata: { fulfilmentId: 'ful_1', startedAt: 1_767_225_600_000 } },
});

describe('the examples beside the built-in schemas', () => {
  it.each(published.map((definition) => [definition.type, definition] as const))(
    '%s has an example envelope that its own envelope schema and the generic envelope schema accept',
    (_type, definition) => {
      const envelope = buildExampleEnvelope(definition, { now: EXAMPLE_TIME });
      expect(buildEventEnvelopeSchema(definition).parse(envelope)).toEqual(envelope);
      expect(webhookEnvelopeSchema.parse(envelope)).toEqual(envelope);
      expect(Object.keys(envelope)).toEqual([...ENVELOPE_FIELDS]);
      expect(envelope).toMatchObject({ eventType: definition.type, attempt: 1, deliveredAt: EXAMPLE_TIME });
    },
  );

  it('follow the spec’s event rules: quote_approved’s parent is its job, message_sent has a thread', () => {
    const quote = buildExampleEnvelope(builtInEvents[4]);
    expect(quote).toMatchObject({ eventType: 'quote_approved', entityType: 'quote' });
    expect(quote.parentEntityId).toBe(quote.metadata.jobId);
    const message = buildExampleEnvelope(builtInEvents[7]);
    expect(message.eventType).toBe('message_sent');
    expect(message.parentEntityId).toMatch(/^thread_/);
  });

  it('webhook_test’s published schema accepts the envelope the delivery layer really sends', () => {
    const sent = buildTestEnvelope('agency-1', 'abc', EXAMPLE_TIME);
    expect(buildEventEnvelopeSchema(webhookTestEvent).parse(sent)).toEqual(sent);
  });
});

describe('buildExampleEnvelope', () => {
  it('uses the given webhookId and time, and carries the metadata schema’s output', () => {
    const trimmed = defineEvent({
      type: 'note_added',
      entityType: 'job',
      metadata: z.strictObject({ text: z.string().trim() }),
      example: { entityId: 'job_1', metadata: { text: '  hello  ' } },
    });
    expect(buildExampleEnvelope(trimmed, { webhookId: 'whdel_try', now: 5 })).toEqual({
      webhookId: 'whdel_try',
      eventType: 'note_added',
      entityType: 'job',
      entityId: 'job_1',
      parentEntityId: null,
      createdById: null,
      createdByRole: null,
      metadata: { text: 'hello' },
      createdOn: 5,
      deliveredAt: 5,
      attempt: 1,
    });
  });

  it('refuses a definition without an example, naming the fix', () => {
    const bare = defineEvent({ type: 'note_added', entityType: 'job', metadata: z.strictObject({}) });
    expect(() => buildExampleEnvelope(bare)).toThrow(
      expect.objectContaining({ code: 'example_missing', message: expect.stringContaining('defineEvent') }),
    );
  });

  it('needs an entityType in the example of a definition without a fixed one', () => {
    const open = defineEvent({
      type: 'note_added',
      metadata: z.strictObject({ text: z.string() }),
      example: { entityType: 'thread', entityId: 't_1', metadata: { text: 'hi' } },
    });
    expect(buildExampleEnvelope(open).entityType).toBe('thread');
    expect(() =>
      buildExampleEnvelope({ ...open, example: { entityId: 't_1', metadata: { text: 'hi' } } }),
    ).toThrow(expect.objectContaining({ code: 'invalid_event_definition' }));
  });
});

describe('a catalogue checks the examples it is given', () => {
  it('refuses an example whose metadata does not match, naming the event type and the field', () => {
    const wrong = defineEvent({
      type: 'job_fulfilment_started',
      entityType: 'job',
      metadata: z.strictObject({ startedAt: z.number() }),
      example: { entityId: 'job_1', metadata: { startedAt: 'yesterday' as unknown as number } },
    });
    expect(() => createEventCatalogue([wrong])).toThrow(
      expect.objectContaining({
        code: 'invalid_event_definition',
        message: expect.stringMatching(/"job_fulfilment_started".*"metadata\.startedAt"/),
      }),
    );
  });

  it('accepts a correct one and keeps it on the definition', () => {
    expect(createEventCatalogue([fulfilmentStarted]).get('job_fulfilment_started')?.example).toBe(
      fulfilmentStarted.example,
    );
  });
});

describe('buildEventEnvelopeSchema', () => {
  it('has the generic envelope’s keys in the same order, with the same field types', () => {
    for (const definition of published) {
      const shape = buildEventEnvelopeSchema(definition).shape;
      expect(Object.keys(shape)).toEqual(Object.keys(webhookEnvelopeSchema.shape));
    }
  });

  it('narrows eventType, entityType and metadata: another type’s envelope fails it', () => {
    const jobCancelled = buildEventEnvelopeSchema(builtInEvents[2]);
    expect(jobCancelled.safeParse(buildExampleEnvelope(builtInEvents[2])).success).toBe(true);
    expect(jobCancelled.safeParse(buildExampleEnvelope(builtInEvents[0])).success).toBe(false);
  });

  it('is built once per definition', () => {
    expect(buildEventEnvelopeSchema(fulfilmentStarted)).toBe(buildEventEnvelopeSchema(fulfilmentStarted));
  });
});

describe('buildEventJsonSchema', () => {
  it('is JSON Schema 2020-12 titled by the event type, with its constants and its example', () => {
    const schema = buildEventJsonSchema(builtInEvents[4]);
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'quote_approved',
      description: builtInEvents[4].description,
      type: 'object',
      properties: {
        eventType: { const: 'quote_approved' },
        entityType: { const: 'quote' },
        metadata: { $ref: '#/$defs/QuoteApprovedMetadata' },
      },
      $defs: { QuoteApprovedMetadata: { additionalProperties: false } },
      examples: [buildExampleEnvelope(builtInEvents[4], { now: EXAMPLE_TIME })],
    });
  });

  it('lists every field of a known shape as required', () => {
    const schema = buildEventJsonSchema(builtInEvents[0]) as {
      $defs: Record<string, { required: string[] }>;
    };
    expect(schema.$defs.JobCreatedMetadata?.required).toEqual(Object.keys(builtInEvents[0].metadata.shape));
  });

  it('describes a host event type, and leaves a part JSON Schema cannot express open instead of failing', () => {
    const transformed = defineEvent({
      type: 'note_added',
      metadata: z.strictObject({ at: z.string().transform((text) => new Date(text)) }),
    });
    const schema = buildEventJsonSchema(transformed) as { properties: Record<string, unknown> };
    expect(schema.properties.entityType).toEqual({ $ref: '#/$defs/EntityType' });
    expect(schema).not.toHaveProperty('examples');
    expect(JSON.stringify(schema.properties.metadata)).toContain('"at":{}');
    expect(buildEventJsonSchema(fulfilmentStarted)).toMatchObject({ title: 'job_fulfilment_started' });
  });
});

describe('renderType', () => {
  it.each([
    [{ type: 'string' }, 'string'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ type: 'integer' }, 'number'],
    [{ anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] }, "'a' | 'b' | null"],
    [{ const: "it's" }, "'it\\'s'"],
    [{}, 'unknown'],
    [{ $ref: '#/$defs/PropertyAddress' }, 'PropertyAddress'],
    [{ type: 'array', items: { type: 'number' } }, 'number[]'],
    [{ type: 'array', items: { type: ['string', 'null'] } }, '(string | null)[]'],
    [{ type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }] }, '[string, boolean]'],
    [{ type: 'object', additionalProperties: {} }, '{ [key: string]: unknown }'],
    [{ type: 'object', properties: {}, additionalProperties: false }, 'Record<string, never>'],
    [{ type: 'object', properties: { 'a-b': { type: 'string' } }, required: [] }, "{\n  'a-b'?: string;\n}"],
    [
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: {} },
      '{\n  a: string;\n  [key: string]: unknown;\n}',
    ],
  ])('%j → %s', (schema, expected) => {
    expect(renderType(schema, '')).toBe(expected);
  });
});

describe('buildEventTypesModule', () => {
  const source = buildEventTypesModule(createEventCatalogue([fulfilmentStarted]), { mapName: 'AcmeEvents' });

  it('type-checks on its own and holds only types', () => {
    expect(typeErrorsOf(source)).toEqual([]);
    const output = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext } });
    expect(output.outputText.replace(/\/\*[\s\S]*?\*\//g, '').trim()).toBe('export {};');
  });

  it('maps every event type of the catalogue and webhook_test to a named metadata type', () => {
    expect(source).toContain('export type AcmeEvents = {');
    for (const type of [...createEventCatalogue().types, 'webhook_test'])
      expect(source).toMatch(`  ${type}: `);
    expect(source).toContain('  job_fulfilment_started: JobFulfilmentStartedMetadata;');
    expect(source).toContain('export type JobFulfilmentStartedMetadata = {\n  fulfilmentId: string;');
    expect(source).toContain('export type PropertyAddress = {');
  });

  it('refuses two schemas that would get the same type name', () => {
    const clash = defineEvent({
      type: 'property_address',
      metadata: z.strictObject({ x: z.string() }),
    });
    const named = defineEvent({
      type: 'note_added',
      metadata: z.strictObject({ y: z.string() }).meta({ id: 'PropertyAddressMetadata' }),
    });
    expect(() => buildEventTypesModule(createEventCatalogue([named, clash]))).toThrow(
      expect.objectContaining({
        code: 'invalid_event_definition',
        message: expect.stringContaining('PropertyAddressMetadata'),
      }),
    );
  });
});

/** Type errors of a module compiled alone, strict, with the standard library only. */
function typeErrorsOf(text: string): string[] {
  const file = '/virtual/events.ts';
  const options = { strict: true, noEmit: true, types: [], lib: ['lib.es5.d.ts'], skipDefaultLibCheck: true };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) =>
    name === file ? ts.createSourceFile(name, text, version) : getSourceFile(name, version);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}
