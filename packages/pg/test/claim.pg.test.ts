import type { Claim } from '@svc/webhooks-core';
import { expect, it } from 'vitest';
import { createPgQueue } from '../src/index';
import { createTestPool, describePg, useTestSchema } from './pg-test-database';

const BASE_TIME = 1_700_000_000_000;
const LEASE_MS = 30_000;

/** Inserts `count` pending deliveries due at BASE_TIME, spread over `agencies` agencies, in one statement. */
async function seedDue(
  pool: ReturnType<typeof createTestPool>,
  schema: string,
  count: number,
  agencies = 10,
) {
  await pool.query(
    `INSERT INTO "${schema}".webhook_deliveries
       (id, agency_id, event_id, event_type, entity_type, payload, created_on, created_at, status, attempt,
        max_attempts, next_retry_at, run_at)
     SELECT 'd-' || lpad(n::text, 7, '0'), 'agency-' || (n % $2), 'evt-' || n, 'job_created', 'job', '{}',
            $1, $1, 'pending', 0, 5, $1, $1
       FROM generate_series(1, $3) AS n`,
    [BASE_TIME, agencies, count],
  );
}

describePg('claim under concurrency (FOR UPDATE SKIP LOCKED)', () => {
  const pool = createTestPool();
  const db = useTestSchema(pool);

  it('20 claimers on 4 pools drain 3,000 due rows: each row claimed exactly once', async () => {
    await seedDue(pool, db.schema, 3_000);
    const pools = Array.from({ length: 4 }, () => createTestPool({ max: 5 }));
    try {
      // Every pool opens its five connections first: otherwise, on a loaded machine, the claimer whose
      // connection happened to open first can drain all 3,000 rows before the others are connected.
      await Promise.all(
        pools.flatMap((each) => Array.from({ length: 5 }, () => each.query('SELECT pg_sleep(0.05)'))),
      );
      const queues = pools.map((each) => createPgQueue({ pool: each, schema: db.schema, notify: false }));
      const claimer = async (index: number): Promise<Claim[]> => {
        const queue = queues[index % queues.length]!;
        const mine: Claim[] = [];
        for (;;) {
          const batch = await queue.claim({ limit: 25, leaseMs: LEASE_MS, now: BASE_TIME });
          if (batch.length === 0) return mine;
          mine.push(...batch);
        }
      };
      const perClaimer = await Promise.all(Array.from({ length: 20 }, (_, index) => claimer(index)));
      const ids = perClaimer.flat().map((claim) => claim.deliveryId);
      expect(ids).toHaveLength(3_000);
      expect(new Set(ids).size).toBe(3_000);
      // Work was shared out, not taken by whichever claimer came first.
      expect(perClaimer.filter((claims) => claims.length > 0).length).toBeGreaterThan(1);
    } finally {
      await Promise.all(pools.map((each) => each.end()));
    }
  });

  it('concurrent claimers acking and rescheduling: no claim id ever works twice, every row ends acked', async () => {
    await seedDue(pool, db.schema, 600);
    const queue = createPgQueue({ pool, schema: db.schema, notify: false });
    const acked = new Set<string>();
    let rescheduled = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const batch = await queue.claim({ limit: 10, leaseMs: LEASE_MS, now: BASE_TIME });
        if (batch.length === 0) return;
        for (const claim of batch) {
          // Every third row goes back once (due again at once), the rest are acked.
          if (!acked.has(`r:${claim.deliveryId}`) && claim.deliveryId.endsWith('3')) {
            acked.add(`r:${claim.deliveryId}`);
            expect(await queue.reschedule(claim, BASE_TIME)).toBe(true);
            rescheduled++;
          } else {
            expect(await queue.ack(claim)).toBe(true);
            expect(acked.has(claim.deliveryId)).toBe(false);
            acked.add(claim.deliveryId);
          }
          expect(await queue.ack(claim)).toBe(false);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect([...acked].filter((key) => !key.startsWith('r:'))).toHaveLength(600);
    expect(rescheduled).toBe(60);
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM "${db.schema}".webhook_deliveries WHERE run_at IS NOT NULL OR claim_id IS NOT NULL`,
    );
    expect(rows[0].n).toBe(0);
  });

  it('an expired lease is claimed again by another claimer; the first claim id then stops working', async () => {
    await seedDue(pool, db.schema, 1);
    const pools = [createTestPool({ max: 2 }), createTestPool({ max: 2 })];
    try {
      const [first, second] = pools.map((each) =>
        createPgQueue({ pool: each, schema: db.schema, notify: false }),
      ) as [ReturnType<typeof createPgQueue>, ReturnType<typeof createPgQueue>];
      const [stale] = await first.claim({ limit: 1, leaseMs: 1_000, now: BASE_TIME });
      expect(await second.claim({ limit: 1, leaseMs: 1_000, now: BASE_TIME + 999 })).toEqual([]);
      const [fresh] = await second.claim({ limit: 1, leaseMs: 1_000, now: BASE_TIME + 1_000 });
      expect(fresh?.deliveryId).toBe(stale?.deliveryId);
      expect(fresh?.claimId).not.toBe(stale?.claimId);
      expect(fresh?.runAt).toBe(BASE_TIME);
      expect(await first.renew(stale!, 1_000, BASE_TIME + 1_001)).toBe(false);
      expect(await first.ack(stale!)).toBe(false);
      expect(await second.ack(fresh!)).toBe(true);
    } finally {
      await Promise.all(pools.map((each) => each.end()));
    }
  });
});
