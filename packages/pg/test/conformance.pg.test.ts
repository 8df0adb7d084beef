import { describeQueueConformance, describeStoreConformance } from '@svc/webhooks-core/testing';
import { afterAll, beforeAll } from 'vitest';
import { createPgQueue, createPgWebhooks } from '../src/index';
import { createTestPool, createTestSchema, describePg, truncateSchema } from './pg-test-database';

// One schema for the file, emptied before each test: a schema per test would
// spend most of the suite's time in CREATE TABLE.
describePg('PostgreSQL adapter conformance', () => {
  const pool = createTestPool();
  let schema = '';
  let drop = async () => {};
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(pool));
  });
  afterAll(async () => {
    await drop();
    await pool.end();
  });

  const fresh = async () => {
    await truncateSchema(pool, schema);
    return createPgWebhooks({ pool, schema });
  };

  describeStoreConformance('PostgreSQL', async () => {
    const { store, close } = await fresh();
    return { store, teardown: close };
  });

  // The queue lives on the deliveries table, so the suite seeds a delivery row
  // through the store before each enqueue. The sibling is a second queue object
  // on the same schema, as another worker process would hold.
  describeQueueConformance('PostgreSQL', async () => {
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
