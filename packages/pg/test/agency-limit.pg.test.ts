import type { Claim, DeliveryQueue } from '@svc/webhooks-core';
import { expect, it } from 'vitest';
import { createPgQueue } from '../src/index';
import { createTestPool, describePg, useTestSchema } from './pg-test-database';
import { BASE_TIME, LEASE_MS, seedQueue } from './queue-fixtures';

const CAP = 3;

describePg('perAgencyLimit counted on PostgreSQL (capabilities.sharedAgencyLimit)', () => {
  const pool = createTestPool();
  const db = useTestSchema(pool);

  async function liveLeases(agencyId: string): Promise<number> {
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM "${db.schema}".webhook_deliveries WHERE agency_id = $1 AND lease_until > $2`,
      [agencyId, BASE_TIME],
    );
    return rows[0].n;
  }

  it('declares the shared cap', () => {
    expect(createPgQueue({ pool, schema: db.schema, notify: false }).capabilities.sharedAgencyLimit).toBe(
      true,
    );
  });

  it('eight concurrent claimers on two queue objects, cap 3: never more than 3 live leases of the agency', async () => {
    await seedQueue(pool, db.schema, [
      { agencyId: 'agency-a', count: 30, firstRunAt: BASE_TIME - 60_000 },
      { agencyId: 'agency-b', count: 30, firstRunAt: BASE_TIME - 30_000 },
    ]);
    // Two queue objects, each on its own pool: two worker processes as far as the database can tell.
    const pools = [createTestPool({ max: 4 }), createTestPool({ max: 4 })];
    try {
      const queues = pools.map((each) => createPgQueue({ pool: each, schema: db.schema, notify: false }));
      const claimers: DeliveryQueue[] = Array.from({ length: 8 }, (_, index) => queues[index % 2]!);
      const held: Claim[] = [];
      const claimed = new Set<string>();
      for (let round = 1; claimed.size < 60; round += 1) {
        expect(round, 'rounds needed to drain 60 entries').toBeLessThan(60);
        const batches = await Promise.all(
          claimers.map((queue) =>
            queue.claim({ limit: 2, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: CAP }),
          ),
        );
        for (const claim of batches.flat()) {
          expect(claimed.has(claim.deliveryId), `${claim.deliveryId} claimed twice`).toBe(false);
          claimed.add(claim.deliveryId);
          held.push(claim);
        }
        for (const agencyId of ['agency-a', 'agency-b']) {
          const holding = held.filter((claim) => claim.agencyId === agencyId).length;
          expect(holding, `claims of ${agencyId} held after round ${round}`).toBeLessThanOrEqual(CAP);
          expect(await liveLeases(agencyId), `live leases of ${agencyId} after round ${round}`).toBe(holding);
        }
        // Finish every other claim, oldest first, so places free up while others stay taken.
        for (const claim of held.splice(0, Math.ceil(held.length / 2))) {
          expect(await queues[0]!.ack(claim)).toBe(true);
        }
      }
    } finally {
      await Promise.all(pools.map((each) => each.end()));
    }
  });

  it('a lease taken without perAgencyLimit counts against the cap of a later claim', async () => {
    await seedQueue(pool, db.schema, [{ agencyId: 'agency-a', count: 6, firstRunAt: BASE_TIME - 60_000 }]);
    const queue = createPgQueue({ pool, schema: db.schema, notify: false });
    expect(await queue.claim({ limit: 2, leaseMs: LEASE_MS, now: BASE_TIME })).toHaveLength(2);
    const capped = await queue.claim({ limit: 5, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: CAP });
    expect(capped, 'claims under a cap of 3 with 2 leases live').toHaveLength(1);
  });

  it('an agency at its cap does not hold back the others in the same claim', async () => {
    await seedQueue(pool, db.schema, [
      { agencyId: 'agency-a', count: 10, firstRunAt: BASE_TIME - 60_000 },
      { agencyId: 'agency-b', count: 10, firstRunAt: BASE_TIME - 30_000 },
    ]);
    const queue = createPgQueue({ pool, schema: db.schema, notify: false });
    await queue.claim({
      limit: CAP,
      leaseMs: LEASE_MS,
      now: BASE_TIME,
      perAgencyLimit: CAP,
      excludeAgencies: ['agency-b'],
    });
    const next = await queue.claim({ limit: 4, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: CAP });
    expect(next.map((claim) => claim.agencyId)).toEqual(['agency-b', 'agency-b', 'agency-b']);
  });
});
