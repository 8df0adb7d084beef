import { randomBytes } from 'node:crypto';
import { type ReceiverProcess, spawnReceiverProcess } from '@svc/test-support';
import { generateSigningSecret } from '@svc/webhooks-core';
import { Redis } from 'ioredis';
import { removeKeysUnder } from './redis-keys';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const AGENCY = 'bench-agency';

/** What every measurement shares: one Redis namespace, one secret, one child-process receiver. */
/**
 * `live`: the worker runs while one loop emits (or adds) every delivery; first emit to last recorded 2xx.
 * `backlog`: everything is emitted first; worker start to last recorded 2xx.
 */
export type Regime = 'live' | 'backlog';

export interface BenchSetup {
  redis: Redis;
  /** Key prefix of this run; every measurement adds its own suffix. */
  prefix: string;
  secret: string;
  receiver: ReceiverProcess;
  close(): Promise<void>;
}

/**
 * The receiver verifies every signature, so it gets the secret when it starts;
 * the Redis measurements then store that same secret under their own keys.
 */
export async function setUpBench(): Promise<BenchSetup> {
  const signingSecret = generateSigningSecret();
  const receiver = await spawnReceiverProcess({ verify: true, secret: signingSecret });
  const redis = new Redis(REDIS_URL);
  const prefix = `whk-bench:${randomBytes(4).toString('hex')}:`;
  return {
    redis,
    prefix,
    secret: signingSecret,
    receiver,
    async close() {
      await removeKeysUnder(redis, prefix);
      await redis.quit();
      await receiver.close();
    },
  };
}

/** Resolves once `isDone()` holds, checking every few ms. */
export async function until(isDone: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!isDone()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
