import { DeliveryNotReplayableError } from '../errors';
import type { AttemptErrorKind, AttemptOutcome } from './attempt-outcome';
import type { AttemptRecord, ReplayTrigger } from './attempt-record';
import type { DeliveryRecord, DeliveryUpdate } from './delivery';
import { type RetryPolicy, retryDelayMs } from './retry-policy';

/*
 * The delivery state machine as pure functions of (record, input, now, policy):
 * no I/O and no clock, so every transition is a table row in the tests. Callers
 * persist the returned update with a compare-and-set on the record's `attempt`
 * and `status`, which is what makes each transition happen once.
 *
 *   pending --2xx--> success
 *   pending --fail, attempts left--> pending (nextRetryAt set)
 *   pending --fail, last attempt--> failed
 *   pending --config disabled/deleted--> failed (no attempt counted)
 *   pending --sender busy--> pending, due again shortly (nothing was sent: no attempt counted)
 *   failed --replay--> pending (exactly one more attempt)
 */

/** Why a delivery was given up without sending it. */
export type AbandonReason = 'config_deleted' | 'config_disabled';

const ABANDON_MESSAGES: Record<AbandonReason, string> = {
  config_deleted: 'Webhook configuration was deleted; no request was sent.',
  config_disabled: 'Webhook configuration is disabled; no request was sent.',
};

const FALLBACK_ERROR_MESSAGES: Record<AttemptErrorKind, string> = {
  http_status: 'The receiver did not answer with a 2xx status.',
  timeout: 'The receiver did not answer in time.',
  dns: 'The webhook URL’s hostname did not resolve.',
  private_address: 'The webhook URL resolved to a non-public address; no request was sent.',
  connect: 'Could not connect to the receiver.',
  tls: 'The TLS handshake with the receiver failed.',
  sender_busy: 'The sender was too busy to send the request in time; the receiver was not at fault.',
};

/**
 * How soon a delivery the sender was too busy to send (`sender_busy`) is due again, in ms:
 * the receiver was never asked, so its retry schedule does not apply.
 */
export const SENDER_BUSY_RETRY_MS = 1_000;

/** The failure text stored as `lastErrorMessage`; the transport's when it gave one. */
function failureMessage(outcome: AttemptOutcome): string {
  if (outcome.errorMessage) return outcome.errorMessage;
  if (outcome.errorKind === 'http_status' && outcome.statusCode !== null) {
    return `The receiver answered HTTP ${outcome.statusCode}.`;
  }
  return outcome.errorKind ? FALLBACK_ERROR_MESSAGES[outcome.errorKind] : 'The attempt failed.';
}

/**
 * The record's next state after an attempt with `outcome` made at `now`.
 *
 * A 2xx makes it `success`. A failure (non-2xx, redirect, timeout, DNS, connect,
 * TLS, private address) counts as an attempt: with attempts left it stays
 * `pending` and is due again after {@link retryDelayMs}; on the last one
 * (`attempt >= record.maxAttempts`) it becomes `failed`. The record's own
 * `maxAttempts` decides, not the policy's, so a replayed delivery gets exactly
 * the one extra attempt it was given.
 *
 * The update carries the attempt as the history records it (`recordedAttempt`),
 * counted as the record's `nextAttemptTrigger` said; the next one is `automatic`.
 *
 * @param random - jitter source in [0, 1); defaults to `Math.random`, inject a fixed one in tests.
 */
export function applyAttemptOutcome(
  record: DeliveryRecord,
  outcome: AttemptOutcome,
  now: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): DeliveryUpdate {
  if (outcome.errorKind === 'sender_busy') return senderBusyUpdate(record, outcome, now);
  const attempt = record.attempt + 1;
  const failed = !outcome.ok;
  const attemptsLeft = failed && attempt < record.maxAttempts;
  const errorMessage = failed ? failureMessage(outcome) : null;
  // Every field of the update is named, so a field added to DeliveryUpdate cannot be left out unnoticed.
  return {
    status: outcome.ok ? 'success' : attemptsLeft ? 'pending' : 'failed',
    attempt,
    maxAttempts: record.maxAttempts,
    nextRetryAt: attemptsLeft ? now + retryDelayMs(attempt, outcome, policy, random) : null,
    lastAttemptAt: now,
    deliveredAt: outcome.ok ? now : record.deliveredAt,
    lastResponseCode: outcome.statusCode,
    lastErrorMessage: errorMessage,
    lastResponseExcerpt: outcome.responseExcerpt,
    nextAttemptTrigger: 'automatic',
    recordedAttempt: attemptRecord(record, outcome, now, errorMessage),
  };
}

/**
 * Our own process held the request past `transport.localWaitMs` and never sent it:
 * no attempt is spent and none is recorded in the history, the trigger is kept for
 * the attempt still to come, and the delivery is due again in
 * {@link SENDER_BUSY_RETRY_MS}. `lastErrorMessage` says why it waits.
 */
function senderBusyUpdate(record: DeliveryRecord, outcome: AttemptOutcome, now: number): DeliveryUpdate {
  return {
    status: 'pending',
    attempt: record.attempt,
    maxAttempts: record.maxAttempts,
    nextRetryAt: now + SENDER_BUSY_RETRY_MS,
    lastAttemptAt: record.lastAttemptAt,
    deliveredAt: record.deliveredAt,
    lastResponseCode: record.lastResponseCode,
    lastErrorMessage: failureMessage(outcome),
    lastResponseExcerpt: record.lastResponseExcerpt,
    nextAttemptTrigger: record.nextAttemptTrigger,
  };
}

/** The attempt as the history keeps it: the same texts the record's `last*` fields get. */
function attemptRecord(
  record: DeliveryRecord,
  outcome: AttemptOutcome,
  now: number,
  errorMessage: string | null,
): AttemptRecord {
  return {
    attempt: record.attempt + 1,
    trigger: record.nextAttemptTrigger,
    startedAt: now,
    // Whole ms, as the history stores them; the transport already rounds, a custom one may not.
    durationMs: Math.max(0, Math.round(outcome.durationMs)),
    responseCode: outcome.statusCode,
    errorKind: outcome.errorKind,
    errorMessage,
    responseExcerpt: outcome.responseExcerpt,
  };
}

/** True when the delivery can be replayed: only a `failed` one can. */
export function canReplay(record: DeliveryRecord): boolean {
  return record.status === 'failed';
}

/**
 * The update a replay writes: `pending`, due `now`, with exactly one more attempt
 * (`maxAttempts = attempt + 1`). The attempt counter continues (5 → the replayed
 * attempt is 6) and the last attempt's fields are kept until that attempt is made.
 * That attempt is recorded with `trigger` (`replay` for a manual replay,
 * `recovery` when a bulk recovery asked for it).
 *
 * @throws `DeliveryNotReplayableError` (from the main entry) when the delivery is not `failed`.
 */
export function replayUpdate(
  record: DeliveryRecord,
  now: number,
  trigger: ReplayTrigger = 'replay',
): DeliveryUpdate {
  if (!canReplay(record)) throw new DeliveryNotReplayableError(record.id, record.status);
  return {
    status: 'pending',
    attempt: record.attempt,
    maxAttempts: record.attempt + 1,
    nextRetryAt: now,
    lastAttemptAt: record.lastAttemptAt,
    deliveredAt: record.deliveredAt,
    lastResponseCode: record.lastResponseCode,
    lastErrorMessage: record.lastErrorMessage,
    lastResponseExcerpt: record.lastResponseExcerpt,
    nextAttemptTrigger: trigger,
  };
}

/**
 * The update that gives a delivery up because its configuration was disabled or
 * deleted before the attempt: `failed`, no retry scheduled, `lastErrorMessage`
 * saying why. No request was sent, so the attempt counter, the last attempt's
 * fields and the history are left as they were (a replay after re-enabling sends it).
 *
 * @param _now - epoch ms of the decision; accepted so every transition has the
 * same inputs, unused because giving up records no attempt time.
 */
export function abandonUpdate(record: DeliveryRecord, reason: AbandonReason, _now: number): DeliveryUpdate {
  return {
    status: 'failed',
    attempt: record.attempt,
    maxAttempts: record.maxAttempts,
    nextRetryAt: null,
    lastAttemptAt: record.lastAttemptAt,
    deliveredAt: record.deliveredAt,
    lastResponseCode: record.lastResponseCode,
    lastErrorMessage: ABANDON_MESSAGES[reason],
    lastResponseExcerpt: record.lastResponseExcerpt,
    nextAttemptTrigger: record.nextAttemptTrigger,
  };
}
