import { describe, expect, it } from 'vitest';
import {
  type CircuitState,
  CLOSED_CIRCUIT,
  closeCircuit,
  DEFAULT_CIRCUIT_SETTINGS,
  probeNow,
} from '../src/delivery/circuit-breaker';
import { createMemoryStore } from '../src/index';
import { CircuitGate } from '../src/worker/circuit-gate';

const OPEN_FOR_MS = 30_000;

function openState(now: number): CircuitState {
  return {
    ...CLOSED_CIRCUIT,
    status: 'open',
    consecutiveFailures: 5,
    failingSince: now - 1_000,
    lastFailureAt: now,
    openedAt: now,
    openUntil: now + OPEN_FOR_MS,
    openings: 1,
  };
}

async function pausedAgency() {
  const store = createMemoryStore();
  const now = Date.now();
  const saved = await store.saveCircuit('agency-a', null, openState(now));
  let releases = 0;
  const gate = new CircuitGate({
    store,
    settings: DEFAULT_CIRCUIT_SETTINGS,
    probeHoldMs: 60_000,
    onChange: () => {},
    onError: (error) => {
      throw error;
    },
    onRelease: () => {
      releases += 1;
    },
    clock: Date.now,
  });
  gate.open();
  return { store, gate, saved, now, releases: () => releases };
}

async function waitFor(condition: () => boolean, limitMs: number): Promise<number> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

describe('CircuitGate: an excluded agency', () => {
  it('is excluded, and a held claim is put back due by the next re-read, not at the end of the open period', async () => {
    const { gate, now } = await pausedAgency();
    const decided = await gate.decide('agency-a', now);
    expect(decided.kind).toBe('defer');
    expect((decided as { until: number }).until).toBeLessThanOrEqual(now + 500);
    const cached = gate.cached('agency-a', now + 10);
    expect(cached?.kind).toBe('defer');
    expect((cached as { until: number }).until).toBeLessThanOrEqual(now + 510);
    expect(gate.blocked(now + 10)).toEqual(['agency-a']);
    gate.close();
  });

  it('is released without any claim when another process closes the breaker, with the claim loop woken', async () => {
    const { store, gate, saved, now, releases } = await pausedAgency();
    await gate.decide('agency-a', now);
    await store.saveCircuit('agency-a', saved?.version as number, closeCircuit(openState(now)));
    // The re-read runs on the gate's own timer: nothing calls blocked() or decide() meanwhile.
    await waitFor(() => releases() > 0, 2_000);
    expect(gate.blocked(Date.now())).toEqual([]);
    expect(gate.cached('agency-a', Date.now())).toEqual({ kind: 'send' });
    gate.close();
  });

  it('is released when a person makes a probe due, and the next claim takes the probe', async () => {
    const { store, gate, saved, now, releases } = await pausedAgency();
    await gate.decide('agency-a', now);
    await store.saveCircuit('agency-a', saved?.version as number, probeNow(openState(now), Date.now()));
    await waitFor(() => releases() > 0, 2_000);
    expect(gate.blocked(Date.now())).toEqual([]);
    expect(await gate.decide('agency-a', Date.now())).toEqual({ kind: 'probe' });
    gate.close();
  });

  it('stays excluded while the breaker stays open', async () => {
    const { gate, now, releases } = await pausedAgency();
    await gate.decide('agency-a', now);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(releases()).toBe(0);
    expect(gate.blocked(Date.now())).toEqual(['agency-a']);
    gate.close();
  });
});
