import { StoreUnavailableError } from '@svc/webhooks-core';
import type { Cluster, Redis } from 'ioredis';
import { invalidOption } from '../errors';
import { isCluster, type RedisClient } from './connection';
import { keySlot } from './key-slot';
import { RETRY_AFTER_MS } from './unavailable';

/**
 * The `durability` option of the Redis adapters: after each write that must
 * survive a failover (an emit's insert, an attempt's record, an enqueue), wait
 * until `replicas` replicas of the master that took it have acknowledged it
 * (Redis `WAIT`), or fail the call with `store_unavailable` after `timeoutMs`.
 */
export interface RedisDurability {
  /** Replicas that must acknowledge each write (Redis `WAIT numreplicas`). At least 1. */
  replicas: number;
  /**
   * Longest wait for them, in ms; past it the call fails with a retriable
   * `store_unavailable` (the write may still be on the master alone).
   * @default 1000
   */
  timeoutMs?: number;
}

/** How a write is made durable: the settings, and the slot every key of the adapter hashes to. */
export interface ReplicaWait {
  replicas: number;
  timeoutMs: number;
  /** Slot of the adapter's keys, to find the master that took a write on a cluster. */
  slot: number;
}

/** Checks the option and fixes the slot from one of the adapter's key names (they all share its tag). */
export function resolveDurability(
  option: RedisDurability | undefined,
  sampleKey: string,
): ReplicaWait | null {
  if (option === undefined) return null;
  const { replicas, timeoutMs = 1_000 } = option;
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw invalidOption(
      'durability.replicas',
      `durability.replicas must be a positive integer (replicas that acknowledge each write); got ${replicas}. ` +
        'Leave durability unset to not wait for replicas.',
    );
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw invalidOption(
      'durability.timeoutMs',
      `durability.timeoutMs must be a positive integer of ms; got ${timeoutMs}.`,
    );
  }
  return { replicas, timeoutMs, slot: keySlot(sampleKey) };
}

/**
 * Runs `write` and then waits for its replication. `WAIT` counts the writes made
 * on the connection it is sent on, so on a cluster it goes to the connection of
 * the slot's master: the one ioredis routed the write to (after any redirection,
 * which updates its slot table before the write is sent again). When the slot
 * changed master in between, nothing tells which master took the write, so the
 * call fails as unavailable and the caller's retry (idempotent) confirms it.
 */
export async function writeDurably<T>(
  client: RedisClient,
  wait: ReplicaWait | null,
  write: () => Promise<T>,
): Promise<T> {
  if (!wait) return write();
  if (!isCluster(client)) {
    const result = await write();
    await confirm(client, wait);
    return result;
  }
  const result = await write();
  const master = masterOf(client, wait.slot);
  if (!master) throw unconfirmed(wait, 'the slot has no known master');
  await confirm(master.node, wait);
  if (masterOf(client, wait.slot)?.key !== master.key) throw unconfirmed(wait, 'the slot changed master');
  return result;
}

async function confirm(node: RedisClient, wait: ReplicaWait): Promise<void> {
  const acknowledged = Number(await node.wait(wait.replicas, wait.timeoutMs));
  if (acknowledged < wait.replicas) {
    throw unconfirmed(
      wait,
      `${acknowledged} of ${wait.replicas} replicas acknowledged within ${wait.timeoutMs} ms`,
    );
  }
}

function masterOf(client: Cluster, slot: number): { key: string; node: Redis } | null {
  const key = client.slots[slot]?.[0];
  if (!key) return null;
  const node = client
    .nodes('master')
    .find((candidate) => `${candidate.options.host}:${candidate.options.port}` === key);
  return node ? { key, node } : null;
}

function unconfirmed(wait: ReplicaWait, why: string): StoreUnavailableError {
  return new StoreUnavailableError('Redis', RETRY_AFTER_MS, {
    cause: new Error(
      `Replication of the write not confirmed (durability.replicas ${wait.replicas}): ${why}.`,
    ),
  });
}
