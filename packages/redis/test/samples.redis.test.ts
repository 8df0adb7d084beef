import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jobCancelled } from '@svc/test-support';
import type { WebhookService, WebhookStore } from '@svc/webhooks-core';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestRedis, describeRedis, redisReachable, removeKeys, uniquePrefix } from './redis-test-env';

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The fenced TypeScript blocks of a markdown file, each with the sample path its marker names. */
function markedBlocks(file: string): { sample: string; code: string }[] {
  const markdown = readFileSync(file, 'utf8');
  const pattern = /<!-- sample: (\S+) -->\n```ts\n([\s\S]*?)\n```/g;
  return [...markdown.matchAll(pattern)].map((match) => ({
    sample: fileURLToPath(new URL(match[1] ?? '', `file://${file}`)),
    code: match[2] ?? '',
  }));
}

describe('the Redis docs show the tested samples verbatim', () => {
  const docs = [`${PACKAGE_DIR}README.md`, fileURLToPath(new URL('../../../docs/redis.md', import.meta.url))];
  it.each(docs)('%s', (doc) => {
    const blocks = markedBlocks(doc);
    expect(blocks.length, 'samples shown').toBeGreaterThan(0);
    for (const block of blocks)
      expect(block.code, block.sample).toBe(readFileSync(block.sample, 'utf8').trimEnd());
    const unmarked = readFileSync(doc, 'utf8').split('```ts').length - 1 - blocks.length;
    expect(unmarked, 'TypeScript blocks without a tested sample').toBe(0);
  });
});

interface Sample {
  webhooks: WebhookService;
  shutdown(): Promise<void>;
}

/**
 * Runs one emit through a sample's service and worker. The configuration points
 * at 127.0.0.1, which the sample's default URL policy refuses at send time, so
 * the worker records a failed first attempt: proof that it claimed and ran it.
 */
async function emitThroughSample(sample: Sample, store: WebhookStore): Promise<void> {
  await store.upsertConfig({
    agencyId: 'agency-1',
    webhookUrl: 'https://127.0.0.1:9/hooks',
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
    now: Date.now(),
    newId: 'cfg-1',
    newSigningSecret: 'a'.repeat(64),
  });
  const emitted = await sample.webhooks.emit(jobCancelled('agency-1', 1));
  await expect
    .poll(async () => (await sample.webhooks.getDelivery('agency-1', emitted!.deliveryId)).attempt, {
      timeout: 15_000,
    })
    .toBe(1);
  const detail = await sample.webhooks.getDelivery('agency-1', emitted!.deliveryId);
  expect(detail).toMatchObject({ status: 'pending', lastResponseCode: null });
}

describeRedis('the samples run', () => {
  let redis: Redis;
  const prefixes: string[] = [];
  beforeAll(() => {
    redis = connectTestRedis();
  });
  afterAll(async () => {
    for (const prefix of prefixes) await removeKeys(redis, prefix);
    await redis.quit();
  });

  it('redis-only.ts: emit and a worker on createRedisWebhooks', async () => {
    const prefix = uniquePrefix('sample');
    prefixes.push(prefix);
    process.env.WEBHOOKS_PREFIX = prefix;
    const sample = (await import('./samples/redis-only')) as Sample;
    try {
      await emitThroughSample(sample, sample.webhooks.store);
    } finally {
      await sample.shutdown();
    }
  });

  it('pg-store-redis-queue.ts: a PostgreSQL store with the Redis queue and the recovery sweep', async (context) => {
    const probe = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
    const reachable = await probe.connect().then(
      () => true,
      () => false,
    );
    await probe.end().catch(() => undefined);
    if (!reachable && process.env.CI === 'true') throw new Error(`PostgreSQL unreachable at ${DATABASE_URL}`);
    context.skip(!reachable || !redisReachable, `PostgreSQL unreachable at ${DATABASE_URL}`);
    const prefix = uniquePrefix('sample');
    const schema = `whk_redis_sample_${Math.random().toString(16).slice(2, 10)}`;
    prefixes.push(prefix);
    Object.assign(process.env, { WEBHOOKS_PREFIX: prefix, WEBHOOKS_SCHEMA: schema, DATABASE_URL });
    const sample = (await import('./samples/pg-store-redis-queue')) as Sample;
    try {
      await emitThroughSample(sample, sample.webhooks.store);
    } finally {
      await sample.shutdown();
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});
