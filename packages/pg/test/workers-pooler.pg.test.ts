import { it } from 'vitest';
import { runFleet } from './fleet-run';
import { describePooler, PGBOUNCER_URL } from './pg-test-database';

// The same fleet, every statement of the emitter and of the three workers through
// PgBouncer in transaction mode with the adapters' defaults (so workers poll).
describePooler('three worker processes through PgBouncer', () => {
  it('deliver 2,000 deliveries, each recorded once per attempt, and lose nothing when one is SIGKILLed mid-run', async () => {
    await runFleet({ databaseUrl: PGBOUNCER_URL, deliveries: 2_000, label: 'workers-pooler.pg' });
  }, 120_000);
});
