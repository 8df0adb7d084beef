import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Claim } from '../src/adapters/queue';
import { createMemoryQueue } from '../src/memory/memory-queue';
import { createMemoryStore } from '../src/memory/memory-store';
import { makeDeliveryRecord } from '../src/testing/delivery-record-builder';

const NOW = 1_700_000_000_000;

describe('createMemoryQueue: memory-only rules', () => {
  it('the holder of an expired lease that nobody re-claimed can still renew and ack it', async () => {
    const queue = createMemoryQueue();
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-a', runAt: NOW });
    const [claim] = await queue.claim({ limit: 1, leaseMs: 1_000, now: NOW });
    if (!claim) throw new Error('expected a claim');
    expect(await queue.renew(claim, 1_000, NOW + 5_000), 'renew after expiry').toBe(true);
    expect(await queue.claim({ limit: 1, leaseMs: 1_000, now: NOW + 5_500 }), 'held again').toEqual([]);
    expect(await queue.ack(claim)).toBe(true);
  });

  it('enqueue with another agencyId moves the entry to that agency', async () => {
    const queue = createMemoryQueue();
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-a', runAt: NOW });
    await queue.enqueue({ deliveryId: 'd-1', agencyId: 'agency-b', runAt: NOW });
    const options = { limit: 10, leaseMs: 1_000, now: NOW };
    expect(await queue.claim({ ...options, excludeAgencies: ['agency-b'] })).toEqual([]);
    const claims = await queue.claim(options);
    expect(claims.map((claim) => [claim.deliveryId, claim.agencyId])).toEqual([['d-1', 'agency-b']]);
  });

  it('claim refuses a lease that is not a positive number of ms', async () => {
    const queue = createMemoryQueue();
    await expect(queue.claim({ limit: 1, leaseMs: 0, now: NOW })).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });

  it('claims across thousands of agencies and entries in due order', async () => {
    const queue = createMemoryQueue();
    const runAts = Array.from({ length: 5_000 }, (_, index) => NOW - ((index * 7_919) % 5_000));
    await Promise.all(
      runAts.map((runAt, index) =>
        queue.enqueue({ deliveryId: `d-${index}`, agencyId: `agency-${index % 1_000}`, runAt }),
      ),
    );
    const claimed: number[] = [];
    for (;;) {
      const claims = await queue.claim({ limit: 64, leaseMs: 30_000, now: NOW });
      if (claims.length === 0) break;
      claimed.push(...claims.map((claim) => claim.runAt));
    }
    expect(claimed).toEqual([...runAts].sort((a, b) => a - b));
  });
});

/** What the queue must remember of one delivery, in the plainest form. */
interface ModelEntry {
  agencyId: string;
  runAt: number;
  claimId: string | null;
  leaseUntil: number;
}

type QueueOperation =
  | { kind: 'enqueue'; delivery: number; agency: number; offset: number }
  | { kind: 'claim'; limit: number; leaseMs: number; exclude: number }
  | { kind: 'renew'; pick: number; leaseMs: number }
  | { kind: 'ack'; pick: number }
  | { kind: 'reschedule'; pick: number; offset: number }
  | { kind: 'wait'; ms: number };

const queueOperation: fc.Arbitrary<QueueOperation> = fc.oneof(
  fc.record({
    kind: fc.constant('enqueue' as const),
    delivery: fc.nat({ max: 11 }),
    agency: fc.nat({ max: 2 }),
    offset: fc.integer({ min: -20, max: 40 }),
  }),
  fc.record({
    kind: fc.constant('claim' as const),
    limit: fc.integer({ min: 1, max: 4 }),
    leaseMs: fc.integer({ min: 1, max: 60 }),
    exclude: fc.nat({ max: 7 }),
  }),
  fc.record({
    kind: fc.constant('renew' as const),
    pick: fc.nat(),
    leaseMs: fc.integer({ min: 1, max: 60 }),
  }),
  fc.record({ kind: fc.constant('ack' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('reschedule' as const),
    pick: fc.nat(),
    offset: fc.integer({ min: -20, max: 40 }),
  }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 30 }) }),
);

function countBy(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

function claimableAt(entry: ModelEntry): number {
  return entry.claimId === null ? entry.runAt : entry.leaseUntil;
}

/**
 * Checks a claim's answer against the model, then applies it: round robin over
 * agencies (no agency gets a second entry while another that had one left got
 * none), earliest-claimable first within an agency (any entry tied for earliest
 * is a valid pick).
 */
function expectClaims(
  model: Map<string, ModelEntry>,
  claims: readonly Claim[],
  options: { limit: number; leaseMs: number; now: number; excluded: readonly string[] },
): void {
  const eligible = (id: string): boolean => {
    const entry = model.get(id);
    return !!entry && !options.excluded.includes(entry.agencyId) && claimableAt(entry) <= options.now;
  };
  const availableIds = [...model.keys()].filter(eligible);
  expect(claims.length, 'claims fill the limit from what is claimable').toBe(
    Math.min(options.limit, availableIds.length),
  );
  const availableBy = countBy(availableIds.map((id) => (model.get(id) as ModelEntry).agencyId));
  const takenBy = countBy(claims.map((claim) => claim.agencyId));
  const most = Math.max(0, ...takenBy.values());
  for (const [agencyId, available] of availableBy) {
    const taken = takenBy.get(agencyId) ?? 0;
    if (taken < available)
      expect(taken, `${agencyId}'s share of a round-robin claim`).toBeGreaterThanOrEqual(most - 1);
  }
  for (const claim of claims) {
    expect(eligible(claim.deliveryId), `${claim.deliveryId} was claimable`).toBe(true);
    const entry = model.get(claim.deliveryId) as ModelEntry;
    const earliest = Math.min(
      ...[...model.entries()]
        .filter(([id, other]) => eligible(id) && other.agencyId === entry.agencyId)
        .map(([, other]) => claimableAt(other)),
    );
    expect(claimableAt(entry), 'within an agency, earliest-claimable first').toBe(earliest);
    expect(claim).toMatchObject({
      agencyId: entry.agencyId,
      runAt: entry.runAt,
      leaseUntil: options.now + options.leaseMs,
    });
    entry.claimId = claim.claimId;
    entry.leaseUntil = claim.leaseUntil;
  }
}

describe('createMemoryQueue: against a plain model', () => {
  it('claims, renews, acks, reschedules and re-enqueues exactly as the rules say', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(queueOperation, { maxLength: 120 }), async (operations) => {
        const queue = createMemoryQueue();
        const model = new Map<string, ModelEntry>();
        const issued: Claim[] = [];
        const agencies = ['agency-0', 'agency-1', 'agency-2'];
        let now = NOW;
        const held = (claim: Claim): boolean => model.get(claim.deliveryId)?.claimId === claim.claimId;
        for (const op of operations) {
          const claim = issued.length > 0 && 'pick' in op ? issued[op.pick % issued.length] : undefined;
          if (op.kind === 'enqueue') {
            const entry = {
              deliveryId: `d-${op.delivery}`,
              agencyId: agencies[op.agency] as string,
              runAt: now + op.offset,
            };
            await queue.enqueue(entry);
            model.set(entry.deliveryId, {
              agencyId: entry.agencyId,
              runAt: entry.runAt,
              claimId: null,
              leaseUntil: 0,
            });
          } else if (op.kind === 'claim') {
            // Bit i of `exclude` excludes agency i.
            const excluded = agencies.filter((_, index) => (op.exclude >> index) & 1);
            const options = { limit: op.limit, leaseMs: op.leaseMs, now, excludeAgencies: excluded };
            const claims = await queue.claim(options);
            expectClaims(model, claims, { ...options, excluded });
            issued.push(...claims);
          } else if (op.kind === 'wait') {
            now += op.ms;
          } else if (claim) {
            const expected = held(claim);
            const entry = model.get(claim.deliveryId) as ModelEntry;
            if (op.kind === 'renew') {
              expect(await queue.renew(claim, op.leaseMs, now), 'renew').toBe(expected);
              if (expected) entry.leaseUntil = now + op.leaseMs;
            } else if (op.kind === 'ack') {
              expect(await queue.ack(claim), 'ack').toBe(expected);
              if (expected) model.delete(claim.deliveryId);
            } else {
              expect(await queue.reschedule(claim, now + op.offset), 'reschedule').toBe(expected);
              if (expected) Object.assign(entry, { claimId: null, runAt: now + op.offset });
            }
          }
        }
        // Everything left is claimable eventually, each entry exactly once.
        const last = { limit: 100, leaseMs: 1, now: now + 1_000, excluded: [] };
        expectClaims(model, await queue.claim(last), last);
      }),
    );
  });

  it('an expired lease comes out before a later ready entry of the same agency', async () => {
    const queue = createMemoryQueue();
    await queue.enqueue({ deliveryId: 'd-held', agencyId: 'agency-a', runAt: NOW });
    await queue.claim({ limit: 1, leaseMs: 100, now: NOW });
    await queue.enqueue({ deliveryId: 'd-ready', agencyId: 'agency-a', runAt: NOW + 200 });
    const [first] = await queue.claim({ limit: 1, leaseMs: 100, now: NOW + 300 });
    expect(first?.deliveryId).toBe('d-held');
  });
});

describe('createMemoryStore: memory-only rules', () => {
  it('refuses a second delivery with an existing id (store_error)', async () => {
    const store = createMemoryStore();
    const record = makeDeliveryRecord();
    await store.insertDelivery(record);
    await expect(store.insertDelivery({ ...record, eventId: 'evt-other' })).rejects.toMatchObject({
      code: 'store_error',
    });
  });

  it('keeps a payload\'s own "__proto__" key (as JSON.parse makes it) as data, not as a prototype', async () => {
    const store = createMemoryStore();
    const payload = JSON.parse('{"__proto__":{"polluted":true},"kept":1}') as Record<string, unknown>;
    const record = makeDeliveryRecord({ payload });
    await store.insertDelivery(record);
    const read = await store.getDelivery(record.id);
    expect(Object.getPrototypeOf(read?.payload)).toBe(Object.prototype);
    expect(Object.hasOwn(read?.payload ?? {}, '__proto__')).toBe(true);
    expect(JSON.stringify(read?.payload)).toBe('{"__proto__":{"polluted":true},"kept":1}');
  });
});
