import { it } from 'vitest';
import { runFleet } from './fleet-run';
import { DATABASE_URL, describePg } from './pg-test-database';

describePg('three worker processes sharing one database', () => {
  it('deliver 5,000 deliveries, each recorded once per attempt, and lose nothing when one is SIGKILLed mid-run', async () => {
    await runFleet({ databaseUrl: DATABASE_URL, deliveries: 5_000, label: 'workers.pg' });
  }, 120_000);
});
