import type { DeliveryExpectation, DeliveryRecord, DeliveryUpdate } from '@svc/webhooks-core';
import { CallBatcher } from '@svc/webhooks-core/adapter-kit';
import type { RedisClient } from '../connection/connection';
import { type ReplicaWait, writeDurably } from '../connection/replica-wait';
import { unexpectedReply } from '../errors';
import { queueScriptKeys, type RedisStoreKeyNames } from '../key-names';
import type { QueueHandOff } from '../linked/queue-hand-off';
import type { RedisLink } from '../linked/redis-link';
import { applyUpdate, attemptArgs, ownUpdate } from './store-codec';
import { updateDeliveriesLinkedScript, updateDeliveriesScript } from './store-scripts';

/** Most compare-and-sets in one script: a few milliseconds of Redis time at the most. */
const BATCH_LIMIT = 100;

interface UpdateCall {
  deliveryId: string;
  expected: DeliveryExpectation;
  update: DeliveryUpdate;
}

/**
 * The store's `updateDelivery`. The compare-and-sets that a worker's attempts and a recovery's
 * replays make within one turn of the event loop go to Redis as one script (see CallBatcher): its
 * per-call work, not the data, is what a busy worker pays for, and a recovery walk replaying a page
 * at once otherwise takes that much from the deliveries running beside it. A batch never holds one
 * delivery twice, so each update still sees the one before it.
 */
export function createDeliveryUpdater(
  client: RedisClient,
  keys: RedisStoreKeyNames,
  link: RedisLink | undefined,
  durability: ReplicaWait | null,
): (
  deliveryId: string,
  expected: DeliveryExpectation,
  update: DeliveryUpdate,
) => Promise<DeliveryRecord | null> {
  const script = link ? updateDeliveriesLinkedScript : updateDeliveriesScript;
  const scriptKeys = [keys.pending, keys.finished, ...(link ? queueScriptKeys(link.queueKeys) : [])];
  const queueArgs = link ? [link.queueKeys.base, link.queueKeys.wakeChannel] : ['', ''];
  const batcher = new CallBatcher<UpdateCall, DeliveryRecord | null>(
    async (calls) => {
      const owns = calls.map(({ update }) => ownUpdate(update));
      const args = calls.flatMap(({ deliveryId, expected, update }, index) => [
        deliveryId,
        expected.status,
        expected.attempt,
        update.status,
        update.attempt,
        JSON.stringify(owns[index]),
        update.nextRetryAt ?? '',
        ...attemptArgs(update.recordedAttempt),
      ]);
      const replies = await writeDurably(client, durability, () =>
        script.run(client, scriptKeys, [keys.base, ...queueArgs, ...args]),
      );
      if (!Array.isArray(replies) || replies.length !== calls.length) {
        throw unexpectedReply('updateDelivery', replies);
      }
      return replies.map((reply, index) => {
        if (reply === null) return null;
        const saved = applyUpdate(String(reply), owns[index] as DeliveryUpdate);
        if (link) noteQueueChange(link.handOff, saved);
        return saved;
      });
    },
    { maxBatch: BATCH_LIMIT, keyOf: (call) => call.deliveryId },
  );
  return (deliveryId, expected, update) => batcher.call({ deliveryId, expected, update });
}

/** What a linked update script did to the queue entry, for the queue's next call on it. */
function noteQueueChange(handOff: QueueHandOff, saved: DeliveryRecord): void {
  if (saved.status !== 'pending') handOff.note(saved.id, { kind: 'removed' });
  else if (saved.nextRetryAt !== null) {
    handOff.note(saved.id, { kind: 'enqueued', agencyId: saved.agencyId, runAt: saved.nextRetryAt });
  }
}
