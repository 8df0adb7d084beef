import type { WebhookEventMap } from './built-in-events';
import { WebhookVerificationError } from './errors';

/** Allowed values of `entityType` (spec: Entity types). */
export type WebhookEntityType =
  | 'job'
  | 'quote'
  | 'invoice'
  | 'approval'
  | 'property'
  | 'estate'
  | 'agent'
  | 'agency'
  | 'service_provider'
  | 'thread'
  | 'message'
  | 'user'
  | 'communications';

/** Allowed values of `createdByRole`. */
export type WebhookCreatedByRole = 'Agent' | 'ServiceProvider' | 'System' | 'Operations';

/**
 * The JSON body of every delivery (spec: Delivery envelope), in the order the service writes its keys.
 *
 * @typeParam TMetadata - shape of `metadata` for the event types you handle; the service fixes one shape
 * per event type, with every field present and `null` where it does not apply.
 * @typeParam TEventType - the event type(s) the envelope is of; {@link WebhookEvent} sets it per member.
 */
export interface WebhookEnvelope<TMetadata = Record<string, unknown>, TEventType extends string = string> {
  /** `whdel_{deliveryId}`: the same on every retry and replay of one delivery. Deduplicate on it. */
  webhookId: string;
  /** The event that fired, `{entity}_{action}` or `{entity}_{sub-entity}_{action}`, e.g. `job_created`. */
  eventType: TEventType;
  /** The kind of entity the event is about. */
  entityType: WebhookEntityType;
  /** Identifier of the affected entity; `null` for the rare events not tied to one document. */
  entityId: string | null;
  /** Identifier of the parent entity (the job for a quote, the thread for a message), when relevant. */
  parentEntityId: string | null;
  /** Identifier of the user who triggered the event. */
  createdById: string | null;
  /** Role of that user. */
  createdByRole: WebhookCreatedByRole | null;
  /** Event-specific payload; fetch full current state from the REST API when you need it. */
  metadata: TMetadata;
  /** Epoch ms when the original event was recorded. */
  createdOn: number;
  /** Epoch ms when this delivery attempt was made. */
  deliveredAt: number;
  /** 1 for the first attempt; counts up on each retry and replay. */
  attempt: number;
}

/**
 * A verified delivery as a union over the event types of a map, one {@link WebhookEnvelope} per type:
 * checking `eventType` narrows `metadata` to that type's shape. What `verifyWebhook` and the other
 * verify functions return.
 *
 * @typeParam TEvents - event type → metadata type; by default {@link WebhookEventMap}, the service's
 * built-in events and `webhook_test`. A host with its own event types passes its own map (its catalogue's
 * `EventMetadataMap<typeof events>` from `@svc/webhooks-core`, or a module `buildEventTypesModule`
 * generated), which also decides which types a `switch` on `eventType` must cover.
 * @example
 * ```ts
 * const event: WebhookEvent = verifyWebhook(rawBody, header, secret);
 * if (event.eventType === 'job_cancelled') console.log(event.metadata.reason); // string
 * ```
 */
export type WebhookEvent<TEvents extends object = WebhookEventMap> = {
  [TType in keyof TEvents & string]: WebhookEnvelope<TEvents[TType], TType>;
}[keyof TEvents & string];

const utf8 = new TextDecoder();

/**
 * Parses a body whose signature was already verified. Only its being a JSON object is checked: the
 * signature proves the service wrote it, the field shapes are the service's contract, and validating
 * them here would tie every receiver to this package's version when the envelope gains fields.
 */
export function parseEnvelope<TEvents extends object>(body: string | Uint8Array): WebhookEvent<TEvents> {
  let value: unknown;
  try {
    value = JSON.parse(typeof body === 'string' ? body : utf8.decode(body));
  } catch (cause) {
    throw new WebhookVerificationError('invalid_body', 'The signature is valid but the body is not JSON.', {
      cause,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new WebhookVerificationError(
      'invalid_body',
      'The signature is valid but the body is not a JSON object, so it is not a delivery envelope.',
    );
  }
  return value as WebhookEvent<TEvents>;
}
