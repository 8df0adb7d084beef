import { describePausedEndpointScenario } from '@svc/test-support/paused-endpoint-scenario';
import { afterAll, beforeAll } from 'vitest';
import { createPgWebhooks } from '../src/index';
import { createTestPool, createTestSchema, describePg } from './pg-test-database';

describePg('the paused-endpoint scenario on PostgreSQL', () => {
  // Three simulated processes share the pool: two workers (with their notification listeners) and the API.
  const pool = createTestPool({ max: 20 });
  let schema = '';
  let drop: () => Promise<void> = async () => {};
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(pool));
  });
  afterAll(async () => {
    await drop();
    await pool.end();
  });

  describePausedEndpointScenario({
    name: 'PostgreSQL',
    open: () => createPgWebhooks({ pool, schema }),
  });
});
