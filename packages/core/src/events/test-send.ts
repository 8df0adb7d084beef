import { z } from 'zod';
import { UnknownEventTypeError, WebhookValidationError } from '../errors';
import { parseWithSchema } from '../validation';
import type { EventCatalogue } from './event-catalogue';
import { type EventDefinition, TEST_EVENT_TYPE } from './event-definition';

/**
 * Body of `POST /config/test`, optional as a whole: without one (or without `eventType`) the endpoint
 * sends `webhook_test` as it always has.
 */
export const sendTestBodySchema = z
  .strictObject({
    eventType: z.string().min(1).max(100).optional().meta({
      description:
        'Send this event type’s example instead of `webhook_test`. The configuration must subscribe to it.',
    }),
  })
  .meta({ id: 'SendTestBody' });

/** Body of `POST /config/test`: `{ eventType? }`. */
export type SendTestBody = z.input<typeof sendTestBodySchema>;

/** An event type with an example, chosen for a test send. */
export type TestEventChoice = EventDefinition & { example: NonNullable<EventDefinition['example']> };

/**
 * The definition whose example a test send carries, or null for `webhook_test` (no body, no
 * `eventType`, or `webhook_test` itself). Everything that does not depend on the agency's configuration
 * is checked here, so a bad request is refused whatever state the agency is in.
 *
 * @throws {@link WebhookValidationError} (`validation_failed`) for a malformed body or a type without an
 * example; {@link UnknownEventTypeError} for a type the catalogue does not have
 */
export function chooseTestEvent(
  events: EventCatalogue,
  body: SendTestBody | undefined,
): TestEventChoice | null {
  if (body === undefined) return null;
  const { eventType } = parseWithSchema(sendTestBodySchema, body, 'test request');
  if (eventType === undefined || eventType === TEST_EVENT_TYPE) return null;
  const definition = events.get(eventType);
  if (!definition) throw new UnknownEventTypeError(eventType);
  const { example } = definition;
  if (example === undefined) {
    throw new WebhookValidationError(
      `Event type "${eventType}" has no example to send. Test with another event type, or without one (webhook_test).`,
      [{ path: 'eventType', message: 'This event type has no example' }],
    );
  }
  return { ...definition, example };
}

/**
 * Refuses a test of an event type the configuration does not subscribe to: its receiver would never get
 * one for real, so a passing test would prove nothing.
 *
 * @throws {@link WebhookValidationError} (`validation_failed`, issue at `eventType`)
 */
export function assertSubscribedForTest(
  choice: TestEventChoice,
  subscribedEventTypes: readonly string[],
): void {
  if (subscribedEventTypes.includes(choice.type)) return;
  const subscribed = subscribedEventTypes.length === 0 ? 'none' : subscribedEventTypes.join(', ');
  throw new WebhookValidationError(
    `This configuration does not subscribe to "${choice.type}". Add it to subscribedEventTypes first, or test one of the subscribed types (${subscribed}).`,
    [{ path: 'eventType', message: 'Not one of the subscribed event types' }],
  );
}
