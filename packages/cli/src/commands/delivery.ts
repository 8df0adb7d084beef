import type { DeliveryDetail } from '@svc/webhooks-core';
import { deliveryDetailSchema } from '@svc/webhooks-core/schemas';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { writeJson } from '../io';
import { isoTime, readAnswer } from './answer-schema';
import { type ManagementOptions, managementClient, withManagementOptions } from './management-options';

/** `svc-webhooks delivery <deliveryId>`: GET /deliveries/:id on a host. */
export function registerDeliveryCommand(program: Command, context: CommandContext): void {
  withManagementOptions(
    program
      .command('delivery')
      .summary('show one delivery: its status and when it is tried next')
      .description(
        'Show one delivery from a host’s management API (GET /deliveries/:id): its status, attempts, when its next attempt is due and why it waits (an endpoint paused by its circuit breaker), and its last error.',
      )
      .argument('<deliveryId>', 'the delivery id (the webhookId without its whdel_ prefix)'),
  )
    .addHelpText(
      'after',
      `
Example:
  $ svc-webhooks delivery 0192f0c4-5a1e-7c3b-9d2e-3f4a5b6c7d8e --api "$API" --token "$TOKEN"`,
    )
    .action(async (deliveryId: string, options: ManagementOptions) => {
      const client = managementClient(options, context);
      const id = deliveryId.replace(/^whdel_/, '');
      const { body } = await client.call('GET', `/deliveries/${encodeURIComponent(id)}`);
      const delivery = readAnswer(deliveryDetailSchema, body, 'GET /deliveries/:id');
      if (context.json()) writeJson(context.io, delivery);
      else context.io.stdout(describeDelivery(delivery));
    });
}

function describeDelivery(delivery: DeliveryDetail): string {
  const lines = [
    `${delivery.id}  ${delivery.status}  ${delivery.eventType}  attempt ${delivery.attempt} of ${delivery.maxAttempts}`,
  ];
  if (delivery.status === 'pending') {
    const paused =
      delivery.pausedUntil === null
        ? ''
        : ` (endpoint paused until ${isoTime(delivery.pausedUntil)}: its receiver failed too often in a row; a test send that succeeds, a replay or a recovery goes at once)`;
    lines.push(`next attempt: ${isoTime(delivery.nextRetryAt)}${paused}`);
  }
  if (delivery.deliveredAt !== null) lines.push(`delivered: ${isoTime(delivery.deliveredAt)}`);
  if (delivery.lastErrorMessage !== null) lines.push(`last error: ${delivery.lastErrorMessage}`);
  return `${lines.join('\n')}\n`;
}
