import { randomBytes } from 'node:crypto';
import { jobCancelled } from '@svc/test-support';
import { createWebhookService, InvalidOptionError, StoreUnavailableError } from '@svc/webhooks-core';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keySlot } from '../src/connection/key-slot';
import { isTransientRedisError } from '../src/connection/unavailable';
import { createRedisQueue, createRedisStore, createRedisWebhooks } from '../src/index';
import { connectTestCluster, describeCluster, removeClusterKeys } from './cluster-test-env';

const CONFIG = {
  webhookUrl: 'https://127.0.0.1:9/hooks',
  enabled: true,
  subscribedEventTypes: ['job_cancelled'],
};

const unique = () => randomBytes(5).toString('hex');

/** Prefixes, slots and durability on the real cluster. */
export function describeClusterSlots(): void {
  describeCluster('prefixes, slots and durability on a real Redis Cluster', () => {
    let cluster: Cluster;
    const used: string[] = [];
    beforeAll(() => {
      cluster = connectTestCluster();
    });
    afterAll(async () => {
      for (const prefix of used) await removeClusterKeys(cluster, prefix);
      await cluster.quit();
    });

    it('computes the slot Redis computes, tags and empty tags included', async () => {
      const keys = [
        'whk:{store}:pending',
        '{app}:{queue}:ready',
        '{}:{store}:d:1',
        '{}{app}:x',
        'a{b:{store}:x',
        'é{ü}:k',
        'plain',
      ];
      for (const key of keys) expect(keySlot(key), key).toBe(Number(await cluster.cluster('KEYSLOT', key)));
    });

    it("a refused prefix's keys really fail with CROSSSLOT, which is not made retriable", async () => {
      const keys = ['{}:{store}:pending', '{}:{store}:finished'];
      expect(keySlot(keys[0]!)).not.toBe(keySlot(keys[1]!));
      const error = await cluster.eval('return 1', 2, ...keys).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(String(error)).toMatch(/CROSSSLOT/);
      expect(isTransientRedisError(error)).toBe(false);
      for (const prefix of ['{}:', '{}{app}:']) {
        expect(() => createRedisStore({ redis: cluster, prefix })).toThrow(InvalidOptionError);
        expect(() => createRedisQueue({ redis: cluster, prefix })).toThrow(InvalidOptionError);
        expect(() => createRedisWebhooks({ redis: cluster, prefix })).toThrow(InvalidOptionError);
      }
    });

    it('works under every accepted prefix: emit, claim and ack; linked only where one tag holds both', async () => {
      const id = unique();
      const separate = [`whk-test:${id}:`, `{t-${id}}:`, `{t-${id}}{x}:`, `a{b-${id}:`];
      for (const prefix of separate) {
        used.push(prefix);
        const store = createRedisStore({ redis: cluster, prefix });
        const queue = createRedisQueue({ redis: cluster, prefix, wakeups: false });
        const webhooks = createWebhookService({ store, queue, urlPolicy: { allowPrivateNetworks: true } });
        await webhooks.putConfig('agency-1', CONFIG);
        const emitted = await webhooks.emit({ ...jobCancelled('agency-1'), eventId: 'evt-1' });
        const [claim] = await queue.claim({ limit: 5, leaseMs: 10_000, now: Date.now() + 1 });
        expect(claim?.deliveryId, prefix).toBe(emitted?.deliveryId);
        expect(await queue.ack(claim!), prefix).toBe(true);
        await webhooks.close();
        await queue.close();
      }
      for (const prefix of [`{l-${id}}:`, `{l-${id}}{x}:`]) {
        used.push(prefix);
        const linked = createRedisWebhooks({ redis: cluster, prefix, wakeups: false });
        const webhooks = createWebhookService({
          store: linked.store,
          queue: linked.queue,
          urlPolicy: { allowPrivateNetworks: true },
        });
        await webhooks.putConfig('agency-1', CONFIG);
        const emitted = await webhooks.emit({ ...jobCancelled('agency-1'), eventId: 'evt-1' });
        const [claim] = await linked.queue.claim({ limit: 5, leaseMs: 10_000, now: Date.now() + 1 });
        expect(claim?.deliveryId, prefix).toBe(emitted?.deliveryId);
        await webhooks.close();
        await linked.close();
      }
      for (const prefix of ['whk:', `a{b-${id}:`]) {
        expect(() => createRedisWebhooks({ redis: cluster, prefix })).toThrow(
          /needs a prefix with a hash tag/,
        );
      }
    });

    it('durability sends WAIT to the slot master, fails typed when too few replicas answer, and a retry stores once', async () => {
      const prefix = `{d-${unique()}}:`;
      used.push(prefix);
      const master = cluster
        .nodes('master')
        .find(
          (node) => `${node.options.host}:${node.options.port}` === cluster.slots[keySlot(`${prefix}x`)]?.[0],
        );
      expect(master).toBeDefined();
      const waits = async () =>
        Number(/cmdstat_wait:calls=(\d+)/.exec(String(await master!.info('commandstats')))?.[1] ?? 0);

      const strict = createRedisWebhooks({
        redis: cluster,
        prefix,
        durability: { replicas: 2, timeoutMs: 50 },
      });
      const strictService = createWebhookService({
        store: strict.store,
        queue: strict.queue,
        urlPolicy: { allowPrivateNetworks: true },
      });
      await strictService.putConfig('agency-1', CONFIG);
      const input = { ...jobCancelled('agency-1'), eventId: 'evt-durable' };
      const failure = await strictService.emit(input).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(String((failure as Error).cause)).toContain('1 of 2 replicas acknowledged');

      const durable = createRedisWebhooks({
        redis: cluster,
        prefix,
        durability: { replicas: 1, timeoutMs: 2_000 },
      });
      const service = createWebhookService({
        store: durable.store,
        queue: durable.queue,
        urlPolicy: { allowPrivateNetworks: true },
      });
      const before = await waits();
      const retried = await service.emit(input);
      const other = await service.emit({ ...input, eventId: 'evt-other' });
      expect(await waits()).toBeGreaterThanOrEqual(before + 2);
      const listed = await durable.store.listDeliveries('agency-1', { limit: 10 });
      expect(listed.map((delivery) => delivery.id).sort()).toEqual(
        [retried?.deliveryId, other?.deliveryId].sort(),
      );
      await strictService.close();
      await strict.close();
      await service.close();
      await durable.close();
    });
  });
}
