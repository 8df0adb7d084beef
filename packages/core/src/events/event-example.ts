import { WebhookError } from '../errors';
import type { CreatedByRole, EntityType } from './entity-types';
import { parseExample } from './event-catalogue';
import type { EventDefinition } from './event-definition';

/**
 * An example delivery body of one event type: the envelope's fields in the spec's order, as
 * {@link buildExampleEnvelope} returns them. Structurally a `WebhookEnvelope`.
 */
export interface ExampleEnvelope {
  /** The `webhookId` given, or `whdel_example`. */
  webhookId: string;
  eventType: string;
  entityType: EntityType;
  entityId: string | null;
  parentEntityId: string | null;
  createdById: string | null;
  createdByRole: CreatedByRole | null;
  /** The example's metadata after the definition's schema parsed it (what a delivery would carry). */
  metadata: Record<string, unknown>;
  /** Epoch ms; the `now` given. */
  createdOn: number;
  /** Epoch ms; the `now` given, which is also the signature's `t` when the envelope is sent. */
  deliveredAt: number;
  /** Always 1. */
  attempt: number;
}

/** Options of {@link buildExampleEnvelope}. */
export interface ExampleEnvelopeOptions {
  /**
   * The envelope's `webhookId`. Receivers deduplicate on it, so give each send its own.
   * @default 'whdel_example'
   */
  webhookId?: string;
  /**
   * Epoch ms for `createdOn` and `deliveredAt`.
   * @default Date.now()
   */
  now?: number;
}

/** Fixed time of the examples in generated documents (2026-01-01T00:00:00Z), so they do not change per run. */
export const EXAMPLE_TIME = 1_767_225_600_000;

/**
 * The example envelope of an event type, built from its definition's `example`: what
 * `POST /config/test` with `{ eventType }` and `svc-webhooks trigger` send, and what the JSON Schemas and
 * the events reference show. Plain data, no I/O.
 *
 * @throws {@link WebhookError} with code `example_missing` when the definition has no `example`, and
 * `invalid_event_definition` when the example does not match the definition
 * @example
 * ```ts
 * const envelope = buildExampleEnvelope(jobFulfilmentStarted, { webhookId: 'whdel_try_1' });
 * const body = JSON.stringify(envelope);
 * ```
 */
export function buildExampleEnvelope(
  definition: EventDefinition,
  options: ExampleEnvelopeOptions = {},
): ExampleEnvelope {
  const { example } = definition;
  if (example === undefined) {
    throw new WebhookError(
      'example_missing',
      `Event type "${definition.type}" has no example. Give its defineEvent() an example ({ entityId, metadata, … }).`,
      { details: { eventType: definition.type } },
    );
  }
  const parsed = parseExample({ ...definition, example });
  const now = options.now ?? Date.now();
  return {
    webhookId: options.webhookId ?? 'whdel_example',
    eventType: parsed.eventType,
    entityType: parsed.entityType,
    entityId: parsed.entityId,
    parentEntityId: parsed.parentEntityId,
    createdById: parsed.createdById,
    createdByRole: parsed.createdByRole,
    metadata: parsed.metadata,
    createdOn: now,
    deliveredAt: now,
    attempt: 1,
  };
}
