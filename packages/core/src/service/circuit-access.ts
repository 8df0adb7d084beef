import {
  type CircuitRecord,
  type CircuitState,
  closeCircuit,
  pausedUntil,
  probeNow,
} from '../delivery/circuit-breaker';
import { type DeliveryDetail, type DeliveryRecord, toDeliveryDetail } from '../delivery/delivery';
import { nextAttemptShown } from '../delivery/next-attempt';
import { callHook } from '../observability/hooks';
import type { Engine } from './engine';

/*
 * What a person's action does to the agency's circuit breaker, written through
 * the store so that every worker process sees it (they read an excluded agency's
 * record again every half second: worker/circuit-gate.ts), and how the breaker's
 * hold shows on a delivery.
 */

/** Compare-and-set tries before giving up to busier writers (the workers), whose writes then stand. */
const SAVE_TRIES = 4;

/**
 * A replay or a bulk recovery while the breaker is not closed: a probe due at
 * once, so the agency's deliveries are claimed now; the person's own attempt
 * goes whatever the breaker then says (worker.ts) and counts as its probe.
 */
export function probeAgencyNow(engine: Engine, agencyId: string): Promise<void> {
  return rewriteCircuit(engine, agencyId, (state) => probeNow(state, engine.clock()));
}

/**
 * A test send answered with a 2xx: the receiver takes traffic, so the breaker
 * closes and the held deliveries are due at once. Endpoint health is left to
 * the deliveries themselves: a test event is not one.
 */
export function closeAfterTestSend(engine: Engine, agencyId: string): Promise<void> {
  return rewriteCircuit(engine, agencyId, (state) => {
    const closed = closeCircuit(state);
    return closed === state ? state : { ...closed, lastSuccessAt: engine.clock() };
  });
}

/**
 * The detail view of a delivery with the breaker's hold applied: a pending
 * automatic attempt held by an open breaker shows when it will really be tried
 * (`nextRetryAt`, and `pausedUntil` saying why), and one that is due and waiting
 * for its turn shows now, never a time already past.
 */
export async function deliveryDetailOf(engine: Engine, record: DeliveryRecord): Promise<DeliveryDetail> {
  const detail = toDeliveryDetail(record);
  if (record.status !== 'pending') return detail;
  const held = engine.circuit !== null && record.nextAttemptTrigger === 'automatic';
  const circuit = held ? await engine.store.getCircuit(record.agencyId) : null;
  const now = engine.clock();
  const paused = circuit ? pausedUntil(circuit, now) : null;
  return { ...detail, nextRetryAt: nextAttemptShown(record.nextRetryAt, paused, now), pausedUntil: paused };
}

async function rewriteCircuit(
  engine: Engine,
  agencyId: string,
  change: (state: CircuitState) => CircuitState,
): Promise<void> {
  if (!engine.circuit) return;
  for (let attempt = 0; attempt < SAVE_TRIES; attempt += 1) {
    const circuit = await engine.store.getCircuit(agencyId);
    if (!circuit) return;
    const state = stateOf(circuit);
    const next = change(state);
    if (next === state) return;
    const saved = await engine.store.saveCircuit(agencyId, circuit.version, next);
    if (saved) {
      if (saved.status !== circuit.status) {
        callHook(engine.hooks.onCircuitChange, { circuit: saved, previous: circuit.status });
      }
      return;
    }
  }
}

/** The record without its key and version: what `saveCircuit` takes. */
export function stateOf(circuit: CircuitRecord): CircuitState {
  const { agencyId: _agency, version: _version, ...state } = circuit;
  return state;
}
