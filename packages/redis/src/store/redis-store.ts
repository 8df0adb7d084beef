import type {
  AttemptRecord,
  CountDeliveriesFilter,
  DeliveryRecord,
  ListDeliveriesOptions,
  PurgeDeliveriesOptions,
  PurgeRecoveriesOptions,
  RecoveryPageOptions,
  RecoveryPageReplay,
  RecoveryRecord,
  StoreCapabilities,
  TransactionOptions,
  WebhookStore,
} from '@svc/webhooks-core';
import {
  quitClient,
  type RedisConnection,
  type ResolvedConnection,
  resolveConnection,
} from '../connection/connection';
import { type RedisDurability, resolveDurability, writeDurably } from '../connection/replica-wait';
import { withUnavailableErrors } from '../connection/unavailable';
import { invalidOption, rejectTransaction, unexpectedReply } from '../errors';
import {
  buildStoreKeyNames,
  DEFAULT_KEY_PREFIX,
  deliveryKey,
  eventIndexKey,
  listIndexKey,
  queueScriptKeys,
  type RedisStoreKeyNames,
} from '../key-names';
import type { RedisLink } from '../linked/redis-link';
import { assertOneSlotPerAdapter } from '../prefix-slots';
import { createCircuitOperations } from './circuit-operations';
import { createConfigOperations } from './config-operations';
import { createDeliveryCounter } from './delivery-count';
import { createDeliveryLister } from './delivery-list';
import { createDeliveryUpdater } from './delivery-updates';
import { createFilterRepair } from './filter-repair';
import { createRecoveryOperations } from './recovery-operations';
import { createRecoveryPageReplayer } from './recovery-page';
import { decodeAttempts, decodeDelivery, decodeDeliveryPairs } from './store-codec';
import {
  insertDeliveryLinkedScript,
  insertDeliveryScript,
  listAttemptsScript,
  listDuePendingScript,
  purgeScript,
} from './store-scripts';

/** Options of {@link createRedisStore}. */
export interface RedisStoreOptions {
  /**
   * The Redis to use: an ioredis client (yours: never closed by the store), or a
   * URL / ioredis options (the store opens its own connection and `close()` quits it).
   * @default 'redis://127.0.0.1:6379'
   * @example createRedisStore({ redis: new Redis(process.env.REDIS_URL) })
   */
  redis?: RedisConnection;
  /**
   * Prefix of every key, so several applications can share one Redis. Keys are
   * `${prefix}{store}:…`; a prefix with its own hash tag (`{app}:`) puts all of
   * an application's keys in one Redis Cluster slot.
   * @default 'whk:'
   */
  prefix?: string;
  /**
   * Retention of finished (`success` or `failed`) deliveries, in ms since their
   * `createdAt`. When set, every insert also deletes up to `retentionBatch`
   * finished deliveries older than that (records and index entries together),
   * so the log stays bounded without a background job. Pending deliveries are
   * never removed. Unset, deliveries are kept until `purgeDeliveries`.
   * @default undefined (keep forever)
   * @example createRedisStore({ redis, finishedTtlMs: 30 * 24 * 3_600_000 }) // 30 days
   */
  finishedTtlMs?: number;
  /**
   * Most finished deliveries one insert deletes under `finishedTtlMs`: more than
   * one, so deletion outpaces creation and a backlog left by a retention change drains.
   * @default 4
   */
  retentionBatch?: number;
  /**
   * Wait for replicas to acknowledge each emitted delivery and each recorded
   * attempt (Redis `WAIT`), so that a failover loses none that was acknowledged;
   * a write not acknowledged in time fails with a retriable `store_unavailable`.
   * Costs a round trip and the replication delay per write (docs/redis.md,
   * "Durability"). Unset, writes are acknowledged by the master alone.
   * @default undefined (do not wait)
   * @example createRedisStore({ redis: cluster, prefix: '{whk}:', durability: { replicas: 1, timeoutMs: 1000 } })
   */
  durability?: RedisDurability;
}

/** The Redis {@link WebhookStore}. */
export interface RedisWebhookStore extends WebhookStore {
  /** Key names in use (for operators and tests). */
  readonly keys: RedisStoreKeyNames;
  /**
   * How many of the agency's deliveries match `filter`, counted inside Redis (an
   * index's size where it can, otherwise a walk in short scripts): never a record
   * sent over the wire. See `WebhookStore.countDeliveries`.
   */
  countDeliveries(agencyId: string, filter: CountDeliveriesFilter): Promise<number>;
  /**
   * Deletes up to `limit` finished (`success` or `failed`, or only `status`)
   * deliveries created before `olderThan` (epoch ms), with their index entries,
   * attempts and event ids; never a pending one. Resolves with how many were
   * deleted. The worker calls it for the service's `retention`; `finishedTtlMs`
   * is the insert-time alternative.
   */
  purgeDeliveries(options: PurgeDeliveriesOptions): Promise<number>;
  /**
   * Deletes up to `limit` finished (`completed` or `cancelled`) bulk recoveries whose
   * `completedAt` is before `olderThan` (epoch ms), each with its entry in the agency's
   * recovery list, in one script per call; never a running one. Resolves with how many
   * were deleted. The worker calls it for the service's `retention` (`failedMs`). The
   * first call under a prefix first files the recoveries finished under earlier
   * releases (a SCAN of the keyspace, once; see docs/redis.md, "Retention").
   */
  purgeRecoveries(options: PurgeRecoveriesOptions): Promise<number>;
  /**
   * Opens a bulk recovery's next page and replays it in one script (see
   * `WebhookStore.replayRecoveryPage`): only ids come back, and a linked store queues
   * the replays in the same step.
   */
  replayRecoveryPage(recovery: RecoveryRecord, page: RecoveryPageOptions): Promise<RecoveryPageReplay | null>;
  /** Quits the client when the store opened it (never an injected one). Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates a {@link WebhookStore} on Redis: configurations, deliveries and each
 * agency's circuit breaker in hashes, per-agency sorted-set indexes for
 * newest-first lists and their filters (status, event type, entity; a creation
 * window narrowed to an id range, see store/list-filter-lua.ts), and Lua scripts for every multi-key
 * change or compare-and-set (atomic idempotent insert, delivery updates, circuits).
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL);
 * const webhooks = createWebhookService({ store: createRedisStore({ redis }), queue: createRedisQueue({ redis }) });
 */
export function createRedisStore(options: RedisStoreOptions = {}): RedisWebhookStore {
  const connection = resolveConnection(options.redis);
  try {
    return createRedisStoreOn(connection, options);
  } catch (error) {
    // Refused at construction: a connection opened for it must not keep the process alive.
    if (connection.owned) connection.client.disconnect();
    throw error;
  }
}

/**
 * The store on an already resolved connection. Linked to a queue (see
 * linked/redis-webhooks.ts), its insert and update scripts also enqueue or remove the
 * delivery's queue entry, and its reads use the snapshots the queue's claims took.
 */
export function createRedisStoreOn(
  { client, owned }: ResolvedConnection,
  options: Omit<RedisStoreOptions, 'redis'>,
  link?: RedisLink,
): RedisWebhookStore {
  const prefix = options.prefix ?? DEFAULT_KEY_PREFIX;
  const keys = buildStoreKeyNames(prefix);
  assertOneSlotPerAdapter(prefix, keys.base);
  const durability = resolveDurability(options.durability, keys.pending);
  const retentionBatch = options.retentionBatch ?? 4;
  const ttl = options.finishedTtlMs;
  if (ttl !== undefined && !(ttl > 0)) {
    throw invalidOption(
      'finishedTtlMs',
      `finishedTtlMs must be a positive number of ms; got ${ttl}. Leave it unset to keep deliveries until purgeDeliveries.`,
    );
  }
  const capabilities: StoreCapabilities = { transactions: false, purge: true };
  const linkKeys = link ? queueScriptKeys(link.queueKeys) : [];
  const linkArgs = link ? [link.queueKeys.base, link.queueKeys.wakeChannel] : [];
  const insertScript = link ? insertDeliveryLinkedScript : insertDeliveryScript;
  const repairFilterIndexes = createFilterRepair(client, keys);
  const listDeliveries = createDeliveryLister(client, keys, repairFilterIndexes);
  const countDeliveries = createDeliveryCounter(client, keys, repairFilterIndexes);
  const updateDelivery = createDeliveryUpdater(client, keys, link, durability);
  let closed = false;

  return withUnavailableErrors<RedisWebhookStore>({
    capabilities,
    keys,

    ...createConfigOperations(client, keys, link),
    ...createCircuitOperations(client, keys),
    ...createRecoveryOperations(client, keys),

    async insertDelivery(record: DeliveryRecord, txOptions?: TransactionOptions) {
      if (txOptions?.transaction !== undefined) throw rejectTransaction('store');
      const reply = await writeDurably(client, durability, () =>
        insertScript.run(
          client,
          [...insertKeys(keys, record), ...linkKeys],
          [
            keys.base,
            record.id,
            record.eventId,
            JSON.stringify(record),
            record.status,
            record.attempt,
            record.agencyId,
            record.createdAt,
            record.nextRetryAt ?? '',
            ttl === undefined ? '' : record.createdAt - ttl,
            retentionBatch,
            record.eventType,
            record.entityId === null ? '0' : '1',
            record.entityId ?? '',
            ...linkArgs,
          ],
        ),
      );
      if (!Array.isArray(reply)) throw unexpectedReply('insertDelivery', reply);
      if (reply[0] === 1) {
        if (record.status === 'pending' && record.nextRetryAt !== null) {
          link?.handOff.note(record.id, {
            kind: 'enqueued',
            agencyId: record.agencyId,
            runAt: record.nextRetryAt,
          });
        }
        return { delivery: record, created: true };
      }
      return { delivery: decodeDelivery(String(reply[1]), reply[2] as string | null), created: false };
    },

    async getDelivery(deliveryId: string): Promise<DeliveryRecord | null> {
      const snapshot = link?.snapshots.takeRecord(deliveryId);
      if (snapshot) return decodeDelivery(snapshot.inserted, snapshot.update);
      const [inserted, update] = await client.hmget(deliveryKey(keys.base, deliveryId), 'r', 'u');
      return inserted ? decodeDelivery(inserted, update) : null;
    },

    async listDeliveries(agencyId: string, listOptions: ListDeliveriesOptions): Promise<DeliveryRecord[]> {
      return listDeliveries(agencyId, listOptions);
    },

    async countDeliveries(agencyId: string, filter: CountDeliveriesFilter): Promise<number> {
      return countDeliveries(agencyId, filter);
    },

    updateDelivery,

    replayRecoveryPage: createRecoveryPageReplayer(client, keys, link, repairFilterIndexes, updateDelivery),

    async listAttempts(deliveryId: string): Promise<AttemptRecord[]> {
      return decodeAttempts(await listAttemptsScript.run(client, [deliveryKey(keys.base, deliveryId)], []));
    },

    async listDuePending(dueBefore: number, limit: number): Promise<DeliveryRecord[]> {
      const reply = await listDuePendingScript.run(client, [keys.pending], [keys.base, dueBefore, limit]);
      return decodeDeliveryPairs(reply, 'listDuePending');
    },

    async purgeDeliveries({ olderThan, limit, status }: PurgeDeliveriesOptions): Promise<number> {
      return Number(
        await purgeScript.run(
          client,
          [keys.finished, keys.finishedSuccess, keys.finishedFailed],
          [keys.base, olderThan, limit, status ?? ''],
        ),
      );
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (owned) await quitClient(client);
    },
  });
}

/** Declared keys of the insert script (the same slot; listed so Redis Cluster can route it). */
function insertKeys(keys: RedisStoreKeyNames, record: DeliveryRecord): string[] {
  return [
    deliveryKey(keys.base, record.id),
    eventIndexKey(keys.base, record.agencyId),
    listIndexKey(keys.base, record.agencyId),
    listIndexKey(keys.base, record.agencyId, record.status),
    keys.pending,
    keys.finished,
  ];
}
