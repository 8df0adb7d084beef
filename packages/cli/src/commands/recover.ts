import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context';
import { EXIT_CODES, ManagementApiError } from '../exit-codes';
import { writeJson } from '../io';
import type { ManagementApiClient } from '../management-api';
import { createProgressReporter } from '../progress';
import { collect, parseCount, parseTime } from '../values';
import { type ManagementOptions, managementClient, withManagementOptions } from './management-options';

/*
 * Bulk recovery against the contract of the design (§5.3): POST /deliveries/recover with
 * { since, until?, eventTypes?, dryRun? } answers 200 { matched } for a dry run, else 202
 * { recoveryId, matched }; GET /recoveries/:id answers { id, status: running | completed | cancelled,
 * matched, replayed, … }. The host must serve those endpoints.
 */

interface RecoverOptions extends ManagementOptions {
  since: string;
  until?: string;
  eventType: string[];
  dryRun?: boolean;
  wait: boolean;
  interval: number;
}

/** A recovery as GET /recoveries/:id answers it (the fields this command reads). */
interface Recovery {
  id: string;
  status: string;
  matched: number;
  replayed: number;
}

/** `svc-webhooks recover`: replays an agency's failed deliveries of a time window, with progress. */
export function registerRecoverCommand(program: Command, context: CommandContext): void {
  withManagementOptions(
    program
      .command('recover')
      .summary('replay the failed deliveries of a time window, with progress')
      .description(
        'Start a bulk recovery on a host’s management API (POST /deliveries/recover): every failed delivery created in the window gets one more attempt. Shows progress until it completes (GET /recoveries/:id). The host must serve the bulk-recovery endpoints. Exits 1 when the recovery is cancelled.',
      )
      .requiredOption(
        '--since <time>',
        'start of the window: epoch ms, an ISO date, or a duration ago (24h, 7d)',
      )
      .option('--until <time>', 'end of the window, same forms (default: now)')
      .option('--event-type <type>', 'only this event type (repeatable)', collect, [])
      .option('--dry-run', 'only count the deliveries that would be replayed')
      .option('--no-wait', 'start the recovery and return without following it')
      .option(
        '--interval <ms>',
        'how often to ask for progress',
        (text) => parseCount('interval', text),
        1000,
      ),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ svc-webhooks recover --since 24h --dry-run --api "$API" --token "$TOKEN"
  $ svc-webhooks recover --since 2026-01-01T08:00:00Z --until 2026-01-01T12:00:00Z --event-type job_created`,
    )
    .action(async (options: RecoverOptions) => {
      const now = context.now();
      const request = {
        since: parseTime('since', options.since, now),
        ...(options.until === undefined ? {} : { until: parseTime('until', options.until, now) }),
        ...(options.eventType.length === 0 ? {} : { eventTypes: options.eventType }),
        ...(options.dryRun ? { dryRun: true } : {}),
      };
      const client = managementClient(options, context);
      const started = await startRecovery(client, request);
      const matched = numberField(started, 'matched');
      if (options.dryRun) {
        if (context.json()) writeJson(context.io, { matched });
        else
          context.io.stdout(
            `${matched} failed deliveries match. Run again without --dry-run to replay them.\n`,
          );
        return;
      }
      const recoveryId = String(started.recoveryId);
      if (!options.wait) {
        if (context.json()) writeJson(context.io, { recoveryId, matched });
        else context.io.stdout(`Recovery ${recoveryId} started: ${matched} failed deliveries to replay.\n`);
        return;
      }
      if (!context.json())
        context.io.stdout(`Recovery ${recoveryId} started: ${matched} failed deliveries to replay.\n`);
      const recovery = await follow(client, recoveryId, options.interval, context);
      if (recovery.status !== 'completed') context.exit(EXIT_CODES.rejected);
      if (context.json()) writeJson(context.io, recovery);
      else
        context.io.stdout(
          `Recovery ${recovery.id} ${recovery.status}: ${recovery.replayed} of ${recovery.matched} replayed.\n`,
        );
    });
}

const MISSING_ENDPOINT_CODES = new Set(['not_found', 'method_not_allowed']);

async function startRecovery(client: ManagementApiClient, request: object): Promise<Record<string, unknown>> {
  try {
    return (await client.call('POST', '/deliveries/recover', request)).body;
  } catch (error) {
    // A host without the endpoints answers 404, or 405 when its POST /deliveries/:id route catches the path.
    if (error instanceof ManagementApiError && MISSING_ENDPOINT_CODES.has(error.details.code ?? '')) {
      throw new ManagementApiError(
        `${error.message.replace(/^@svc\/webhooks-cli: /, '')} This host does not serve the bulk-recovery endpoints (POST /deliveries/recover, GET /recoveries/:id); replay deliveries one by one with \`svc-webhooks replay <id>\`.`,
        error.details,
      );
    }
    throw error;
  }
}

/** Polls the recovery until it is no longer running, drawing its progress. */
async function follow(
  client: ManagementApiClient,
  recoveryId: string,
  intervalMs: number,
  context: CommandContext,
): Promise<Recovery> {
  // Raw streams: the bar is redrawn with `\r`, which the filtered ones would show as text. It holds only
  // numbers and our label.
  const progress = createProgressReporter(context.rawIo, { json: context.json(), label: 'replayed' });
  try {
    for (;;) {
      const { body } = await client.call('GET', `/recoveries/${encodeURIComponent(recoveryId)}`);
      const recovery = readRecovery(body);
      progress.update(recovery.replayed, recovery.matched);
      if (recovery.status !== 'running') return recovery;
      await sleep(intervalMs);
    }
  } finally {
    progress.finish();
  }
}

function readRecovery(body: Record<string, unknown>): Recovery {
  if (typeof body.status !== 'string') throw unexpected('GET /recoveries/:id', 'status');
  return {
    id: String(body.id),
    status: body.status,
    matched: numberField(body, 'matched'),
    replayed: numberField(body, 'replayed'),
  };
}

function numberField(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (typeof value !== 'number') throw unexpected('the recovery endpoint', field);
  return value;
}

function unexpected(where: string, field: string): ManagementApiError {
  return new ManagementApiError(
    `${where} answered without a valid \`${field}\`; does the host implement bulk recovery?`,
    {
      status: 200,
      code: null,
    },
  );
}
