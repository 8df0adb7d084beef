import { describeQueueConformance, describeStoreConformance } from '@svc/webhooks-core/testing';
import { afterAll, beforeAll } from 'vitest';
import { createPgQueue, createPgWebhooks } from '../src/index';
import {
  createPoolerPool,
  createTestPool,
  createTestSchema,
  describePooler,
  truncateSchema,
} from './pg-test-database';

// The whole store and queue contract with the adapters' defaults, every statement
// through PgBouncer in transaction mode (schema set-up and emptying go direct).
describePooler('PostgreSQL adapter conformance through PgBouncer', () => {
  const direct = createTestPool();
  const pool = createPoolerPool();
  let schema = '';
  let drop = async () => {};
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(direct));
    // The first call finds the pooler, so each queue knows it has no wake-ups from the start.
    await createPgWebhooks({ pool, schema }).store.getConfig('warm-up');
  });
  afterAll(async () => {
    await drop();
    await Promise.all([direct.end(), pool.end()]);
  });

  const fresh = async () => {
    await truncateSchema(direct, schema);
    return createPgWebhooks({ pool, schema, onError: () => undefined });
  };

  describeStoreConformance('PostgreSQL through PgBouncer', async () => {
    const { store, close } = await fresh();
    return { store, teardown: close };
  });

  describeQueueConformance('PostgreSQL through PgBouncer', async () => {
    const { store, queue, close } = await fresh();
    const siblings: Array<ReturnType<typeof createPgQueue>> = [];
    const sibling = () => {
      const other = createPgQueue({ pool, schema, notify: false });
      siblings.push(other);
      return other;
    };
    const teardown = async () => {
      await Promise.all(siblings.map((other) => other.close?.()));
      await close();
    };
    return { queue, store, sibling, teardown };
  });
});
