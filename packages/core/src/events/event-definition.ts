import type { z } from 'zod';
import { WebhookError } from '../errors';
import { type CreatedByRole, type EntityType, entityTypeSchema } from './entity-types';

/** Event type of the test endpoint's deliveries; reserved, so no host event can take it. */
export const TEST_EVENT_TYPE = 'webhook_test';

/**
 * Event types are snake_case words, `{entity}_{action}` or
 * `{entity}_{sub-entity}_{action}` (spec: Delivery envelope), at most 100
 * characters so they fit a subscription entry.
 */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
export const EVENT_TYPE_MAX_LENGTH = 100;

/**
 * One event type of the catalogue: its name, the entity type it is always about
 * (when it has one) and the zod schema of its `metadata`.
 *
 * @typeParam TType - the event type literal, e.g. `'job_created'`.
 * @typeParam TMeta - the metadata schema; `emit` takes its input type.
 * @typeParam TEntity - the fixed entity type, or `null` when the caller passes one.
 */
export interface EventDefinition<
  TType extends string = string,
  TMeta extends z.ZodType = z.ZodType,
  TEntity extends EntityType | null = EntityType | null,
> {
  /** The event type, as written in `eventType` and in subscriptions. */
  readonly type: TType;
  /** The entity type every event of this type has, or null when `emit` must name one. */
  readonly entityType: TEntity;
  /** Schema of the envelope's `metadata`; its output must be a plain object. */
  readonly metadata: TMeta;
  /** What the event means, for docs and the OpenAPI document. */
  readonly description?: string;
  /**
   * A sample event of this type: the example envelope's fields, for docs, JSON Schema `examples`,
   * `POST /config/test` with `{ eventType }` and `svc-webhooks trigger`. A catalogue checks it against
   * `metadata` when it is created.
   */
  readonly example?: EventExample<z.input<TMeta>>;
}

/**
 * A sample event of one type: what an `emit` of it would set, without the agency. The example envelope
 * built from it has the metadata schema's output, a fixed `webhookId` and attempt 1.
 *
 * @typeParam TMetadata - the metadata schema's input type
 * @example
 * ```ts
 * const example: EventExample<{ jobId: string; reason: string }> = {
 *   entityId: 'job_7Hq2kX',
 *   createdByRole: 'Agent',
 *   metadata: { jobId: 'job_7Hq2kX', reason: 'Duplicate request' },
 * };
 * ```
 */
export interface EventExample<TMetadata = Record<string, unknown>> {
  /** Required when the definition has no fixed entity type; otherwise that one (or left out). */
  entityType?: EntityType;
  /** The affected entity's id, or null for an event not tied to one. */
  entityId: string | null;
  /** @default null */
  parentEntityId?: string | null;
  /** @default null */
  createdById?: string | null;
  /** @default null */
  createdByRole?: CreatedByRole | null;
  /** Metadata the definition's schema accepts, every field present. */
  metadata: TMetadata;
}

/** Input of {@link defineEvent}. */
export interface EventDefinitionInput<
  TType extends string,
  TMeta extends z.ZodType,
  TEntity extends EntityType | undefined,
> {
  /** snake_case event type, at most 100 characters, e.g. `job_fulfilment_started`. */
  type: TType;
  /**
   * The entity type every event of this type is about. When set, `emit` may omit
   * `entityType` and must not pass a different one; when left out, `emit` must pass one.
   * @default undefined (the caller names the entity type on each emit)
   */
  entityType?: TEntity;
  /** zod schema of `metadata`, typically a `z.strictObject` with every field required. */
  metadata: TMeta;
  /** What the event means, for docs. */
  description?: string;
  /**
   * A sample event of this type, checked against `metadata` when a catalogue is created. Without one the
   * type has no example envelope: `POST /config/test` cannot send it and `svc-webhooks trigger` refuses it.
   * @default undefined (no example)
   */
  example?: EventExample<z.input<TMeta>>;
}

/**
 * Declares an event type for the catalogue. Pass the result to
 * `createEventCatalogue([...])` (or the service's `events` option); a definition
 * whose type is already in the catalogue replaces the earlier one, which is how a
 * host gives `job_completed`, `invoice_approved` or `message_sent` a schema.
 *
 * @throws {@link WebhookError} with code `invalid_event_definition` when the type
 * is not snake_case (≤ 100 characters) or is the reserved `webhook_test`, or the
 * entity type is not one of the 13.
 *
 * @example
 * ```ts
 * const jobFulfilmentStarted = defineEvent({
 *   type: 'job_fulfilment_started',
 *   entityType: 'job',
 *   metadata: z.strictObject({ fulfilmentId: z.string(), jobId: z.string(), startedAt: z.number() }),
 * });
 * ```
 */
export function defineEvent<
  const TType extends string,
  TMeta extends z.ZodType,
  const TEntity extends EntityType | undefined = undefined,
>(
  def: EventDefinitionInput<TType, TMeta, TEntity>,
): EventDefinition<TType, TMeta, TEntity extends EntityType ? TEntity : null> {
  const definition = {
    type: def.type,
    entityType: (def.entityType ?? null) as TEntity extends EntityType ? TEntity : null,
    metadata: def.metadata,
    ...(def.description === undefined ? {} : { description: def.description }),
    ...(def.example === undefined ? {} : { example: def.example }),
  };
  assertEventDefinition(definition);
  return Object.freeze(definition);
}

/**
 * Checks a definition that reached a catalogue, which may be a hand-written object
 * rather than a {@link defineEvent} result. Internal to the catalogue.
 */
export function assertEventDefinition(def: EventDefinition): void {
  assertEventType(def.type);
  const metadata: unknown = def.metadata;
  if (typeof metadata !== 'object' || metadata === null || !('safeParse' in metadata)) {
    throw new WebhookError(
      'invalid_event_definition',
      `Event type "${def.type}" has no zod metadata schema; build it with defineEvent({ type, metadata: z.strictObject({...}) }).`,
    );
  }
  if (def.entityType !== null && !entityTypeSchema.safeParse(def.entityType).success) {
    throw new WebhookError(
      'invalid_event_definition',
      `Event type "${def.type}" names the unknown entity type "${String(def.entityType)}"; use one of ${entityTypeSchema.options.join(', ')}.`,
    );
  }
}

function assertEventType(type: unknown): void {
  if (typeof type !== 'string' || type.length > EVENT_TYPE_MAX_LENGTH || !EVENT_TYPE_PATTERN.test(type)) {
    throw new WebhookError(
      'invalid_event_definition',
      `Invalid event type ${JSON.stringify(type)}: use snake_case words such as "job_fulfilment_started", at most ${EVENT_TYPE_MAX_LENGTH} characters.`,
    );
  }
  if (type === TEST_EVENT_TYPE) {
    throw new WebhookError(
      'invalid_event_definition',
      `"${TEST_EVENT_TYPE}" is reserved for the test endpoint's deliveries; choose another event type.`,
    );
  }
}
