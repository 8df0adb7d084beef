import { randomBytes } from 'node:crypto';
import type {
  Claim,
  ClaimOptions,
  DeliveryQueue,
  QueueCapabilities,
  QueueEntry,
  TransactionOptions,
} from '@svc/webhooks-core';
import { sleep, withinDeadline } from '@svc/webhooks-core/adapter-kit';
import { ChannelSubscription, subscriberName } from '../connection/channel-subscription';
import {
  quitClient,
  type RedisConnection,
  type ResolvedConnection,
  resolveConnection,
} from '../connection/connection';
import { type RedisDurability, resolveDurability, writeDurably } from '../connection/replica-wait';
import { isTransientRedisError, storeUnavailable, withUnavailableErrors } from '../connection/unavailable';
import { invalidClaim, rejectTransaction, unexpectedReply } from '../errors';
import {
  buildQueueKeyNames,
  DEFAULT_KEY_PREFIX,
  queueScriptKeys,
  type RedisQueueKeyNames,
} from '../key-names';
import type { RedisLink } from '../linked/redis-link';
import { assertOneSlotPerAdapter } from '../prefix-slots';
import { ClaimBackoff } from './claim-backoff';
import { claimLinkedScript, claimScript } from './claim-script';
import {
  ackScript,
  anyDueScript,
  enqueueMissingScript,
  enqueueScript,
  nextDueScript,
  renewScript,
  rescheduleScript,
} from './queue-scripts';
import { RecentClaim } from './recent-claim';
import { WakeupListener } from './wakeup-listener';

/** Options of {@link createRedisQueue}. */
export interface RedisQueueOptions {
  /**
   * The Redis to use: an ioredis client (yours: never closed by the queue), or a
   * URL / ioredis options (the queue opens its own connection and `close()` quits it).
   * @default 'redis://127.0.0.1:6379'
   * @example createRedisQueue({ redis: new Redis(process.env.REDIS_URL) })
   */
  redis?: RedisConnection;
  /**
   * Prefix of every key, so several applications can share one Redis. Keys are
   * `${prefix}{queue}:…`; a prefix with its own hash tag (`{app}:`) puts all of
   * an application's keys in one Redis Cluster slot.
   * @default 'whk:'
   */
  prefix?: string;
  /**
   * Wake idle workers on enqueue through pub/sub (one extra connection per queue
   * object, opened on the first `waitForWork`). Off, workers find new work on
   * their next poll.
   * @default true
   */
  wakeups?: boolean;
  /**
   * Expired leases a single claim returns to the pool at most (the rest on the
   * next claims), so one claim after a mass crash stays a short script.
   * @default 1000
   */
  recoverBatch?: number;
  /**
   * Epoch-ms clock `waitForWork` uses to tell when the earliest scheduled entry
   * (or lease) falls due, so a waiting worker wakes for it. Pass the service's
   * clock when tests drive time. `claim`, `renew` and the rest use the `now`
   * they are given, never this clock.
   * @default Date.now
   */
  clock?: () => number;
  /**
   * Wait for replicas to acknowledge each `enqueue` (Redis `WAIT`), so a
   * failover loses no queue entry that was acknowledged (see the store's
   * `durability`; a linked store's emit enqueues in its own write).
   * @default undefined (do not wait)
   */
  durability?: RedisDurability;
  /**
   * How long claims stay quiet while Redis is unavailable (a failover): meanwhile
   * a failed claim finds nothing and the worker waits a backoff of 50 ms doubling
   * to 1 s instead of reporting an error; after it, claims fail with
   * `store_unavailable` again, reported by the worker.
   * @default 30000
   */
  unavailableGraceMs?: number;
}

/** Entries in the queue right now, by state. */
export interface RedisQueueCounts {
  /** Waiting for their runAt or for a worker. */
  queued: number;
  /** Held by a worker under a lease (live or expired but not yet reclaimed). */
  claimed: number;
}

/**
 * The Redis {@link DeliveryQueue}, with the extras the recovery sweep
 * (`createRecoverySweep` of `@svc/webhooks-core`) and operators use.
 */
export interface RedisDeliveryQueue extends DeliveryQueue {
  /** Key names in use (for operators and tests). */
  readonly keys: RedisQueueKeyNames;
  /**
   * Adds each entry only when its delivery has no entry at all (queued or
   * claimed), so a live claim is never dropped. Returns how many were added.
   */
  enqueueMissing(entries: readonly QueueEntry[]): Promise<number>;
  /** How many entries are queued and claimed. */
  counts(): Promise<RedisQueueCounts>;
  /**
   * Ends waits, closes the subscriber connection, and quits the client when the
   * queue opened it (never an injected one). Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Creates a {@link DeliveryQueue} on Redis: Lua scripts over sorted sets, with
 * leases, per-agency skipping and pub/sub wake-ups. Safe for any number of
 * workers in any number of processes sharing one Redis.
 *
 * Claims go round robin over the agencies with due entries (one entry per agency
 * per round, earliest first within an agency, the rotation kept in Redis so it
 * carries on across claims and processes), and `perAgencyLimit` counts every
 * process's leases (`capabilities.sharedAgencyLimit`). A claim's cost depends on
 * its `limit` and excluded agencies, not on backlog depth or the number of agencies.
 *
 * @example
 * const queue = createRedisQueue({ redis: new Redis(process.env.REDIS_URL) });
 * const webhooks = createWebhookService({ store, queue });
 */
export function createRedisQueue(options: RedisQueueOptions = {}): RedisDeliveryQueue {
  const connection = resolveConnection(options.redis);
  try {
    return createRedisQueueOn(connection, options);
  } catch (error) {
    // Refused at construction: a connection opened for it must not keep the process alive.
    if (connection.owned) connection.client.disconnect();
    throw error;
  }
}

/**
 * The queue on an already resolved connection. Linked to a store (see
 * linked/redis-webhooks.ts), it skips the calls the store's scripts already made, and
 * its claims also read the claimed records and configurations for the store.
 */
export function createRedisQueueOn(
  { client, owned }: ResolvedConnection,
  options: Omit<RedisQueueOptions, 'redis'>,
  link?: RedisLink,
): RedisDeliveryQueue {
  const handOff = link?.handOff;
  const prefix = options.prefix ?? DEFAULT_KEY_PREFIX;
  const keys = buildQueueKeyNames(prefix);
  assertOneSlotPerAdapter(prefix, keys.base);
  const durability = resolveDurability(options.durability, keys.ready);
  const backoff = new ClaimBackoff(options.unavailableGraceMs ?? 30_000);
  const clock = options.clock ?? Date.now;
  const recoverBatch = options.recoverBatch ?? 1000;
  /** Every script's keys, and the first two arguments each takes. */
  const all = queueScriptKeys(keys);
  const head = [keys.base, keys.wakeChannel];
  const hasDueWork = async (): Promise<boolean> =>
    (await anyDueScript.run(client, all, [...head, clock()])) === 1;
  // Linked, the store's subscriber connection serves the wake-ups too; otherwise the queue opens its own.
  const subscription =
    link?.subscription ??
    (options.wakeups === false ? null : new ChannelSubscription(client, subscriberName(keys.base)));
  const listener =
    options.wakeups === false || !subscription
      ? null
      : new WakeupListener(subscription, keys.wakeChannel, hasDueWork);
  let closed = false;

  const recent = new RecentClaim();

  /** Ms until the earliest scheduled entry or lease falls due (Infinity: none). Never rejects. */
  const untilNextDue = async (): Promise<number> => {
    // Right after a short claim, its answer spares the lookup; an enqueue since then wakes the wait anyway.
    const known = recent.dueIn();
    if (known !== undefined) return known;
    try {
      const now = clock();
      const reply = await nextDueScript.run(client, all, [...head, now]);
      return reply === null ? Number.POSITIVE_INFINITY : Math.max(0, Number(reply) - now);
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  };

  const capabilities: QueueCapabilities = {
    transactions: false,
    excludeAgencies: true,
    wakeups: listener !== null,
    // Every agency's claimed entries are counted in Redis (`keys.held`), whoever holds them.
    sharedAgencyLimit: true,
  };

  return withUnavailableErrors<RedisDeliveryQueue>({
    capabilities,
    keys,

    async enqueue(entry: QueueEntry, txOptions?: TransactionOptions): Promise<void> {
      if (txOptions?.transaction !== undefined) throw rejectTransaction('queue');
      if (handOff?.takeEnqueued(entry.deliveryId, entry.agencyId, entry.runAt)) return;
      await writeDurably(client, durability, () =>
        enqueueScript.run(client, all, [...head, entry.deliveryId, entry.agencyId, entry.runAt]),
      );
    },

    async enqueueMissing(entries: readonly QueueEntry[]): Promise<number> {
      // A recovery's replays were queued by the linked store's compare-and-sets already.
      const missing = handOff
        ? entries.filter((entry) => !handOff.takeEnqueued(entry.deliveryId, entry.agencyId, entry.runAt))
        : entries;
      if (missing.length === 0) return 0;
      const args: (string | number)[] = [...head];
      for (const entry of missing) args.push(entry.deliveryId, entry.agencyId, entry.runAt);
      return Number(await enqueueMissingScript.run(client, all, args));
    },

    async claim(claimOptions: ClaimOptions): Promise<Claim[]> {
      assertClaimOptions(claimOptions);
      const { now, limit, excludeAgencies, perAgencyLimit } = claimOptions;
      // Within a backoff after Redis was unavailable: nothing to claim, and no round trip.
      if (backoff.pauseLeft() > 0) return [];
      const since = listener?.seq ?? 0;
      if (listener?.live && listener.quiet && recent.surelyEmpty(now, excludeAgencies, since)) return [];
      const leaseUntil = now + claimOptions.leaseMs;
      let reply: unknown;
      try {
        reply = await (link ? claimLinkedScript : claimScript).run(client, all, [
          ...head,
          now,
          leaseUntil,
          limit,
          nextClaimToken(),
          recoverBatch,
          perAgencyLimit ?? '',
          ...(link ? [link.storeKeys.base] : []),
          ...(excludeAgencies ?? []),
        ]);
      } catch (error) {
        if (!isTransientRedisError(error)) throw error;
        if (backoff.failed()) return [];
        throw storeUnavailable(error);
      }
      backoff.succeeded();
      if (!Array.isArray(reply) || reply.length < 2) throw unexpectedReply('claim', reply);
      const [flat, nextDue, records, configs] = reply as [unknown, unknown, unknown[], unknown[]];
      const claims = parseClaims(flat, leaseUntil);
      recent.record({
        at: performance.now(),
        now,
        nextDue: nextDue === '-' ? undefined : nextDue === '' ? null : Number(nextDue),
        short: claims.length < limit,
        excluded: new Set(excludeAgencies),
        seq: since,
      });
      listener?.answered(since, claims);
      if (link && claims.length > 0) {
        const ids = claims.map((claim) => claim.deliveryId);
        link.snapshots.keep(
          ids,
          claims.map((claim) => claim.agencyId),
          records,
          configs,
        );
      }
      return claims;
    },

    async renew(claim: Claim, leaseMs: number, now: number): Promise<boolean> {
      const reply = await renewScript.run(client, all, [
        ...head,
        claim.deliveryId,
        claim.claimId,
        now + leaseMs,
      ]);
      return reply === 1;
    },

    async ack(claim: Claim): Promise<boolean> {
      if (handOff?.takeRemoved(claim.deliveryId)) return true;
      const reply = await ackScript.run(client, all, [...head, claim.deliveryId, claim.claimId]);
      return reply === 1;
    },

    async reschedule(claim: Claim, runAt: number): Promise<boolean> {
      if (handOff?.takeEnqueued(claim.deliveryId, claim.agencyId, runAt)) return true;
      const reply = await rescheduleScript.run(client, all, [
        ...head,
        claim.deliveryId,
        claim.claimId,
        runAt,
      ]);
      return reply === 1;
    },

    async waitForWork({ timeoutMs, signal }: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
      if (closed || signal?.aborted) return;
      listener?.prepare();
      // After a claim that found Redis unavailable, wait out the backoff (within the caller's
      // timeout) whatever the listener says: its unanswered messages would end the wait at once.
      const pause = backoff.pauseLeft();
      if (pause > 0) return sleep(Math.min(pause, timeoutMs), signal);
      const started = performance.now();
      // untilNextDue never rejects; a lookup stuck in ioredis' offline queue counts as "due now".
      const lookup = await withinDeadline(untilNextDue(), timeoutMs, signal);
      const dueIn = lookup.kind === 'done' ? lookup.value : 0;
      const remaining = Math.min(dueIn, timeoutMs - (performance.now() - started));
      if (remaining <= 0 || closed || signal?.aborted) return;
      if (!listener) return sleep(remaining, signal);
      await listener.wait(remaining, signal);
      // The caller now knows of every message so far; waiting again without claiming waits for a new one.
      listener.answered(listener.seq);
    },

    async counts(): Promise<RedisQueueCounts> {
      const [entries, claimed] = await Promise.all([client.hlen(keys.agencies), client.zcard(keys.leases)]);
      return { queued: entries - claimed, claimed };
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      listener?.close();
      if (!link) await subscription?.close();
      if (owned) await quitClient(client);
    },
  });
}

/**
 * Claim ids must be unique across every process sharing a queue. A random
 * 96-bit token per process plus a counter gives that without asking the OS
 * for randomness on every claim (a system call that costs tens of µs on some
 * virtual machines, once per claim on the hot path).
 */
const PROCESS_TOKEN = randomBytes(12).toString('base64url');
let claimCounter = 0;

/** A token no other claim, in this process or another, has used; the script appends `.n` per entry. */
function nextClaimToken(): string {
  claimCounter += 1;
  return `${PROCESS_TOKEN}${claimCounter.toString(36)}`;
}

/** Refuses a claim that would hand out leases already expired, or claim nothing by accident. */
function assertClaimOptions({ limit, leaseMs, perAgencyLimit }: ClaimOptions): void {
  if (!(leaseMs > 0)) throw invalidClaim(`leaseMs must be a positive number of ms; got ${leaseMs}.`);
  if (!Number.isInteger(limit) || limit < 1) {
    throw invalidClaim(`limit must be a positive integer; got ${limit}.`);
  }
  // An agency set aside at a cap of 0 would hold no lease whose end could bring it back.
  if (perAgencyLimit !== undefined && (!Number.isInteger(perAgencyLimit) || perAgencyLimit < 1)) {
    throw invalidClaim(`perAgencyLimit must be a positive integer (or left out); got ${perAgencyLimit}.`);
  }
}

/** Turns the claim script's flat quadruples into claims. */
function parseClaims(reply: unknown, leaseUntil: number): Claim[] {
  if (!Array.isArray(reply) || reply.length % 4 !== 0) throw unexpectedReply('claim', reply);
  const claims: Claim[] = [];
  for (let index = 0; index < reply.length; index += 4) {
    claims.push({
      deliveryId: String(reply[index]),
      agencyId: String(reply[index + 1]),
      claimId: String(reply[index + 2]),
      runAt: Number(reply[index + 3]),
      leaseUntil,
    });
  }
  return claims;
}
