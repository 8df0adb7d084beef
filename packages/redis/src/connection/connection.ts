import { type Cluster, Redis, type RedisOptions } from 'ioredis';
import { invalidOption } from '../errors';

/** A connected ioredis client: a single node or a cluster. */
export type RedisClient = Redis | Cluster;

/**
 * How an adapter reaches Redis: an ioredis client you own (never closed by the
 * adapter), or a URL / ioredis options from which the adapter opens, and later
 * closes, its own connection.
 *
 * @example
 * createRedisQueue({ redis: new Redis(process.env.REDIS_URL) }); // injected, you close it
 * createRedisQueue({ redis: 'redis://127.0.0.1:6379' });         // owned, closed by close()
 */
export type RedisConnection = RedisClient | string | RedisOptions;

/** A resolved connection: the client, and whether the adapter must quit it on close. */
export interface ResolvedConnection {
  client: RedisClient;
  owned: boolean;
}

/** Default server when no connection is given, matching ioredis' own default. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * True for an ioredis client. Checked by shape rather than `instanceof` so a
 * client made by another copy of ioredis (a host pinning its own version) counts.
 */
export function isRedisClient(value: unknown): value is RedisClient {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<'evalsha' | 'duplicate' | 'quit', unknown>>;
  return (
    typeof candidate.evalsha === 'function' &&
    typeof candidate.duplicate === 'function' &&
    typeof candidate.quit === 'function'
  );
}

/** True for a Redis Cluster client (checked by shape, like {@link isRedisClient}). */
export function isCluster(client: RedisClient): client is Cluster {
  return 'nodes' in client && typeof client.nodes === 'function';
}

/**
 * Refuses a client with ioredis' `keyPrefix`: ioredis adds it to the keys a
 * script declares but cannot see the per-agency keys the scripts derive, so the
 * two would drift apart. The adapters' own `prefix` option does the same job
 * consistently.
 */
function assertNoKeyPrefix(client: RedisClient): void {
  const options = client.options as { keyPrefix?: string; redisOptions?: { keyPrefix?: string } };
  if (options.keyPrefix || options.redisOptions?.keyPrefix) {
    throw invalidOption(
      'redis',
      'The Redis client has an ioredis `keyPrefix`, which the adapters cannot use (their scripts derive key names). ' +
        'Pass a client without `keyPrefix` and set the adapter option `prefix` instead.',
    );
  }
}

/** Opens a client from a URL or options, or adopts an injected one. */
export function resolveConnection(connection: RedisConnection | undefined): ResolvedConnection {
  if (isRedisClient(connection)) {
    assertNoKeyPrefix(connection);
    return { client: connection, owned: false };
  }
  if (typeof connection === 'object' && 'keyPrefix' in connection && connection.keyPrefix) {
    throw invalidOption(
      'redis.keyPrefix',
      'ioredis `keyPrefix` is not supported (the scripts derive key names it would not prefix). ' +
        'Remove it and set the adapter option `prefix` instead.',
    );
  }
  if (connection === undefined) return { client: new Redis(DEFAULT_REDIS_URL), owned: true };
  if (typeof connection === 'string') return { client: new Redis(connection), owned: true };
  return { client: new Redis(connection), owned: true };
}

/**
 * Closes a client politely (QUIT lets queued replies arrive), falling back to a
 * hard disconnect when the server is unreachable so close() never hangs.
 */
export async function quitClient(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
