import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { EXIT_CODES } from '../exit-codes';
import { writeJson } from '../io';
import { type ManagementOptions, managementClient, withManagementOptions } from './management-options';

interface TestOptions extends ManagementOptions {
  eventType?: string;
}

/** `svc-webhooks test`: POST /config/test on a host, optionally with an event type. */
export function registerTestCommand(program: Command, context: CommandContext): void {
  withManagementOptions(
    program
      .command('test')
      .summary('have the host send a test event to the agency’s endpoint')
      .description(
        'Ask a host’s management API (POST /config/test) to send a signed test event to the agency’s configured URL now, and print what the receiver answered. Without --event-type it sends webhook_test; with it, that event type’s example (the configuration must subscribe to it). Nothing is added to the delivery log. Exits 1 when the receiver did not accept it.',
      )
      .option('--event-type <type>', 'send this event type’s example instead of webhook_test'),
  )
    .addHelpText(
      'after',
      `
Example:
  $ svc-webhooks test --api https://api.example.com/v1/agency/webhooks --token "$TOKEN" --event-type job_created`,
    )
    .action(async (options: TestOptions) => {
      const client = managementClient(options, context);
      const body = options.eventType === undefined ? undefined : { eventType: options.eventType };
      const { body: result } = await client.call('POST', '/config/test', body);
      if (result.success !== true) context.exit(EXIT_CODES.rejected);
      if (context.json()) writeJson(context.io, result);
      else context.io.stdout(`${String(result.message)}\n`);
    });
}
