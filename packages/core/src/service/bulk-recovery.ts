import type { DeliveryRecord, DeliveryStatus } from '../delivery/delivery';
import {
  type ListRecoveriesQuery,
  listRecoveriesQuerySchema,
  newRecoveryRecord,
  type RecoverDeliveriesBody,
  type Recovery,
  type RecoveryDryRun,
  type RecoveryList,
  type RecoveryRecord,
  type RecoveryStarted,
  recoverDeliveriesBodySchema,
  toRecoveryView,
} from '../delivery/recovery';
import {
  RecoveryInProgressError,
  RecoveryNotFoundError,
  RecoveryNotRunningError,
  type ValidationIssue,
  WebhookValidationError,
} from '../errors';
import type { EventCatalogue } from '../events/event-catalogue';
import { newId } from '../ids';
import { parseWithSchema } from '../validation';
import { probeAgencyNow } from './circuit-access';
import type { Engine } from './engine';
import { decodeListCursor, toListPage } from './list-cursor';

/** Rows read per page when counting a recovery's window on a store that cannot count. */
const COUNT_PAGE = 1_000;

/** What selects a recovery's deliveries: the agency, the creation window, the event types. */
export type RecoveryWindow = Pick<RecoveryRecord, 'agencyId' | 'since' | 'until' | 'eventTypes'>;

/**
 * One page of the window's deliveries of one event type (`undefined`: every type),
 * newest first, sorting before `beforeId` when given; only those with `status` when given.
 */
export function listWindowPage(
  engine: Engine,
  window: RecoveryWindow,
  page: { eventType: string | undefined; beforeId: string | null; limit: number; status?: DeliveryStatus },
): Promise<DeliveryRecord[]> {
  return engine.store.listDeliveries(window.agencyId, {
    status: page.status,
    eventType: page.eventType,
    createdSince: window.since,
    createdBefore: window.until,
    beforeId: page.beforeId ?? undefined,
    limit: page.limit,
  });
}

/** How many of the window's deliveries are failed now: the store's own count when it has one. */
async function countFailed(engine: Engine, window: RecoveryWindow): Promise<number> {
  const { store } = engine;
  if (!store.countDeliveries) return countFailedByPaging(engine, window);
  let matched = 0;
  for (const eventType of window.eventTypes ?? [undefined]) {
    matched += await store.countDeliveries(window.agencyId, {
      status: 'failed',
      eventType,
      createdSince: window.since,
      createdBefore: window.until,
    });
  }
  return matched;
}

/**
 * The count of a store without `countDeliveries`: a walk of the same pages a
 * recovery replays, which reads every matching record.
 */
async function countFailedByPaging(engine: Engine, window: RecoveryWindow): Promise<number> {
  let matched = 0;
  for (const eventType of window.eventTypes ?? [undefined]) {
    let beforeId: string | null = null;
    for (;;) {
      const rows = await listWindowPage(engine, window, {
        eventType,
        beforeId,
        limit: COUNT_PAGE,
        status: 'failed',
      });
      matched += rows.length;
      if (rows.length < COUNT_PAGE) break;
      beforeId = rows[rows.length - 1]!.id;
    }
  }
  return matched;
}

/**
 * Refuses the event types the service's catalogue does not have, every one named at
 * its place in the request (`eventTypes.1`). The catalogue is the one PUT /config
 * checks subscriptions against (built-in types and the host's own), so a recovery
 * can name exactly the types a configuration can subscribe to. Without this a typo
 * would count nothing and start a recovery of nothing, looking like success.
 * @throws WebhookValidationError (`validation_failed`)
 */
function assertKnownRecoveryTypes(events: EventCatalogue, eventTypes: readonly string[] | undefined): void {
  const issues: ValidationIssue[] = [];
  const unknown = new Set<string>();
  eventTypes?.forEach((type, index) => {
    if (events.has(type)) return;
    issues.push({ path: `eventTypes.${index}`, message: `Unknown event type "${type}"` });
    unknown.add(type);
  });
  if (issues.length === 0) return;
  const named = [...unknown].map((type) => `"${type}"`).join(', ');
  throw new WebhookValidationError(
    `Invalid recovery request at "${issues[0]!.path}": unknown event type${unknown.size === 1 ? '' : 's'} ${named}. ` +
      'GET /event-types lists the event types this service knows; leave eventTypes out to recover every type.',
    issues,
  );
}

/**
 * POST /deliveries/recover: counts the agency's failed deliveries in the window and,
 * unless a dry run, stores a running recovery that the workers walk. The request is
 * checked first, so an invalid one is refused in any state and uses none of the
 * agency's `recoveryLimit`; a valid one takes its share before any count is made.
 * @throws WebhookValidationError, RateLimitedError, RecoveryInProgressError (nothing stored)
 */
export async function startRecovery(
  engine: Engine,
  agencyId: string,
  body: RecoverDeliveriesBody,
): Promise<RecoveryDryRun | RecoveryStarted> {
  const parsed = parseWithSchema(recoverDeliveriesBodySchema, body, 'recovery request');
  assertKnownRecoveryTypes(engine.events, parsed.eventTypes);
  const now = engine.clock();
  engine.takeRecovery(agencyId, now);
  const window: RecoveryWindow = {
    agencyId,
    since: parsed.since,
    // Later than the request: deliveries created while it runs are not the outage being recovered.
    until: parsed.until ?? now,
    eventTypes: parsed.eventTypes === undefined ? null : [...new Set(parsed.eventTypes)],
  };
  if (window.until < window.since) {
    // `until` defaulted to now and `since` is in the future: the window is empty.
    window.until = window.since;
  }
  const matched = await countFailed(engine, window);
  if (parsed.dryRun) return { matched };
  const { recovery, created } = await engine.store.createRecovery(
    newRecoveryRecord({ id: newId(), ...window, matched, now }),
  );
  if (!created) throw new RecoveryInProgressError(recovery.id);
  await probeAgencyNow(engine, agencyId);
  for (const listener of engine.recoveryListeners) listener();
  return { recoveryId: recovery.id, matched };
}

/**
 * The agency's recovery with this id.
 * @throws RecoveryNotFoundError for an unknown id, and exactly so for another agency's
 */
export async function requireRecovery(
  engine: Engine,
  agencyId: string,
  recoveryId: string,
): Promise<RecoveryRecord> {
  const record = await engine.store.getRecovery(recoveryId);
  if (!record || record.agencyId !== agencyId) throw new RecoveryNotFoundError(recoveryId);
  return record;
}

/** GET /recoveries/:id. @throws RecoveryNotFoundError */
export async function getRecovery(engine: Engine, agencyId: string, recoveryId: string): Promise<Recovery> {
  return toRecoveryView(await requireRecovery(engine, agencyId, recoveryId));
}

/** GET /recoveries: the agency's recoveries of every status, newest first. @throws WebhookValidationError */
export async function listRecoveries(
  engine: Engine,
  agencyId: string,
  query: ListRecoveriesQuery | undefined,
): Promise<RecoveryList> {
  const { limit, cursor } = parseWithSchema(listRecoveriesQuerySchema, query ?? {}, 'recovery list query');
  const beforeId = cursor === undefined ? undefined : decodeListCursor(cursor);
  const rows = await engine.store.listRecoveries(agencyId, { limit: limit + 1, beforeId });
  const { items, nextCursor } = toListPage(rows, limit, toRecoveryView);
  return { recoveries: items, nextCursor };
}

/**
 * POST /recoveries/:id/cancel: stops the walk; replays made already stay. Cancelling a
 * cancelled recovery answers it as it is.
 * @throws RecoveryNotFoundError, RecoveryNotRunningError (it completed)
 */
export async function cancelRecovery(
  engine: Engine,
  agencyId: string,
  recoveryId: string,
): Promise<Recovery> {
  for (;;) {
    const current = await requireRecovery(engine, agencyId, recoveryId);
    if (current.status === 'cancelled') return toRecoveryView(current);
    if (current.status !== 'running') throw new RecoveryNotRunningError(recoveryId, current.status);
    const cancelled = await engine.store.updateRecovery(recoveryId, current.version, {
      status: 'cancelled',
      completedAt: engine.clock(),
      leaseUntil: null,
    });
    if (cancelled) return toRecoveryView(cancelled);
    // A worker wrote its page in between: read again and cancel that.
  }
}
