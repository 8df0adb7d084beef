import { generateSigningSecret, type UpsertConfigInput } from '@svc/webhooks-core';
import { type Redis, ReplyError } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRedisStore, type RedisWebhookStore } from '../src/index';
import { describeRedis, useTestRedis } from './redis-test-env';

const T0 = 1_700_000_000_000;

function configInput(agencyId: string, newSigningSecret = generateSigningSecret()): UpsertConfigInput {
  return {
    agencyId,
    webhookUrl: `https://hooks.example.com/${agencyId}`,
    enabled: true,
    subscribedEventTypes: ['job_created'],
    now: T0,
    newId: `cfg-${agencyId}`,
    newSigningSecret,
  };
}

const listedIds = async (store: RedisWebhookStore) =>
  (await store.listConfigs({ after: null, limit: 100 })).map((config) => config.agencyId);

describeRedis('Redis store: the configurations index and secret-carrying errors', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisWebhookStore;

  useTestRedis('config-index', (client, fresh) => {
    redis = client;
    // A bracket in the prefix: SCAN patterns must escape it, or `[x]` would match a plain `x`.
    prefix = `${fresh}[x]:`;
  });
  beforeEach(() => {
    store = createRedisStore({ redis, prefix });
  });
  afterEach(() => store.close());

  it('the first listing indexes configurations written before the index existed, and only ours', async () => {
    for (const agencyId of ['agency-c', 'agency-a', 'agency-b'])
      await store.upsertConfig(configInput(agencyId));
    // As a release before listConfigs left them: hashes, no index, no flag.
    await redis.del(store.keys.configs, store.keys.configsIndexed);
    const lookalike = `${prefix.replace('[x]', 'x')}{store}:cfg:agency-z`;
    await redis.hset(lookalike, 'agencyId', 'agency-z');

    const upgraded = createRedisStore({ redis, prefix });
    expect(await listedIds(upgraded)).toEqual(['agency-a', 'agency-b', 'agency-c']);
    expect(await redis.get(store.keys.configsIndexed), 'the flag').toBe('1');
    expect(await redis.zrange(store.keys.configs, 0, -1)).toEqual(['agency-a', 'agency-b', 'agency-c']);
    await redis.del(lookalike);
  });

  it('once flagged, a configuration an older release writes is indexed by its next write', async () => {
    await store.upsertConfig(configInput('agency-a'));
    expect(await listedIds(store)).toEqual(['agency-a']);
    const older = configInput('agency-b');
    await redis.hset(`${store.keys.base}cfg:agency-b`, {
      id: older.newId,
      agencyId: 'agency-b',
      webhookUrl: older.webhookUrl,
      enabled: '1',
      subscribedEventTypes: '[]',
      signingSecret: older.newSigningSecret,
      createdAt: String(T0),
      updatedAt: String(T0),
    });
    expect(await listedIds(createRedisStore({ redis, prefix })), 'before its next write').toEqual([
      'agency-a',
    ]);
    await store.upsertConfig(configInput('agency-b'));
    expect(await listedIds(store)).toEqual(['agency-a', 'agency-b']);
    await store.deleteConfig('agency-a');
    expect(await listedIds(store), 'a delete leaves the index').toEqual(['agency-b']);
  });

  it('a refused write rejects with ioredis’ ReplyError, the command’s keys kept and the secret redacted', async () => {
    await store.upsertConfig(configInput('agency-x'));
    const key = `${store.keys.base}cfg:agency-x`;
    await redis.del(key);
    await redis.set(key, 'not a hash');
    const secret = generateSigningSecret();
    const error = await store.setSigningSecret('agency-x', secret, T0).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplyError);
    expect((error as Error).message).toMatch(/WRONGTYPE/);
    const args = (error as { command: { args: unknown[] } }).command.args;
    expect(args).toContain(key);
    expect(args).toContain('[redacted]');
    expect(JSON.stringify(args)).not.toContain(secret);
    expect((error as Error).stack).not.toContain(secret);
  });
});
