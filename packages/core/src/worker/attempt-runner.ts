import type { Claim } from '../adapters/queue';
import type { WebhookConfigRecord } from '../config/config';
import type { AttemptOutcome } from '../delivery/attempt-outcome';
import type { DeliveryRecord } from '../delivery/delivery';
import { buildEnvelope } from '../delivery/envelope';
import { abandonUpdate, applyAttemptOutcome } from '../delivery/state-machine';
import { callHook } from '../observability/hooks';
import type { Engine } from '../service/engine';
import { buildSignedDelivery } from '../transport/signed-request';
import { disableGoneReceiver, isReceiverGone } from './endpoint-disable';

/**
 * Handles one claimed queue entry from start to finish: reconcile it with the
 * store, send one attempt, record it (compare-and-set on the attempt number),
 * then ack or reschedule the entry.
 *
 * The store is the source of truth and the queue only says "look at this one
 * now". That is why a stale entry (left by a crash between the store write and
 * the queue write, or duplicated by a recovery sweep) is harmless: it is
 * reconciled against the record before anything is sent.
 *
 * Returns the attempt's outcome, or null when no request was made. `read` is the
 * record when the caller has just read it (the store is then not asked again).
 */
export async function runClaim(
  engine: Engine,
  claim: Claim,
  claimedAt: number,
  read?: DeliveryRecord | null,
): Promise<AttemptOutcome | null> {
  const record = read === undefined ? await engine.store.getDelivery(claim.deliveryId) : read;
  if (record?.status !== 'pending') {
    await engine.queue.ack(claim);
    return null;
  }
  if (record.nextRetryAt !== null && record.nextRetryAt > claimedAt) {
    await engine.queue.reschedule(claim, record.nextRetryAt);
    return null;
  }
  const config = await engine.store.getConfig(record.agencyId);
  if (!config?.enabled) {
    const reason = config ? 'config_disabled' : 'config_deleted';
    const saved = await compareAndSet(engine, record, abandonUpdate(record, reason, engine.clock()));
    if (saved) callHook(engine.hooks.onFailed, saved);
    await settle(engine, claim, saved);
    return null;
  }
  const sentAt = engine.clock();
  const envelope = buildEnvelope(record, record.attempt + 1, sentAt);
  const outcome = await engine.transport.send(buildSignedDelivery(config.webhookUrl, envelope, config), {
    agencyId: record.agencyId,
  });
  const saved = await compareAndSet(
    engine,
    record,
    applyAttemptOutcome(record, outcome, sentAt, engine.retry, engine.random),
  );
  if (saved) {
    // The event object is built only when someone listens: this runs once per attempt.
    if (engine.hooks.onAttempt) {
      callHook(engine.hooks.onAttempt, {
        delivery: saved,
        outcome,
        claimedAt,
        runAt: claim.runAt,
        startedAt: sentAt,
      });
    }
    if (saved.status === 'success') callHook(engine.hooks.onDelivered, saved);
    if (saved.status === 'failed') callHook(engine.hooks.onFailed, saved);
    if (isReceiverGone(config, outcome.statusCode)) await stopForGoneReceiver(engine, config, saved, sentAt);
  }
  await settle(engine, claim, saved);
  return outcome;
}

/**
 * A `410 Gone` under a Standard Webhooks scheme: the attempt is recorded as
 * failed like any other, and the configuration is disabled (`receiver_gone`),
 * so this delivery's next attempt and every other pending one end without a
 * request. Before the queue entry is settled, so no retry races the disable.
 * A store error here is reported and does not keep the entry from settling.
 */
async function stopForGoneReceiver(
  engine: Engine,
  config: WebhookConfigRecord,
  saved: DeliveryRecord,
  sentAt: number,
): Promise<void> {
  try {
    const deps = { store: engine.store, hooks: engine.hooks, circuit: engine.circuit !== null };
    await disableGoneReceiver(deps, config, sentAt);
  } catch (error) {
    callHook(engine.hooks.onError, error, { stage: 'attempt', deliveryId: saved.id });
  }
}

function compareAndSet(
  engine: Engine,
  record: DeliveryRecord,
  update: Parameters<Engine['store']['updateDelivery']>[2],
): Promise<DeliveryRecord | null> {
  return engine.store.updateDelivery(record.id, { attempt: record.attempt, status: record.status }, update);
}

/**
 * Brings the queue entry in line with the record. When our compare-and-set lost
 * (another worker recorded this attempt first, after our lease had lapsed), the
 * record is read again so the entry follows whatever that worker decided.
 *
 * Not async on the common path: it hands back the queue call's own promise.
 */
function settle(engine: Engine, claim: Claim, saved: DeliveryRecord | null): Promise<unknown> {
  return saved ? followRecord(engine, claim, saved) : settleAfterLostRace(engine, claim);
}

async function settleAfterLostRace(engine: Engine, claim: Claim): Promise<unknown> {
  return await followRecord(engine, claim, await engine.store.getDelivery(claim.deliveryId));
}

function followRecord(engine: Engine, claim: Claim, current: DeliveryRecord | null): Promise<boolean> {
  return current?.status === 'pending' && current.nextRetryAt !== null
    ? engine.queue.reschedule(claim, current.nextRetryAt)
    : engine.queue.ack(claim);
}
