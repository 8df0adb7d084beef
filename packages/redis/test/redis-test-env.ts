import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';

/** The Redis the tests use; every test works under its own key prefix and removes it afterwards. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Whether Redis answers. Outside CI an unreachable server skips the Redis suites
 * with a loud message (a laptop without Redis can still run the rest); with
 * CI=true it fails, so CI can never pass by skipping.
 */
async function probeRedis(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (error) {
    const message = `Redis is unreachable at ${REDIS_URL} (${(error as Error).message}).`;
    if (process.env.CI === 'true') throw new Error(`${message} CI=true: Redis tests must run.`);
    console.warn(`\n!!! ${message} SKIPPING the @svc/webhooks-redis suites. Set REDIS_URL or start Redis.\n`);
    return false;
  } finally {
    client.disconnect();
  }
}

export const redisReachable = await probeRedis();

/** `describe`, skipped (loudly, see above) when Redis is unreachable outside CI, or when `skip` is true. */
export function describeRedis(name: string, body: () => void, skip = false): void {
  describe.skipIf(!redisReachable || skip)(name, body);
}

/** A fresh client to the test Redis; the caller quits it. */
export function connectTestRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
}

/**
 * Counts the commands a connection sends from now on, to prove that something was
 * answered in the process; `stop()` puts the connection back as it was.
 */
export function commandCounter(redis: Redis): { count(): number; stop(): void } {
  let sent = 0;
  const original = redis.sendCommand;
  const bound = original.bind(redis);
  redis.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    sent++;
    return bound(...args);
  }) as Redis['sendCommand'];
  return {
    count: () => sent,
    stop: () => {
      redis.sendCommand = original;
    },
  };
}

/** Messages published on `channel` from now on, in order, on a connection of their own; `close` drops it. */
export async function listenOn(
  redis: Redis,
  channel: string,
): Promise<{ received: string[]; close(): void }> {
  const subscriber = redis.duplicate();
  const received: string[] = [];
  subscriber.on('message', (_channel: string, message: string) => received.push(message));
  await subscriber.subscribe(channel);
  return { received, close: () => subscriber.disconnect() };
}

/** A key prefix no other test or run uses. */
export function uniquePrefix(label: string): string {
  return `whk-test:${label}:${randomBytes(6).toString('hex')}:`;
}

/** Every key under `prefix`. */
export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found.sort();
}

/** Deletes every key under `prefix`. */
export async function removeKeys(client: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  for (let index = 0; index < keys.length; index += 500) {
    await client.unlink(...keys.slice(index, index + 500));
  }
}

/**
 * Inside a describe block: one client for the block (quit after it) and a fresh
 * key prefix per test (its keys removed after the test). `onEach` receives both
 * before each test, ahead of the block's own beforeEach hooks; the block's
 * afterEach hooks run before the keys are removed.
 */
export function useTestRedis(label: string, onEach: (redis: Redis, prefix: string) => void): void {
  let client: Redis;
  let prefix = '';
  beforeAll(() => {
    client = connectTestRedis();
  });
  afterAll(async () => {
    await client.quit();
  });
  beforeEach(() => {
    prefix = uniquePrefix(label);
    onEach(client, prefix);
  });
  afterEach(async () => {
    await removeKeys(client, prefix);
  });
}
