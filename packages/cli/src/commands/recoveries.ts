import { InvalidOptionError } from '@svc/webhooks-core';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { ManagementApiError, PACKAGE_NAME } from '../exit-codes';
import { writeJson } from '../io';
import { parseCount } from '../values';
import { type ManagementOptions, managementClient, withManagementOptions } from './management-options';

/*
 * GET /recoveries?limit=&cursor= answers { recoveries: Recovery[], nextCursor: string | null }, newest
 * first, each as GET /recoveries/:id answers it (design §5.3 and the router's OpenAPI document).
 */

interface RecoveriesOptions extends ManagementOptions {
  limit: number;
  cursor?: string;
}

/** The fields of a listed recovery this command prints. */
interface ListedRecovery {
  id: string;
  status: string;
  matched: number;
  replayed: number;
  since: number;
  until: number;
  eventTypes: string[] | null;
  createdAt: number;
}

const MAX_LIMIT = 100;

/** `svc-webhooks recoveries`: the agency's bulk recoveries, newest first. */
export function registerRecoveriesCommand(program: Command, context: CommandContext): void {
  withManagementOptions(
    program
      .command('recoveries')
      .summary('list the bulk recoveries, newest first')
      .description(
        'List the agency’s bulk recoveries of every status on a host’s management API (GET /recoveries), newest first: one line each with its id, status, how many it replayed of those it matched, its window and event types, and when it started. Prints the command for the next page when there is one.',
      )
      .option('--limit <n>', `most recoveries to list, 1 to ${MAX_LIMIT}`, parseLimit, 20)
      .option('--cursor <cursor>', 'continue after the previous page (its printed nextCursor)'),
  )
    .addHelpText(
      'after',
      `
Example:
  $ svc-webhooks recoveries --limit 5 --api "$API" --token "$TOKEN"`,
    )
    .action(async (options: RecoveriesOptions) => {
      const client = managementClient(options, context);
      const query = new URLSearchParams({ limit: String(options.limit) });
      if (options.cursor !== undefined) query.set('cursor', options.cursor);
      const { body } = await client.call('GET', `/recoveries?${query}`);
      if (context.json()) {
        writeJson(context.io, body);
        return;
      }
      const recoveries = readRecoveries(body);
      if (recoveries.length === 0 && options.cursor === undefined) {
        context.io.stdout('No bulk recovery has run for this agency.\n');
        return;
      }
      for (const recovery of recoveries) context.io.stdout(`${describe(recovery)}\n`);
      if (typeof body.nextCursor === 'string') {
        context.io.stdout(`More: svc-webhooks recoveries --cursor ${body.nextCursor}\n`);
      }
    });
}

function parseLimit(text: string): number {
  const limit = parseCount('limit', text);
  if (limit < 1 || limit > MAX_LIMIT) {
    throw new InvalidOptionError(PACKAGE_NAME, 'limit', `--limit takes 1 to ${MAX_LIMIT}; got ${limit}.`);
  }
  return limit;
}

function describe(recovery: ListedRecovery): string {
  const types = recovery.eventTypes === null ? 'all event types' : recovery.eventTypes.join(', ');
  return [
    recovery.id,
    recovery.status,
    `${recovery.replayed} of ${recovery.matched} replayed`,
    `${iso(recovery.since)} to ${iso(recovery.until)}`,
    types,
    `started ${iso(recovery.createdAt)}`,
  ].join('  ');
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

function readRecoveries(body: Record<string, unknown>): ListedRecovery[] {
  const { recoveries } = body;
  if (!Array.isArray(recoveries) || !recoveries.every(isListedRecovery)) {
    throw new ManagementApiError(
      'GET /recoveries answered without a valid `recoveries` list; does the host serve the recovery list?',
      { status: 200, code: null },
    );
  }
  return recoveries;
}

function isListedRecovery(value: unknown): value is ListedRecovery {
  const recovery = value as Partial<ListedRecovery> | null;
  return (
    typeof recovery === 'object' &&
    recovery !== null &&
    typeof recovery.id === 'string' &&
    typeof recovery.status === 'string' &&
    ['matched', 'replayed', 'since', 'until', 'createdAt'].every(
      (field) => typeof (recovery as Record<string, unknown>)[field] === 'number',
    ) &&
    (recovery.eventTypes === null || Array.isArray(recovery.eventTypes))
  );
}
