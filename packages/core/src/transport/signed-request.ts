import {
  SIGNATURE_HEADER,
  STANDARD_WEBHOOK_HEADERS,
  signStandardWebhook,
  signStandardWebhookAsymmetric,
  signWebhook,
} from '@svc/webhooks-verify';
import type { SignatureScheme, SigningKeyRecord } from '../config/config';
import { isLiveKey } from '../config/signing-keys';
import { serializeEnvelope, type WebhookEnvelope } from '../delivery/envelope';
import type { OutgoingDelivery } from './transport';

// The signature header's name comes from the verify package, so sender and receivers share one constant.
export { SIGNATURE_HEADER };
/** Header repeating the envelope's `webhookId`, so receivers can dedupe before parsing. */
export const WEBHOOK_ID_HEADER = 'x-service-webhook-id';
/** Header repeating the envelope's `eventType`, so receivers can route before parsing. */
export const EVENT_TYPE_HEADER = 'x-service-event-type';

/** What signs an attempt: the configuration's fields of that name (a `WebhookConfigRecord` is one). */
export interface DeliverySigning {
  signatureScheme: SignatureScheme;
  /** The 64-hex secret (opened): the HMAC key of both schemes. */
  signingSecret: string;
  /** The `v1a` keys, active first; read only under `'standard'` and `'both'`. */
  signingKeys: readonly SigningKeyRecord[];
}

/**
 * Serialises the envelope once and signs exactly those bytes with the time of
 * the attempt, `envelope.deliveredAt`: the one clock read every header comes
 * from, so the spec signature's `t`, `webhook-timestamp` (its whole seconds)
 * and the envelope's `deliveredAt` agree.
 *
 * - `'service'`: `X-Service-Signature`, `X-Service-Webhook-Id`, `X-Service-Event-Type`.
 * - `'standard'`: `webhook-id` (the envelope's `webhookId`, the same on every
 *   attempt and replay), `webhook-timestamp`, `webhook-signature` (`v1`, then a
 *   `v1a` per live key, active first), and the two routing headers.
 * - `'both'`: all of the above.
 */
export function buildSignedDelivery(
  url: string,
  envelope: WebhookEnvelope,
  signing: DeliverySigning,
): OutgoingDelivery {
  const body = serializeEnvelope(envelope);
  const scheme = signing.signatureScheme;
  // The spec's path first and unchanged: it runs on every attempt of most agencies. (A host's own
  // store written before the field existed may give no scheme: that is the spec's too.)
  if (scheme === 'service' || scheme === undefined) {
    return {
      url,
      body,
      headers: {
        [SIGNATURE_HEADER]: signWebhook(body, signing.signingSecret, envelope.deliveredAt),
        [WEBHOOK_ID_HEADER]: envelope.webhookId,
        [EVENT_TYPE_HEADER]: envelope.eventType,
      },
    };
  }
  const headers = standardHeaders(body, envelope, signing);
  if (scheme === 'both')
    headers[SIGNATURE_HEADER] = signWebhook(body, signing.signingSecret, envelope.deliveredAt);
  headers[WEBHOOK_ID_HEADER] = envelope.webhookId;
  headers[EVENT_TYPE_HEADER] = envelope.eventType;
  return { url, body, headers };
}

/** The three Standard Webhooks headers of one attempt. */
function standardHeaders(
  body: string,
  envelope: WebhookEnvelope,
  signing: DeliverySigning,
): Record<string, string> {
  const id = envelope.webhookId;
  const seconds = Math.floor(envelope.deliveredAt / 1000);
  const signatures = [signStandardWebhook(body, signing.signingSecret, id, seconds)];
  for (const key of signing.signingKeys) {
    // A retiring key signs until its `expiresAt`; the attempt's time decides, as for every header.
    if (isLiveKey(key, envelope.deliveredAt))
      signatures.push(signStandardWebhookAsymmetric(body, key.privateKey, id, seconds));
  }
  return {
    [STANDARD_WEBHOOK_HEADERS.id]: id,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(seconds),
    [STANDARD_WEBHOOK_HEADERS.signature]: signatures.join(' '),
  };
}
