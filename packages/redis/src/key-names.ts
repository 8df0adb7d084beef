/**
 * Key names. Every key of the store shares the hash tag `{store}` and every key
 * of the queue the tag `{queue}`, so each multi-key script touches one Redis
 * Cluster slot. A prefix that carries its own tag (`{app1}:`) wins, because
 * Redis hashes the first `{…}` of a name: then all of that application's keys
 * share one slot. Agency and delivery ids always come last in a name, after a
 * fixed type marker, so no id can make one key's name collide with another's.
 */

/**
 * Default `prefix` of every key of the Redis store and queue (`'whk:'`); pass
 * another `prefix` so several applications can share one Redis.
 */
export const DEFAULT_KEY_PREFIX = 'whk:';

/**
 * Names of the Redis queue's keys (see `RedisDeliveryQueue.keys`). The per-agency
 * `due` keys are `${base}due:${agencyId}`. An agency is in at most one of
 * `ready`, `active` and `capped`, and one with queued entries is in one of them.
 */
export interface RedisQueueKeyNames {
  /** Prefix of every queue key, given to scripts that derive per-agency names. */
  base: string;
  /** ZSET agencyId → runAt of the agency's earliest queued entry, for agencies waiting to become due. */
  ready: string;
  /** ZSET deliveryId → leaseUntil of every claimed entry. */
  leases: string;
  /** HASH deliveryId → agencyId of every entry, queued or claimed. */
  agencies: string;
  /** HASH deliveryId → `claimId runAt agencyId` of every claimed entry. */
  claims: string;
  /**
   * ZSET agencyId → rotation stamp: the round robin of agencies with due entries.
   * Claims serve the lowest stamp first and give a served agency the next stamp after the highest.
   */
  active: string;
  /**
   * HASH agencyId → claimed entries, of agencies set aside because they held
   * `perAgencyLimit` leases; the next lease they drop brings them back (to `held`).
   */
  capped: string;
  /**
   * HASH agencyId → how many claimed entries (leases, live or expired but not yet
   * returned) the agency holds, for every agency not in `capped`.
   */
  held: string;
  /** Pub/sub channel announcing enqueues. */
  wakeChannel: string;
}

/** Names of the Redis store's keys that do not depend on an id (see `RedisWebhookStore.keys`). */
export interface RedisStoreKeyNames {
  /** Prefix of every store key, given to scripts that derive per-agency and per-delivery names. */
  base: string;
  /** ZSET deliveryId → nextRetryAt of every pending delivery. */
  pending: string;
  /**
   * ZSET deliveryId → createdAt of finished deliveries written by releases before
   * the per-status sets; nothing is added any more, and every purge drains it.
   */
  finished: string;
  /** ZSET deliveryId → createdAt of every `success` delivery: what a purge of successes reads. */
  finishedSuccess: string;
  /** ZSET deliveryId → createdAt of every `failed` delivery: what a purge of failures reads. */
  finishedFailed: string;
  /** Pub/sub channel announcing configuration changes (the agency id), for linked stores' caches. */
  configChannel: string;
  /** ZSET (all scores 0, ordered by agency id) of every agency with a configuration: what `listConfigs` pages through. */
  configs: string;
  /**
   * STRING, set once `configs` holds every configuration: the first `listConfigs`
   * adds those written by releases before the index existed, then sets it.
   */
  configsIndexed: string;
  /**
   * HASH agencyId → how far apart, at most, a delivery's `createdAt` and its id's
   * own time are in that agency (ms; `x`: no bound; `~` first while a repair is
   * counting). What lets a time window read only ids near that time (see store/list-filter-lua.ts).
   */
  listSkew: string;
}

/** The queue's key names under `prefix`. */
export function buildQueueKeyNames(prefix: string): RedisQueueKeyNames {
  const base = `${prefix}{queue}:`;
  return {
    base,
    ready: `${base}ready`,
    leases: `${base}leases`,
    agencies: `${base}agencies`,
    claims: `${base}claims`,
    active: `${base}active`,
    capped: `${base}capped`,
    held: `${base}held`,
    wakeChannel: `${base}wake`,
  };
}

/** The keys every queue script declares, in the order the scripts expect (see `queueTableLua`). */
export function queueScriptKeys(keys: RedisQueueKeyNames): string[] {
  return [keys.ready, keys.leases, keys.agencies, keys.claims, keys.active, keys.capped, keys.held];
}

/** The store's key names under `prefix`. */
export function buildStoreKeyNames(prefix: string): RedisStoreKeyNames {
  const base = `${prefix}{store}:`;
  return {
    base,
    pending: `${base}pending`,
    finished: `${base}finished`,
    finishedSuccess: `${base}finished:success`,
    finishedFailed: `${base}finished:failed`,
    configChannel: `${base}config`,
    configs: `${base}configs`,
    configsIndexed: `${base}configs-indexed`,
    listSkew: `${base}list-skew`,
  };
}

/** HASH of one agency's configuration. */
export function configKey(base: string, agencyId: string): string {
  return `${base}cfg:${agencyId}`;
}

/** HASH of one delivery. */
export function deliveryKey(base: string, deliveryId: string): string {
  return `${base}d:${deliveryId}`;
}

/** HASH of one agency's circuit breaker (see `WebhookStore.saveCircuit`). */
export function circuitKey(base: string, agencyId: string): string {
  return `${base}cb:${agencyId}`;
}

/** HASH eventId → deliveryId of one agency (idempotent insert). */
export function eventIndexKey(base: string, agencyId: string): string {
  return `${base}evt:${agencyId}`;
}

/** ZSET (all scores 0, ordered by id) of one agency's deliveries, optionally of one status. */
export function listIndexKey(base: string, agencyId: string, status: string = 'all'): string {
  return `${base}ix:${status}:${agencyId}`;
}

/**
 * ZSET (all scores 0) of one agency's deliveries by event type: members
 * `<byte length>:<eventType>:<deliveryId>`, so one type's members are one range, in id order.
 */
export function typeIndexKey(base: string, agencyId: string): string {
  return `${base}ix-type:${agencyId}`;
}

/** ZSET like {@link typeIndexKey}, by entity id: `<byte length>:<entityId>:<deliveryId>` (none without an entity). */
export function entityIndexKey(base: string, agencyId: string): string {
  return `${base}ix-entity:${agencyId}`;
}

/** HASH of one bulk recovery (see `WebhookStore.createRecovery`). */
export function recoveryKey(base: string, recoveryId: string): string {
  return `${base}rc:${recoveryId}`;
}

/** STRING: the id of the agency's running recovery, while it has one. */
export function runningRecoveryKey(base: string, agencyId: string): string {
  return `${base}rc-agency:${agencyId}`;
}

/**
 * ZSET (all scores 0, ordered by id) of every recovery of one agency, whatever its
 * status: what `listRecoveries` pages through, since `rc-running` forgets finished ones.
 */
export function recoveryListKey(base: string, agencyId: string): string {
  return `${base}rc-list:${agencyId}`;
}

/** ZSET recoveryId → createdAt of every running recovery: what workers look through. */
export function runningRecoveriesKey(base: string): string {
  return `${base}rc-running`;
}

/**
 * ZSET recoveryId → completedAt of every finished recovery (completed or cancelled)
 * that has a `completedAt`: what `purgeRecoveries` reads, oldest finish first.
 */
export function finishedRecoveriesKey(base: string): string {
  return `${base}rc-finished`;
}

/**
 * STRING, set once `rc-finished` holds every finished recovery: the first
 * `purgeRecoveries` adds those finished under releases before the set existed, then sets it.
 */
export function finishedRecoveriesIndexedKey(base: string): string {
  return `${base}rc-finished-indexed`;
}
