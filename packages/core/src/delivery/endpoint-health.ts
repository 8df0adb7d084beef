import { z } from 'zod';
import type { WebhookConfigRecord } from '../config/config';
import { InvalidOptionError } from '../errors';
import { positiveIntegerOption } from '../validation';
import type { AttemptOutcome } from './attempt-outcome';
import {
  afterAttempt,
  afterPersonalAttempt,
  type CircuitSettings,
  type CircuitState,
  circuitSignal,
  pausedUntil,
} from './circuit-breaker';

/*
 * An agency's endpoint health, as pure functions of its circuit record, its
 * configuration and a clock.
 *
 * Health asks a different question from the breaker. The breaker asks "can the
 * receiver take traffic?", so a 4xx is an answer and closes it. Health asks
 * "does anything we send get through?", so every attempt without a 2xx counts
 * against it: timeouts, connection, DNS and TLS errors, any non-2xx status and
 * URL-policy refusals alike. Both live in the one circuit record, so an attempt
 * still costs at most one compare-and-set, and a healthy agency's success none.
 *
 * Health owns `lastSuccessAt` and `lastFailureAt`: a 4xx that closes the breaker
 * is no success, so it never moves `lastSuccessAt`.
 */

/** Where an agency's endpoint stands. */
export const endpointHealthStateSchema = z.enum(['healthy', 'failing', 'disabled']).meta({
  description:
    '`healthy`: the last attempt got a 2xx, or none was made yet; `failing`: every attempt since `failingSince` went without a 2xx; `disabled`: the configuration is not enabled (by the agency, or automatically: see `disabledReason`).',
});
/** Where an agency's endpoint stands; see {@link endpointHealthStateSchema}. */
export type EndpointHealthState = z.infer<typeof endpointHealthStateSchema>;

const epochMs = z.number().int().nullable();

/** Response of `GET /config/health`: the agency's endpoint health. Times are epoch ms, null when never. */
export const endpointHealthSchema = z
  .object({
    state: endpointHealthStateSchema,
    consecutiveFailures: z.number().int().min(0).meta({
      description: 'Attempts in a row without a 2xx (any error or non-2xx status); 0 after a 2xx.',
    }),
    lastSuccessAt: epochMs.meta({
      description:
        'When an attempt last got a 2xx, in epoch milliseconds: the 2xx that ended the last failing run, or else the newest successful delivery.',
    }),
    lastFailureAt: epochMs.meta({
      description: 'When an attempt last went without a 2xx, in epoch milliseconds.',
    }),
    failingSince: epochMs.meta({
      description:
        'When the current run of attempts without a 2xx began, in epoch milliseconds; null while healthy.',
    }),
    disabledAt: epochMs.meta({
      description: 'When the configuration was disabled automatically, in epoch milliseconds.',
    }),
    pausedUntil: epochMs.meta({
      description:
        'While the circuit breaker holds the endpoint’s deliveries (the receiver failed too often in a row): when they are tried next, in epoch milliseconds. A replay, a bulk recovery or a successful test send tries at once. Null when nothing is held.',
    }),
    disabledReason: z.string().nullable().meta({
      description:
        'Why it was disabled automatically: `auto_disabled_failing` (every attempt failed for the service’s `autoDisable.afterMs`) or `receiver_gone` (the receiver answered 410 Gone under a Standard Webhooks signature scheme). Null when enabled, or disabled by the agency.',
    }),
  })
  .meta({ id: 'EndpointHealth' });
/** An agency's endpoint health, as `webhooks.getEndpointHealth` and `GET /config/health` answer it. */
export type EndpointHealth = z.infer<typeof endpointHealthSchema>;

/** The `disabledReason` of a configuration the service disabled because every attempt failed for `afterMs`. */
export const AUTO_DISABLED_FAILING = 'auto_disabled_failing';

/**
 * The `disabledReason` of a configuration the service disabled because its receiver answered
 * `410 Gone` under a Standard Webhooks scheme (`'standard'` or `'both'`).
 */
export const RECEIVER_GONE = 'receiver_gone';

/** The `autoDisable` option of {@link createWebhookService}. */
export interface AutoDisableOptions {
  /**
   * How long every attempt must have gone without a 2xx before the configuration
   * is disabled, in ms, counted from the first attempt of the run.
   * @default 432_000_000 (5 days)
   */
  afterMs?: number;
}

/** Resolved auto-disable settings. */
export interface AutoDisableSettings {
  afterMs: number;
}

/** Five days, as receivers' operators expect from other webhook senders. */
export const DEFAULT_AUTO_DISABLE_AFTER_MS = 432_000_000;

/**
 * Validates the option; `false` (or no breaker) turns auto-disable off (null).
 * Health is kept in the breaker's record, so with `circuitBreaker: false` there is
 * nothing to decide on: asking for auto-disable then is a wiring mistake.
 */
export function resolveAutoDisable(
  options: AutoDisableOptions | false | undefined,
  breaker: CircuitSettings | null,
): AutoDisableSettings | null {
  if (options === false) return null;
  if (breaker === null) {
    if (options === undefined) return null;
    throw new InvalidOptionError(
      '@svc/webhooks-core',
      'autoDisable',
      'autoDisable needs the circuit breaker, which keeps endpoint health: remove `circuitBreaker: false`, or pass `autoDisable: false`.',
    );
  }
  return {
    afterMs: positiveIntegerOption('autoDisable.afterMs', options?.afterMs, DEFAULT_AUTO_DISABLE_AFTER_MS),
  };
}

/**
 * The health fields after an attempt: `ok` is a 2xx. Returns `state` itself when
 * nothing changes (a 2xx while healthy), so the caller has nothing to write.
 */
export function afterAttemptHealth(state: CircuitState, ok: boolean, now: number): CircuitState {
  if (ok) {
    if (state.unsuccessfulAttempts === 0 && state.unsuccessfulSince === null) return state;
    return { ...state, unsuccessfulAttempts: 0, unsuccessfulSince: null, lastSuccessAt: now };
  }
  return {
    ...state,
    unsuccessfulAttempts: state.unsuccessfulAttempts + 1,
    unsuccessfulSince: state.unsuccessfulSince ?? now,
    lastFailureAt: now,
  };
}

/**
 * The breaker's {@link afterAttempt} and {@link afterAttemptHealth} together: what
 * an attempt's outcome does to the agency's circuit record. A `personal` attempt
 * (a replay's or a recovery's) counts as the breaker's probe
 * ({@link afterPersonalAttempt}). Returns `state` itself when nothing changes.
 */
export function afterAttemptWithHealth(
  state: CircuitState,
  outcome: AttemptOutcome,
  now: number,
  settings: CircuitSettings,
  personal = false,
): CircuitState {
  // Nothing was sent: it says nothing of the receiver, for the breaker or for health.
  if (outcome.errorKind === 'sender_busy') return state;
  const signal = circuitSignal(outcome);
  const breaker = personal
    ? afterPersonalAttempt(state, signal, now, settings)
    : afterAttempt(state, signal, now, settings);
  // The breaker stamps `lastSuccessAt` on any answer that closes it (a 4xx too); for health only a 2xx is one.
  const kept =
    outcome.ok || breaker.lastSuccessAt === state.lastSuccessAt
      ? breaker
      : { ...breaker, lastSuccessAt: state.lastSuccessAt };
  return afterAttemptHealth(kept, outcome.ok, now);
}

/**
 * The record with its health run forgotten (the breaker and the last success and
 * failure times kept), or `state` itself when there is no run: what a PUT of the
 * configuration does, together with the breaker's `closeCircuit`.
 */
export function resetHealth(state: CircuitState): CircuitState {
  if (state.unsuccessfulAttempts === 0 && state.unsuccessfulSince === null) return state;
  return { ...state, unsuccessfulAttempts: 0, unsuccessfulSince: null };
}

/** Whether every attempt has gone without a 2xx for at least `afterMs` by `now`. */
export function shouldAutoDisable(state: CircuitState, now: number, afterMs: number): boolean {
  return (
    state.unsuccessfulAttempts > 0 &&
    state.unsuccessfulSince !== null &&
    state.unsuccessfulSince <= now - afterMs
  );
}

/** The state a configuration and its circuit record put the endpoint in. */
export function healthState(
  config: Pick<WebhookConfigRecord, 'enabled'>,
  circuit: CircuitState | null,
): EndpointHealthState {
  if (!config.enabled) return 'disabled';
  return circuit !== null && circuit.unsuccessfulAttempts > 0 ? 'failing' : 'healthy';
}

/**
 * The health the API shows. The record's `lastSuccessAt` is only written when a 2xx
 * ends a failing run (a healthy agency's successes cost no write), so
 * `newestSuccessAt`, the newest successful delivery's `deliveredAt`, fills it in
 * when it is later; pass null where that read is not worth it.
 */
export function healthView(
  config: Pick<WebhookConfigRecord, 'enabled' | 'disabledAt' | 'disabledReason'>,
  circuit: CircuitState | null,
  newestSuccessAt: number | null,
  now: number,
): EndpointHealth {
  return {
    state: healthState(config, circuit),
    consecutiveFailures: circuit?.unsuccessfulAttempts ?? 0,
    lastSuccessAt: latest(circuit?.lastSuccessAt ?? null, newestSuccessAt),
    lastFailureAt: circuit?.lastFailureAt ?? null,
    failingSince: circuit?.unsuccessfulSince ?? null,
    disabledAt: config.disabledAt,
    pausedUntil: config.enabled && circuit ? pausedUntil(circuit, now) : null,
    disabledReason: config.disabledReason,
  };
}

function latest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.max(a, b);
}
