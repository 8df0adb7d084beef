import { type Command, Option } from 'commander';
import type { CommandContext } from '../command-context';
import { parseHttpUrl } from '../http-client';
import { createManagementApiClient, type ManagementApiClient } from '../management-api';
import { parseCount, readCa } from '../values';

/** The options every command that calls a host's management API takes. */
export interface ManagementOptions {
  api: string;
  token: string;
  ca?: string;
  timeout: number;
}

/** Adds `--api`, `--token`, `--ca` and `--timeout` to a command. */
export function withManagementOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--api <url>',
        'the management API with its mount path, e.g. https://api.example.com/v1/agency/webhooks',
      )
        .env('SVC_WEBHOOKS_API')
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--token <token>',
        'an agent token of role owner or admin, sent as authorization: Bearer <token>',
      )
        .env('SVC_WEBHOOKS_TOKEN')
        .makeOptionMandatory(),
    )
    .option('--ca <file>', 'PEM certificate(s) to trust for an https host with its own certificate')
    .option(
      '--timeout <ms>',
      'how long to wait for each answer',
      (text) => parseCount('timeout', text),
      30_000,
    );
}

/** The client for a command's management options. */
export function managementClient(options: ManagementOptions, context: CommandContext): ManagementApiClient {
  const ca = readCa(options.ca, context.io.cwd);
  return createManagementApiClient({
    api: parseHttpUrl(options.api, 'api'),
    token: options.token,
    timeoutMs: options.timeout,
    ...(ca === undefined ? {} : { ca }),
  });
}
