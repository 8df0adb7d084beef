import { z } from 'zod';
import { EVENT_TYPE_MAX_LENGTH, EVENT_TYPE_PATTERN } from '../events/event-definition';
import { listPageQueryFields } from './delivery';

/*
 * Bulk recovery: one more attempt for every failed delivery of an agency created
 * in a time window. A recovery is a stored record that workers walk page by page
 * (newest first, by id, per event type when types are given), so it survives a
 * restart and any worker process can take it over.
 */

/** Where a recovery stands. */
export const recoveryStatusSchema = z.enum(['running', 'completed', 'cancelled']).meta({
  description:
    '`running` while workers replay its deliveries; `completed` when the walk ended; `cancelled` when asked to stop (replays already made stay).',
});
export type RecoveryStatus = z.infer<typeof recoveryStatusSchema>;

const epochMs = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Most event types one recovery may name. */
export const RECOVERY_MAX_EVENT_TYPES = 100;

/**
 * Body of POST /deliveries/recover. `since` inclusive, `until` exclusive (epoch ms
 * on the delivery's creation, as the delivery list's filters); `until` defaults to
 * the time of the request. `since` after `until` is refused with issues at both.
 */
export const recoverDeliveriesBodySchema = z
  .strictObject({
    since: epochMs.meta({ description: 'Start of the creation window, epoch ms (inclusive).' }),
    until: epochMs
      .optional()
      .meta({ description: 'End of the creation window, epoch ms (exclusive); default: now.' }),
    eventTypes: z
      .array(
        z
          .string()
          .max(EVENT_TYPE_MAX_LENGTH)
          .regex(EVENT_TYPE_PATTERN, { error: 'Write an event type in snake_case, such as job_created.' }),
      )
      .min(1)
      .max(RECOVERY_MAX_EVENT_TYPES)
      .optional()
      .meta({
        description:
          'Only deliveries of these event types, each one the service knows (`GET /event-types`; any other is refused); duplicates are removed. Default: all.',
      }),
    dryRun: z
      .boolean()
      .optional()
      .meta({ description: 'Only count the matching failed deliveries; start nothing.' }),
  })
  .superRefine((body, ctx) => {
    if (body.until === undefined || body.since <= body.until) return;
    const message = `since (${body.since}) is after until (${body.until}): since is inclusive, until exclusive.`;
    ctx.addIssue({ code: 'custom', path: ['since'], message });
    ctx.addIssue({ code: 'custom', path: ['until'], message });
  })
  .meta({ id: 'RecoverDeliveriesBody' });
export type RecoverDeliveriesBody = z.input<typeof recoverDeliveriesBodySchema>;

/** Answer of a dry run: how many failed deliveries the window holds now. */
export const recoveryDryRunSchema = z
  .object({ matched: z.number().int().min(0) })
  .meta({ id: 'RecoveryDryRun' });
export type RecoveryDryRun = z.infer<typeof recoveryDryRunSchema>;

/** Answer of a started recovery. */
export const recoveryStartedSchema = z
  .object({
    recoveryId: z.string(),
    matched: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Failed deliveries in the window when the recovery started.' }),
  })
  .meta({ id: 'RecoveryStarted' });
export type RecoveryStarted = z.infer<typeof recoveryStartedSchema>;

/** A recovery as GET /recoveries/:id answers it. */
export const recoverySchema = z
  .object({
    id: z.string(),
    status: recoveryStatusSchema,
    matched: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Failed deliveries in the window when the recovery started.' }),
    replayed: z.number().int().min(0).meta({
      description:
        'Deliveries replayed so far. One that stopped being `failed` before the walk reached it (replayed by hand, say) is skipped, so a completed recovery may have replayed fewer than it matched.',
    }),
    since: epochMs,
    until: epochMs,
    eventTypes: z.array(z.string()).nullable().meta({ description: 'Null: every event type.' }),
    createdAt: epochMs,
    completedAt: epochMs.nullable().meta({ description: 'When it completed or was cancelled.' }),
  })
  .meta({ id: 'Recovery' });
export type Recovery = z.infer<typeof recoverySchema>;

/** Query of the recovery list: `limit` 1..100 (default 20) and the opaque `cursor`. */
export const listRecoveriesQuerySchema = z.strictObject({ ...listPageQueryFields });
export type ListRecoveriesQuery = z.input<typeof listRecoveriesQuerySchema>;

/** Response of the recovery list, newest first; `nextCursor` is null on the last page. */
export const recoveryListSchema = z
  .object({
    recoveries: z.array(recoverySchema),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: 'RecoveryList' });
export type RecoveryList = z.infer<typeof recoveryListSchema>;

/**
 * A recovery as the stores hold it. Besides the view's fields it keeps where the
 * walk is and who walks it.
 *
 * The walk goes through `eventTypes` one at a time (all types at once when null),
 * each newest first by delivery id. `cursorTypeIndex` and `cursorId` mark what is
 * done: every delivery of the type at that index sorting after `cursorId` (all of
 * them when null) has been handled, as have all types before it. `pageEndId` is
 * set while a page is being replayed, before the first replay of it is made: a
 * worker that takes over a recovery with a page open re-examines that page
 * instead of replaying it blindly, which is what keeps a crash mid-page from
 * replaying a delivery twice.
 */
export interface RecoveryRecord {
  id: string;
  agencyId: string;
  status: RecoveryStatus;
  since: number;
  until: number;
  /** Distinct event types in the order given, or null for all. */
  eventTypes: string[] | null;
  matched: number;
  replayed: number;
  cursorTypeIndex: number;
  cursorId: string | null;
  /** The last (oldest) delivery id of the page in progress; null between pages. */
  pageEndId: string | null;
  /** While a worker walks it: when that worker's hold ends (another may take over after). */
  leaseUntil: number | null;
  createdAt: number;
  completedAt: number | null;
  /** Increases by one on every write; starts at 1. */
  version: number;
}

/** The fields an update of a recovery may change. */
export type RecoveryUpdate = Partial<
  Pick<
    RecoveryRecord,
    'status' | 'replayed' | 'cursorTypeIndex' | 'cursorId' | 'pageEndId' | 'leaseUntil' | 'completedAt'
  >
>;

/** A new recovery's record, version 1, nothing walked yet. */
export function newRecoveryRecord(input: {
  id: string;
  agencyId: string;
  since: number;
  until: number;
  eventTypes: string[] | null;
  matched: number;
  now: number;
}): RecoveryRecord {
  return {
    id: input.id,
    agencyId: input.agencyId,
    since: input.since,
    until: input.until,
    eventTypes: input.eventTypes,
    matched: input.matched,
    status: 'running',
    replayed: 0,
    cursorTypeIndex: 0,
    cursorId: null,
    pageEndId: null,
    leaseUntil: null,
    createdAt: input.now,
    completedAt: null,
    version: 1,
  };
}

/** The API's view of a stored recovery. */
export function toRecoveryView(record: RecoveryRecord): Recovery {
  return {
    id: record.id,
    status: record.status,
    matched: record.matched,
    replayed: record.replayed,
    since: record.since,
    until: record.until,
    eventTypes: record.eventTypes === null ? null : [...record.eventTypes],
    createdAt: record.createdAt,
    completedAt: record.completedAt,
  };
}

/** The event type filter of the walk's current position; undefined: all types. */
export function cursorEventType(record: RecoveryRecord): string | undefined {
  return record.eventTypes === null ? undefined : record.eventTypes[record.cursorTypeIndex];
}

/** How many event-type walks the recovery has: one per type, or one over all types. */
export function walkCount(record: Pick<RecoveryRecord, 'eventTypes'>): number {
  return record.eventTypes === null ? 1 : record.eventTypes.length;
}

/** Applies an update to a record: the result a store's compare-and-set writes. */
export function applyRecoveryUpdate(record: RecoveryRecord, update: RecoveryUpdate): RecoveryRecord {
  const keep = <T>(value: T | undefined, current: T): T => (value === undefined ? current : value);
  return {
    ...record,
    status: keep(update.status, record.status),
    replayed: keep(update.replayed, record.replayed),
    cursorTypeIndex: keep(update.cursorTypeIndex, record.cursorTypeIndex),
    cursorId: keep(update.cursorId, record.cursorId),
    pageEndId: keep(update.pageEndId, record.pageEndId),
    leaseUntil: keep(update.leaseUntil, record.leaseUntil),
    completedAt: keep(update.completedAt, record.completedAt),
    version: record.version + 1,
  };
}
