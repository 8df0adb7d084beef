// Compile-time checks, run by `pnpm --filter @svc/webhooks-core typecheck`: the metadata types that
// @svc/webhooks-verify ships (generated text) are exactly the types zod infers from the catalogue, and a
// host's catalogue gives its receivers the same narrowing.
import type { WebhookEventMap } from '@svc/webhooks-verify';
import { verifyWebhook } from '@svc/webhooks-verify';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import { createEventCatalogue, type EventMetadataMap } from '../src/events/event-catalogue';
import { defineEvent, type EventExample } from '../src/events/event-definition';

expectTypeOf<EventMetadataMap>().toEqualTypeOf<WebhookEventMap>();

const events = createEventCatalogue([
  defineEvent({
    type: 'job_fulfilment_started',
    entityType: 'job',
    metadata: z.strictObject({ fulfilmentId: z.string(), startedAt: z.number() }),
  }),
  defineEvent({
    type: 'job_completed',
    entityType: 'job',
    metadata: z.strictObject({ completedAt: z.number() }),
  }),
]);
type HostEvents = EventMetadataMap<typeof events>;

expectTypeOf<HostEvents['job_fulfilment_started']>().toEqualTypeOf<{
  fulfilmentId: string;
  startedAt: number;
}>();
// A definition that replaces a built-in type replaces its metadata type too.
expectTypeOf<HostEvents['job_completed']>().toEqualTypeOf<{ completedAt: number }>();
expectTypeOf<HostEvents['job_cancelled']>().toEqualTypeOf<WebhookEventMap['job_cancelled']>();

const event = verifyWebhook<HostEvents>('{}', 't=1,v1=00', 's');
if (event.eventType === 'job_fulfilment_started')
  expectTypeOf(event.metadata.startedAt).toEqualTypeOf<number>();

// An example's metadata is checked against the schema's input type at compile time.
defineEvent({
  type: 'note_added',
  entityType: 'job',
  metadata: z.strictObject({ text: z.string() }),
  // @ts-expect-error: text must be a string
  example: { entityId: 'job_1', metadata: { text: 1 } },
});
expectTypeOf<EventExample<{ a: string }>['metadata']>().toEqualTypeOf<{ a: string }>();
