import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { writeJson } from '../io';
import { type ManagementOptions, managementClient, withManagementOptions } from './management-options';

/** `svc-webhooks replay <deliveryId>`: POST /deliveries/:id/replay on a host. */
export function registerReplayCommand(program: Command, context: CommandContext): void {
  withManagementOptions(
    program
      .command('replay')
      .summary('re-enqueue a failed delivery')
      .description(
        'Ask a host’s management API (POST /deliveries/:id/replay) to give a failed delivery one more attempt; the attempt counter continues. Only a failed delivery can be replayed: another answers 409 delivery_not_replayable (exit 4).',
      )
      .argument('<deliveryId>', 'the delivery id (the webhookId without its whdel_ prefix)'),
  )
    .addHelpText(
      'after',
      `
Example:
  $ svc-webhooks replay 0192f0c4-5a1e-7c3b-9d2e-3f4a5b6c7d8e --api "$API" --token "$TOKEN"`,
    )
    .action(async (deliveryId: string, options: ManagementOptions) => {
      const client = managementClient(options, context);
      const id = deliveryId.replace(/^whdel_/, '');
      const { body } = await client.call('POST', `/deliveries/${encodeURIComponent(id)}/replay`);
      if (context.json()) writeJson(context.io, body);
      else context.io.stdout(`${String(body.message)} (${String(body.deliveryId)})\n`);
    });
}
