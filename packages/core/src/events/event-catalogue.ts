import { z } from 'zod';
import { UnknownEventTypeError, type ValidationIssue, WebhookError, WebhookValidationError } from '../errors';
import { toValidationIssues } from '../validation';
import { builtInEvents } from './built-in-events';
import { type CreatedByRole, createdByRoleSchema, type EntityType, entityTypeSchema } from './entity-types';
import { assertEventDefinition, type EventDefinition, TEST_EVENT_TYPE } from './event-definition';
import { specRuleIssues } from './spec-rules';
import type { TestEventMetadata } from './test-event';

// The author roles live with the rest of the envelope's vocabulary; re-exported where they were first defined.
export { type CreatedByRole, createdByRoleSchema } from './entity-types';

/** Identifiers in an emit (agency, entity, author, event) are 1..200 characters. */
export const ID_MAX_LENGTH = 200;

/** An emitted event after validation, with every optional field filled in. */
export interface ParsedEvent {
  agencyId: string;
  eventType: string;
  /** The definition's fixed entity type, or the one the caller passed. */
  entityType: EntityType;
  entityId: string | null;
  parentEntityId: string | null;
  createdById: string | null;
  createdByRole: CreatedByRole | null;
  /** The metadata schema's output (defaults and transforms applied). */
  metadata: Record<string, unknown>;
  /** The caller's event id (emit is idempotent on it), or null to let the service make one. */
  eventId: string | null;
  /** Epoch ms the caller recorded the event at, or null to use the service clock. */
  createdOn: number | null;
}

/**
 * The set of event types a service accepts, each with its metadata schema.
 *
 * @typeParam TDefs - the definitions as given (later ones win on a repeated type);
 * {@link EmitInput} reads them to type `emit` per event type.
 */
export interface EventCatalogue<TDefs extends readonly EventDefinition[] = readonly EventDefinition[]> {
  /** Every accepted event type, in registration order (a replaced type keeps its place). */
  readonly types: readonly string[];
  /** The effective definitions, one per type, in the order of `types`. */
  readonly definitions: readonly EventDefinition[];
  /** True when `type` is in the catalogue. */
  has(type: string): boolean;
  /** The definition of `type`, or undefined. */
  get(type: string): EventDefinition | undefined;
  /**
   * Validates and normalises an emit input.
   *
   * @throws {@link UnknownEventTypeError} when `eventType` is not in the catalogue.
   * @throws {@link WebhookValidationError} with code `invalid_metadata` when only
   * `metadata` is wrong, else `validation_failed` (envelope fields, unknown keys,
   * an `entityType` that differs from the event's fixed one); details list every issue.
   */
  parseEvent(input: unknown): ParsedEvent;
  /** @throws {@link UnknownEventTypeError} for the first type not in the catalogue. */
  assertKnownTypes(types: readonly string[]): void;
  /**
   * Type-only carrier of the definitions' literal types for {@link EmitInput};
   * always undefined at runtime.
   */
  readonly '~definitions'?: TDefs;
}

/** Options of {@link createEventCatalogue}. */
export interface EventCatalogueOptions {
  /**
   * Start from the eight built-in event types of the spec.
   * @default true
   */
  includeBuiltIns?: boolean;
}

type DefinitionsOf<TCat> = TCat extends EventCatalogue<infer TDefs> ? TDefs : never;

/** The definition a catalogue uses for `TType`: the last one given for it. */
type LastDefinitionOf<
  TDefs extends readonly EventDefinition[],
  TType extends string,
> = TDefs extends readonly [...infer Rest extends readonly EventDefinition[], infer Last]
  ? Last extends { readonly type: TType }
    ? Last
    : LastDefinitionOf<Rest, TType>
  : Extract<TDefs[number], { readonly type: TType }>;

/** A fixed entity type makes `entityType` optional (and only that value); none makes it required. */
type EntityTypeField<TEntity> = [TEntity] extends [null]
  ? { entityType: EntityType }
  : null extends TEntity
    ? { entityType?: EntityType }
    : { entityType?: TEntity };

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** Fields every emit takes, whatever the event type. */
interface EmitCommonFields {
  /** The agency whose configuration receives the event (1..200 characters). */
  agencyId: string;
  /** The affected entity's id, or null for an event not tied to one. */
  entityId: string | null;
  /** @default null */
  parentEntityId?: string | null;
  /** @default null */
  createdById?: string | null;
  /** @default null */
  createdByRole?: CreatedByRole | null;
  /** Idempotency key per agency. @default a new id */
  eventId?: string;
  /** Epoch ms when the event was recorded. @default the service clock */
  createdOn?: number;
}

type EmitInputFor<TDef extends EventDefinition> = Simplify<
  EmitCommonFields & { eventType: TDef['type']; metadata: z.input<TDef['metadata']> } & EntityTypeField<
      TDef['entityType']
    >
>;

/** The event types of a catalogue, as a union of literals. */
export type EventTypeOf<TCat extends EventCatalogue> = DefinitionsOf<TCat>[number]['type'];

/**
 * What `emit` accepts for a catalogue: a union over its event types, so that the
 * `metadata` (and whether `entityType` is needed) is checked per `eventType`.
 *
 * @example
 * ```ts
 * const events = createEventCatalogue([jobFulfilmentStarted]);
 * const input: EmitInput<typeof events> = {
 *   agencyId: 'ag_1', eventType: 'job_cancelled', entityId: 'job_9',
 *   metadata: { jobId: 'job_9', agencyId: 'ag_1', jobNumber: 1042, reason: 'Duplicate' },
 * };
 * ```
 */
export type EmitInput<TCat extends EventCatalogue = EventCatalogue> = {
  [TType in EventTypeOf<TCat>]: EmitInputFor<LastDefinitionOf<DefinitionsOf<TCat>, TType>>;
}[EventTypeOf<TCat>];

/**
 * What a receiver gets from a service with this catalogue: each event type's metadata type (the schema's
 * output), keyed by `eventType`, `webhook_test` included. Pass it to `verifyWebhook` of
 * `@svc/webhooks-verify` so that checking `eventType` narrows `metadata`. Type-only: a receiver that
 * imports it with `import type` has no runtime dependency on core.
 *
 * @typeParam TCat - the catalogue, e.g. `typeof events`; defaults to the built-in one
 * @example
 * ```ts
 * import type { EventMetadataMap } from '@svc/webhooks-core';
 * import type { events } from './webhook-events';
 *
 * const envelope = verifyWebhook<EventMetadataMap<typeof events>>(rawBody, header, secret);
 * if (envelope.eventType === 'job_fulfilment_started') console.log(envelope.metadata.startedAt);
 * ```
 */
export type EventMetadataMap<TCat extends EventCatalogue = EventCatalogue<typeof builtInEvents>> = Simplify<
  {
    [TType in EventTypeOf<TCat>]: z.output<LastDefinitionOf<DefinitionsOf<TCat>, TType>['metadata']>;
  } & { [TEST_EVENT_TYPE]: TestEventMetadata }
>;

/**
 * `createdOn` is epoch milliseconds (spec: Delivery envelope). Seconds and microseconds are the usual
 * slips, and both land outside these bounds: below 10^11 is before 1973 in milliseconds but after
 * the year 5000 in seconds; above the last millisecond of 9999 is a microsecond clock.
 */
const createdOnSchema = z
  .number()
  .int()
  .min(100_000_000_000, { error: 'Must be epoch milliseconds; this looks like seconds (multiply by 1000)' })
  .max(253_402_300_799_999, {
    error: 'Must be epoch milliseconds; this looks like microseconds or later than 9999',
  });

/** Emit schemas are built once per definition and shared by every catalogue holding it. */
const emitSchemas = new WeakMap<EventDefinition, z.ZodType>();

function emitSchemaOf(def: EventDefinition): z.ZodType {
  let schema = emitSchemas.get(def);
  if (!schema) {
    schema = buildEmitSchema(def);
    emitSchemas.set(def, schema);
  }
  return schema;
}

function buildEmitSchema(def: EventDefinition): z.ZodType {
  const id = z.string().min(1).max(ID_MAX_LENGTH);
  const entityType =
    def.entityType === null
      ? entityTypeSchema
      : z
          .literal(def.entityType, { error: `entityType must be "${def.entityType}" for ${def.type} events` })
          .optional();
  return z.strictObject({
    agencyId: id,
    eventType: z.literal(def.type),
    entityType,
    entityId: id.nullable(),
    parentEntityId: id.nullable().optional(),
    createdById: id.nullable().optional(),
    createdByRole: createdByRoleSchema.nullable().optional(),
    metadata: def.metadata,
    eventId: id.optional(),
    createdOn: createdOnSchema.optional(),
  });
}

/** The shape `buildEmitSchema` produces, for reading its output. */
interface EmitOutput {
  agencyId: string;
  eventType: string;
  entityType?: EntityType;
  entityId: string | null;
  parentEntityId?: string | null;
  createdById?: string | null;
  createdByRole?: CreatedByRole | null;
  metadata: unknown;
  eventId?: string;
  createdOn?: number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isMetadataIssue(issue: ValidationIssue): boolean {
  return issue.path === 'metadata' || issue.path.startsWith('metadata.');
}

function invalidEvent(what: string, issues: ValidationIssue[]): WebhookValidationError {
  const first = issues[0];
  const where = first && first.path !== '' ? ` at "${first.path}"` : '';
  const code = issues.every(isMetadataIssue) ? 'invalid_metadata' : 'validation_failed';
  return new WebhookValidationError(
    `Invalid ${what}${where}: ${first?.message ?? 'invalid input'}`,
    issues,
    code,
  );
}

/** Reads `eventType` before the per-type schema is known. */
function readEventType(input: unknown): string {
  if (!isPlainObject(input)) {
    throw invalidEvent('event', [{ path: '', message: 'Expected an object' }]);
  }
  const eventType = input.eventType;
  if (typeof eventType !== 'string' || eventType === '') {
    throw invalidEvent('event', [{ path: 'eventType', message: 'Expected a non-empty string' }]);
  }
  return eventType;
}

/**
 * Validates `input` against `def` and fills the optional fields with null. Internal to core's events:
 * the catalogue's `parseEvent` and the example envelopes use it.
 */
export function parseWithDefinition(def: EventDefinition, input: unknown): ParsedEvent {
  const result = emitSchemaOf(def).safeParse(input);
  if (!result.success) throw invalidEvent(`${def.type} event`, toValidationIssues(result.error));
  const data = result.data as EmitOutput;
  if (!isPlainObject(data.metadata)) {
    throw invalidEvent(`${def.type} event`, [
      { path: 'metadata', message: 'The metadata schema must produce an object' },
    ]);
  }
  const event: ParsedEvent = {
    agencyId: data.agencyId,
    eventType: data.eventType,
    entityType: (data.entityType ?? def.entityType) as EntityType,
    entityId: data.entityId,
    parentEntityId: data.parentEntityId ?? null,
    createdById: data.createdById ?? null,
    createdByRole: data.createdByRole ?? null,
    metadata: data.metadata,
    eventId: data.eventId ?? null,
    createdOn: data.createdOn ?? null,
  };
  const ruleIssues = specRuleIssues(event);
  if (ruleIssues.length > 0) throw invalidEvent(`${def.type} event`, ruleIssues);
  return event;
}

/** The agency an example is parsed for: examples carry no agency, emits need one. */
const EXAMPLE_AGENCY_ID = 'example';

/**
 * Parses a definition's example as an emit of it would be parsed, so the example envelope holds exactly
 * what a real delivery of the type could hold (schema output, nulls filled in).
 *
 * @throws {@link WebhookError} with code `invalid_event_definition` when the example does not match
 */
export function parseExample(def: EventDefinition & { example: object }): ParsedEvent {
  try {
    return parseWithDefinition(def, { ...def.example, agencyId: EXAMPLE_AGENCY_ID, eventType: def.type });
  } catch (error) {
    if (!(error instanceof WebhookValidationError)) throw error;
    const first = error.details.issues[0];
    const where = first?.path ? ` at "${first.path}"` : '';
    throw new WebhookError(
      'invalid_event_definition',
      `The example of event type "${def.type}" does not match its definition${where}: ${first?.message ?? 'invalid input'}. Fix the example given to defineEvent().`,
      { cause: error, details: error.details },
    );
  }
}

/** Builds the runtime catalogue; a later definition of a type replaces the earlier one. */
function buildCatalogue(definitions: readonly EventDefinition[]): EventCatalogue {
  const byType = new Map<string, EventDefinition>();
  for (const def of definitions) {
    assertEventDefinition(def);
    byType.set(def.type, def);
  }
  // Checked here rather than in defineEvent: a catalogue also takes hand-written definitions, and a wrong
  // example must stop the host at startup, not surface when someone sends a test event.
  for (const def of byType.values()) {
    if (def.example !== undefined) parseExample({ ...def, example: def.example });
  }
  return Object.freeze({
    types: Object.freeze([...byType.keys()]),
    definitions: Object.freeze([...byType.values()]),
    has: (type: string) => byType.has(type),
    get: (type: string) => byType.get(type),
    parseEvent(input: unknown): ParsedEvent {
      const eventType = readEventType(input);
      const def = byType.get(eventType);
      if (!def) throw new UnknownEventTypeError(eventType);
      return parseWithDefinition(def, input);
    },
    assertKnownTypes(types: readonly string[]): void {
      for (const type of types) {
        if (!byType.has(type)) throw new UnknownEventTypeError(type);
      }
    },
  });
}

/**
 * Creates an event catalogue: the eight built-in event types plus `extra`. A
 * definition whose type is already present replaces it (so a host can give
 * `job_completed` a schema), keeping its place in `types`.
 *
 * @example
 * ```ts
 * const events = createEventCatalogue([
 *   defineEvent({ type: 'job_fulfilment_started', entityType: 'job', metadata: z.strictObject({ fulfilmentId: z.string() }) }),
 *   defineEvent({ type: 'job_completed', entityType: 'job', metadata: z.strictObject({ jobId: z.string() }) }),
 * ]);
 * ```
 */
export function createEventCatalogue<const TExtra extends readonly EventDefinition[] = []>(
  extra: TExtra,
  options: EventCatalogueOptions & { includeBuiltIns: false },
): EventCatalogue<TExtra>;
export function createEventCatalogue<const TExtra extends readonly EventDefinition[] = []>(
  extra?: TExtra,
  options?: EventCatalogueOptions,
): EventCatalogue<[...typeof builtInEvents, ...TExtra]>;
export function createEventCatalogue(
  extra: readonly EventDefinition[] = [],
  options: EventCatalogueOptions = {},
): EventCatalogue {
  const includeBuiltIns = options.includeBuiltIns ?? true;
  return buildCatalogue(includeBuiltIns ? [...builtInEvents, ...extra] : extra);
}
