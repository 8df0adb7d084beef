import type { Claim } from '@svc/webhooks-core';
import { describe, expect, it } from 'vitest';
import { createPgQueue } from '../src/index';
import { createTestPool, describePg, useTestSchema } from './pg-test-database';
import { BASE_TIME, LEASE_MS, rowsReadByClaim, seedHistory, seedQueue } from './queue-fixtures';

/** `agency-00` … `agency-(n-1)`, each with `count` entries due from `firstRunAt`. */
function agencies(n: number, count: number, firstRunAt: number, prefix = 'agency') {
  return Array.from({ length: n }, (_, index) => ({
    agencyId: `${prefix}-${String(index).padStart(2, '0')}`,
    count,
    firstRunAt,
  }));
}

function agenciesOf(claims: readonly Claim[]): string[] {
  return claims.map((claim) => claim.agencyId);
}

describePg('fair claims on PostgreSQL', () => {
  const pool = createTestPool();
  const db = useTestSchema(pool);
  const queue = () => createPgQueue({ pool, schema: db.schema, notify: false });

  describe('a deep backlog does not crowd out other agencies', () => {
    for (const perAgencyLimit of [undefined, 8]) {
      it(`with 2,000 due entries of one agency and one of each of 20 others, the first claim of 21 takes one of each (perAgencyLimit ${perAgencyLimit})`, async () => {
        await seedQueue(pool, db.schema, [
          { agencyId: 'agency-deep', count: 2_000, firstRunAt: BASE_TIME - 600_000 },
          ...agencies(20, 1, BASE_TIME - 1_000),
        ]);
        const claims = await queue().claim({ limit: 21, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit });
        expect(claims).toHaveLength(21);
        expect(new Set(agenciesOf(claims)).size, 'agencies in the first claim of 21').toBe(21);
      });
    }

    it('the claim reads about as many rows with a backlog of 20,000 as with one of 200', async () => {
      const read = async (backlog: number) => {
        await pool.query(`TRUNCATE "${db.schema}".webhook_attempts, "${db.schema}".webhook_deliveries`);
        await seedQueue(pool, db.schema, [
          { agencyId: 'agency-deep', count: backlog, firstRunAt: BASE_TIME - 600_000 },
          ...agencies(20, 1, BASE_TIME - 1_000),
        ]);
        return rowsReadByClaim(pool, db.schema, { now: BASE_TIME, limit: 21, cap: 8 });
      };
      const shallow = await read(200);
      const deep = await read(20_000);
      expect(deep, `rows read with a backlog of 200: ${shallow}`).toBeLessThanOrEqual(shallow + 10);
      expect(deep, 'rows read with a backlog of 20,000').toBeLessThan(300);
    });

    it("an excluded agency's 20,000 due entries cost the claim one step, not a scan", async () => {
      await seedQueue(pool, db.schema, [
        { agencyId: 'agency-hanging', count: 20_000, firstRunAt: BASE_TIME - 600_000 },
        ...agencies(5, 1, BASE_TIME - 1_000),
      ]);
      const claims = await queue().claim({
        limit: 10,
        leaseMs: LEASE_MS,
        now: BASE_TIME,
        excludeAgencies: ['agency-hanging'],
      });
      expect(agenciesOf(claims).sort()).toEqual(agencies(5, 1, 0).map((each) => each.agencyId));
      const read = await rowsReadByClaim(pool, db.schema, {
        now: BASE_TIME,
        limit: 10,
        excluded: ['agency-hanging'],
      });
      expect(read, 'rows read').toBeLessThan(300);
    });
  });

  describe('little due work among many agencies with future entries', () => {
    it('is claimed without walking the agencies that hold only future entries', async () => {
      await seedHistory(pool, db.schema, 20_000);
      await seedQueue(pool, db.schema, agencies(5, 2, BASE_TIME - 1_000, 'agency-now'));
      const alone = await rowsReadByClaim(pool, db.schema, { now: BASE_TIME, limit: 8, cap: 8 });
      await seedQueue(pool, db.schema, agencies(40, 3, BASE_TIME + 3_600_000, 'agency-later'));
      const among = await rowsReadByClaim(pool, db.schema, { now: BASE_TIME, limit: 8, cap: 8 });
      expect(among, `rows read with 40 more agencies holding future entries (${alone} without them)`).toBe(
        alone,
      );
      const claims = await queue().claim({ limit: 8, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: 8 });
      expect(
        new Set(agenciesOf(claims)).size,
        'agencies in a claim of 8 over 5 agencies with 2 due each',
      ).toBe(5);
      const rest = await queue().claim({ limit: 8, leaseMs: LEASE_MS, now: BASE_TIME, perAgencyLimit: 8 });
      expect(claims.length + rest.length, 'due entries claimed').toBe(10);
    });
  });

  describe('the rotation', () => {
    it('serves every agency once before any agency twice, across claims and around the ring', async () => {
      await seedQueue(pool, db.schema, agencies(30, 3, BASE_TIME - 60_000));
      const pgQueue = queue();
      const served = new Map<string, number>();
      for (let claimNumber = 1; claimNumber <= 12; claimNumber += 1) {
        const claims = await pgQueue.claim({
          limit: 7,
          leaseMs: LEASE_MS,
          now: BASE_TIME,
          perAgencyLimit: 8,
        });
        expect(claims, `claim ${claimNumber} of 7`).toHaveLength(7);
        for (const claim of claims) {
          served.set(claim.agencyId, (served.get(claim.agencyId) ?? 0) + 1);
          await pgQueue.ack(claim);
        }
        const counts = agencies(30, 0, 0).map((each) => served.get(each.agencyId) ?? 0);
        expect(
          Math.max(...counts) - Math.min(...counts),
          `after claim ${claimNumber}, entries served per agency: ${counts}`,
        ).toBeLessThanOrEqual(1);
      }
    });
  });
});
