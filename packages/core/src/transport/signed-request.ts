import { SIGNATURE_HEADER, signWebhook } from '@svc/webhooks-verify';
import { serializeEnvelope, type WebhookEnvelope } from '../delivery/envelope';
import type { OutgoingDelivery } from './transport';

// The signature header's name comes from the verify package, so sender and receivers share one constant.
export { SIGNATURE_HEADER };
/** Header repeating the envelope's `webhookId`, so receivers can dedupe before parsing. */
export const WEBHOOK_ID_HEADER = 'x-service-webhook-id';
/** Header repeating the envelope's `eventType`, so receivers can route before parsing. */
export const EVENT_TYPE_HEADER = 'x-service-event-type';

/**
 * Serialises the envelope once and signs exactly those bytes with the time of
 * the attempt, so the signature's `t` and the envelope's `deliveredAt` agree.
 */
export function buildSignedDelivery(
  url: string,
  envelope: WebhookEnvelope,
  signingSecret: string,
): OutgoingDelivery {
  const body = serializeEnvelope(envelope);
  return {
    url,
    body,
    headers: {
      [SIGNATURE_HEADER]: signWebhook(body, signingSecret, envelope.deliveredAt),
      [WEBHOOK_ID_HEADER]: envelope.webhookId,
      [EVENT_TYPE_HEADER]: envelope.eventType,
    },
  };
}
