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
 */
export interface WebhookEnvelope<TMetadata = Record<string, unknown>> {
  /** `whdel_{deliveryId}`: the same on every retry and replay of one delivery. Deduplicate on it. */
  webhookId: string;
  /** The event that fired, `{entity}_{action}` or `{entity}_{sub-entity}_{action}`, e.g. `job_created`. */
  eventType: string;
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

const utf8 = new TextDecoder();

/**
 * Parses a body whose signature was already verified. Only its being a JSON object is checked: the
 * signature proves the service wrote it, the field shapes are the service's contract, and validating
 * them here would tie every receiver to this package's version when the envelope gains fields.
 */
export function parseEnvelope<TMetadata>(body: string | Uint8Array): WebhookEnvelope<TMetadata> {
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
  return value as WebhookEnvelope<TMetadata>;
}
