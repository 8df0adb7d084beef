// Compile-time checks of typed receivers, run by `pnpm --filter @svc/webhooks-verify typecheck`: checking
// `eventType` narrows `metadata`, for the built-in events and for a host's own map.
import {
  type JobCreatedMetadata,
  type PropertyAddress,
  verifyWebhook,
  type WebhookEnvelope,
  type WebhookEvent,
  type WebhookEventMap,
  type WebhookTestMetadata,
} from '@svc/webhooks-verify';
import { webhookHandler } from '@svc/webhooks-verify/fetch';
import { verifyWebhookAsync } from '@svc/webhooks-verify/web';
import { expectTypeOf } from 'vitest';

declare const body: string;
declare const header: string;

const event = verifyWebhook(body, header, 's');

expectTypeOf(event.eventType).toEqualTypeOf<keyof WebhookEventMap>();
expectTypeOf(event.eventType).toEqualTypeOf<
  | 'job_created'
  | 'job_completed'
  | 'job_cancelled'
  | 'property_created'
  | 'quote_approved'
  | 'invoice_approved'
  | 'job_fulfilment_rating_submitted'
  | 'message_sent'
  | 'webhook_test'
>();

if (event.eventType === 'job_created') {
  expectTypeOf(event.metadata).toEqualTypeOf<JobCreatedMetadata>();
  expectTypeOf(event.metadata.jobNumber).toEqualTypeOf<number>();
  expectTypeOf(event.metadata.propertyId).toEqualTypeOf<string | null>();
  expectTypeOf(event.metadata.requestorInfo).toEqualTypeOf<unknown>();
}

switch (event.eventType) {
  case 'job_cancelled':
    expectTypeOf(event.metadata.reason).toEqualTypeOf<string>();
    break;
  case 'property_created':
    expectTypeOf(event.metadata.address).toEqualTypeOf<PropertyAddress>();
    expectTypeOf(event.metadata.address.unitNumber).toEqualTypeOf<string | null>();
    break;
  case 'job_fulfilment_rating_submitted':
    expectTypeOf(event.metadata.rating.qualityOfWork).toEqualTypeOf<number>();
    break;
  case 'webhook_test':
    expectTypeOf(event.metadata).toEqualTypeOf<WebhookTestMetadata>();
    break;
  case 'job_completed':
  case 'invoice_approved':
  case 'message_sent':
    // The spec publishes no shape for these: any object.
    expectTypeOf(event.metadata).toEqualTypeOf<{ [key: string]: unknown }>();
    break;
  default:
    // job_created and quote_approved are left; nothing else can arrive with the built-in map.
    expectTypeOf(event.eventType).toEqualTypeOf<'job_created' | 'quote_approved'>();
}

if (event.eventType === 'job_cancelled') {
  // @ts-expect-error: reason is a string
  expectTypeOf(event.metadata.reason).toEqualTypeOf<number>();
  // @ts-expect-error: after narrowing, another event type's fields are gone
  void event.metadata.address;
}
// Before narrowing, metadata is the union of every shape.
expectTypeOf(event.metadata).toExtend<WebhookEnvelope['metadata']>();

// A host's own map: its types replace the built-in ones, and narrow the same way.
type AcmeEvents = WebhookEventMap & { job_fulfilment_started: { fulfilmentId: string; startedAt: number } };
const acme = verifyWebhook<AcmeEvents>(body, header, 's');
if (acme.eventType === 'job_fulfilment_started') {
  expectTypeOf(acme.metadata).toEqualTypeOf<{ fulfilmentId: string; startedAt: number }>();
}
expectTypeOf<WebhookEvent<AcmeEvents>['eventType']>().toEqualTypeOf<
  keyof WebhookEventMap | 'job_fulfilment_started'
>();

// The same narrowing on the Web Crypto and Fetch entries.
async function edge(request: Request) {
  const verified = await verifyWebhookAsync(body, header, 's');
  if (verified.eventType === 'quote_approved')
    expectTypeOf(verified.metadata.quoteStatus).toEqualTypeOf<string>();
  return webhookHandler<AcmeEvents>('s', (envelope) => {
    if (envelope.eventType === 'job_fulfilment_started') {
      expectTypeOf(envelope.metadata.startedAt).toEqualTypeOf<number>();
    }
    return new Response(null, { status: 204 });
  })(request);
}

export { edge };
