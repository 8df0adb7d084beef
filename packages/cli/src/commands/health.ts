import type { EndpointHealth } from '@svc/webhooks-core';
import { endpointHealthSchema } from '@svc/webhooks-core/schemas';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { writeJson } from '../io';
import { isoTime, readAnswer } from './answer-schema';
import { type ManagementOptions, managementClient, withManagementOptions } from './management-options';

/** `svc-webhooks health`: GET /config/health on a host. */
export function registerHealthCommand(program: Command, context: CommandContext): void {
  withManagementOptions(
    program
      .command('health')
      .summary('show the endpoint’s health, and until when it is paused')
      .description(
        'Show the agency’s endpoint health from a host’s management API (GET /config/health): healthy, failing or disabled, since when, and while its circuit breaker holds the deliveries, until when.',
      ),
  )
    .addHelpText(
      'after',
      `
Example:
  $ svc-webhooks health --api "$API" --token "$TOKEN"`,
    )
    .action(async (options: ManagementOptions) => {
      const client = managementClient(options, context);
      const { body } = await client.call('GET', '/config/health');
      const health = readAnswer(endpointHealthSchema, body, 'GET /config/health');
      if (context.json()) writeJson(context.io, health);
      else context.io.stdout(describeHealth(health));
    });
}

function describeHealth(health: EndpointHealth): string {
  const lines = [`${health.state}  ${health.consecutiveFailures} attempts in a row without a 2xx`];
  if (health.failingSince !== null) lines.push(`failing since: ${isoTime(health.failingSince)}`);
  if (health.pausedUntil !== null) {
    lines.push(
      `paused until: ${isoTime(health.pausedUntil)} (held deliveries go then, or at once after a test send that succeeds, a replay or a recovery)`,
    );
  }
  lines.push(
    `last success: ${isoTime(health.lastSuccessAt)}`,
    `last failure: ${isoTime(health.lastFailureAt)}`,
  );
  if (health.disabledReason !== null)
    lines.push(`disabled: ${health.disabledReason} at ${isoTime(health.disabledAt)}`);
  return `${lines.join('\n')}\n`;
}
