import type { UpsertConfigInput } from '../adapters/store';
import type { WebhookConfigRecord } from '../config/config';
import { type CircuitState, closeCircuit } from '../delivery/circuit-breaker';
import { type EndpointHealth, healthState, healthView, resetHealth } from '../delivery/endpoint-health';
import { ConfigNotFoundError } from '../errors';
import { callHook } from '../observability/hooks';
import { stateOf } from './circuit-access';
import type { Engine } from './engine';

/** Compare-and-set tries of a PUT's reset before it gives up to a busier writer. */
const RESET_TRIES = 4;

/**
 * The agency's endpoint health for `GET /config/health`. The circuit record holds
 * the failing run; the newest successful delivery fills in `lastSuccessAt`, which
 * the record only stamps when a 2xx ends a run. Without a breaker there is no
 * record: the state then comes from the configuration alone.
 * @throws ConfigNotFoundError
 */
export async function getEndpointHealth(engine: Engine, agencyId: string): Promise<EndpointHealth> {
  const config = await engine.store.getConfig(agencyId);
  if (!config) throw new ConfigNotFoundError(agencyId);
  const [circuit, newest] = await Promise.all([
    engine.circuit ? engine.store.getCircuit(agencyId) : null,
    engine.store.listDeliveries(agencyId, { status: 'success', limit: 1 }),
  ]);
  return healthView(config, circuit, newest[0]?.deliveredAt ?? null, engine.clock());
}

/**
 * Writes a PUT's configuration after closing the agency's breaker and forgetting
 * its failing run: the agency changed its endpoint, or says it is fixed, so
 * neither should keep its deliveries waiting or count towards a disable. The
 * record is reset first, so a worker about to disable the configuration either
 * sees the reset or loses its compare-and-set to this write's `updatedAt`.
 * Reports the health change the PUT makes (such as `disabled` → `healthy`).
 */
export async function upsertConfigResettingHealth(
  engine: Engine,
  input: UpsertConfigInput,
): Promise<{ config: WebhookConfigRecord; created: boolean }> {
  const listening = engine.hooks.onEndpointHealthChange !== undefined;
  const previous = listening ? await engine.store.getConfig(input.agencyId) : null;
  const circuits = await resetAgencyHealth(engine, input.agencyId);
  const written = await engine.store.upsertConfig(input);
  if (previous) reportPutChange(engine, previous, written.config, circuits);
  return written;
}

/** The record before and after the reset (null when the agency has none). */
interface ResetResult {
  before: CircuitState | null;
  after: CircuitState | null;
}

async function resetAgencyHealth(engine: Engine, agencyId: string): Promise<ResetResult> {
  let circuit = await engine.store.getCircuit(agencyId);
  const before = circuit && stateOf(circuit);
  for (let attempt = 0; circuit && attempt < RESET_TRIES; attempt += 1) {
    const state = stateOf(circuit);
    const reset = resetHealth(closeCircuit(state));
    if (reset === state) return { before, after: state };
    if (await engine.store.saveCircuit(agencyId, circuit.version, reset)) return { before, after: reset };
    // A worker wrote in between: reset what it wrote, so its failing run cannot outlive the PUT.
    circuit = await engine.store.getCircuit(agencyId);
  }
  return { before, after: circuit && stateOf(circuit) };
}

function reportPutChange(
  engine: Engine,
  previous: WebhookConfigRecord,
  config: WebhookConfigRecord,
  circuits: ResetResult,
): void {
  const before = healthState(previous, circuits.before);
  const health = healthView(config, circuits.after, null, engine.clock());
  if (before === health.state) return;
  callHook(engine.hooks.onEndpointHealthChange, {
    agencyId: config.agencyId,
    previous: before,
    current: health.state,
    health,
  });
}
