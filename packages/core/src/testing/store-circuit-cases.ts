import { describe, expect, it } from 'vitest';
import type { WebhookStore } from '../adapters/store';
import { type CircuitState, CLOSED_CIRCUIT } from '../delivery/circuit-breaker';
import { BASE_TIME } from './delivery-record-builder';

const OPEN: CircuitState = {
  status: 'open',
  consecutiveFailures: 5,
  failingSince: BASE_TIME - 60_000,
  lastFailureAt: BASE_TIME,
  lastSuccessAt: BASE_TIME - 3_600_000,
  openedAt: BASE_TIME,
  openUntil: BASE_TIME + 30_000,
  openings: 1,
  unsuccessfulAttempts: 9,
  unsuccessfulSince: BASE_TIME - 120_000,
};

/** The circuit breaker's compare-and-set: shared state every worker process reads. */
export function describeCircuitCases(store: () => WebhookStore): void {
  describe('circuit breaker state', () => {
    it('an agency never written has no circuit', async () => {
      expect(await store().getCircuit('agency-a')).toBeNull();
    });

    it('saveCircuit with expectedVersion null creates it at version 1, with every field as given', async () => {
      const saved = await store().saveCircuit('agency-a', null, OPEN);
      expect(saved).toEqual({ ...OPEN, agencyId: 'agency-a', version: 1 });
      expect(await store().getCircuit('agency-a'), 'read back').toEqual(saved);
      expect(await store().getCircuit('agency-b'), 'another agency').toBeNull();
    });

    it('keeps null times and a closed state exactly', async () => {
      const saved = await store().saveCircuit('agency-a', null, CLOSED_CIRCUIT);
      expect(await store().getCircuit('agency-a')).toEqual({
        ...CLOSED_CIRCUIT,
        agencyId: 'agency-a',
        version: 1,
      });
      expect(saved?.version).toBe(1);
    });

    it('a write with the stored version succeeds and bumps it; a stale version or a second create fails and changes nothing', async () => {
      const created = await store().saveCircuit('agency-a', null, OPEN);
      expect(created?.version).toBe(1);
      expect(await store().saveCircuit('agency-a', null, CLOSED_CIRCUIT), 'second create').toBeNull();
      const halfOpen: CircuitState = { ...OPEN, status: 'half_open', openUntil: BASE_TIME + 40_000 };
      const updated = await store().saveCircuit('agency-a', 1, halfOpen);
      expect(updated).toEqual({ ...halfOpen, agencyId: 'agency-a', version: 2 });
      expect(await store().saveCircuit('agency-a', 1, CLOSED_CIRCUIT), 'stale version 1').toBeNull();
      expect(await store().saveCircuit('agency-b', 1, CLOSED_CIRCUIT), 'no such circuit').toBeNull();
      expect(await store().getCircuit('agency-a'), 'unchanged by the failed writes').toEqual(updated);
      expect(await store().getCircuit('agency-b')).toBeNull();
    });

    it('keeps the endpoint health fields through updates, from a run to none and back', async () => {
      await store().saveCircuit('agency-a', null, OPEN);
      const healed: CircuitState = { ...OPEN, unsuccessfulAttempts: 0, unsuccessfulSince: null };
      expect(await store().saveCircuit('agency-a', 1, healed)).toEqual({
        ...healed,
        agencyId: 'agency-a',
        version: 2,
      });
      expect(await store().getCircuit('agency-a'), 'read back after the run ended').toEqual({
        ...healed,
        agencyId: 'agency-a',
        version: 2,
      });
      const failing: CircuitState = {
        ...CLOSED_CIRCUIT,
        unsuccessfulAttempts: 1,
        unsuccessfulSince: BASE_TIME,
      };
      await store().saveCircuit('agency-a', 2, failing);
      expect(await store().getCircuit('agency-a'), 'a run with the breaker closed (a 4xx)').toEqual({
        ...failing,
        agencyId: 'agency-a',
        version: 3,
      });
    });

    it('of concurrent writers with the same expected version, exactly one wins', async () => {
      await store().saveCircuit('agency-a', null, CLOSED_CIRCUIT);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          store().saveCircuit('agency-a', 1, { ...OPEN, consecutiveFailures: index + 1 }),
        ),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners, 'successful writes').toHaveLength(1);
      expect(await store().getCircuit('agency-a')).toEqual(winners[0]);
    });

    it('deleting the configuration leaves the circuit', async () => {
      await store().upsertConfig({
        agencyId: 'agency-a',
        webhookUrl: 'https://hooks.example.com/a',
        enabled: true,
        subscribedEventTypes: [],
        now: BASE_TIME,
        newId: 'cfg-a',
        newSigningSecret: 'a'.repeat(64),
      });
      await store().saveCircuit('agency-a', null, OPEN);
      await store().deleteConfig('agency-a');
      expect((await store().getCircuit('agency-a'))?.status).toBe('open');
    });
  });
}
