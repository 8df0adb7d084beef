import { InvalidOptionError } from '../errors';
import { positiveIntegerOption } from '../validation';
import type { AttemptOutcome } from './attempt-outcome';

/*
 * The per-agency circuit breaker, as pure functions of a state, an event and a
 * clock. The worker keeps the state in the store (so every process sees it) and
 * asks here what an attempt outcome does to it and whether a claim may send.
 *
 * closed ──(failureThreshold consecutive receiver failures)──▶ open
 * open ──(openUntil passed; one worker wins the probe)──▶ half_open
 * half_open ──(probe answered)──▶ closed     half_open ──(probe failed)──▶ open, longer
 *
 * A "receiver failure" is what says the receiver cannot take traffic: a timeout,
 * a connection, DNS or TLS error, or a 5xx. A 4xx, a 429 or a redirect is an
 * answer: the receiver is up, so it resets the count (the retry policy still
 * retries the delivery). A refusal by the URL policy says nothing about the
 * receiver and leaves the state as it is.
 */

/** Where an agency's breaker stands. */
export type CircuitStatus = 'closed' | 'open' | 'half_open';

/** An agency's breaker, as the store keeps it. Times are epoch ms. */
export interface CircuitState {
  status: CircuitStatus;
  /** Receiver failures in a row since the last answer. */
  consecutiveFailures: number;
  /** When the current run of failures began; null while answers come. */
  failingSince: number | null;
  /** When an attempt last went without a 2xx (kept for endpoint health; the breaker only writes it). */
  lastFailureAt: number | null;
  /**
   * When a 2xx last ended a run of attempts without one (healthy agencies are not
   * written on every success). The breaker alone stamps any answer that closes it;
   * the worker keeps it to 2xx (see endpoint-health.ts).
   */
  lastSuccessAt: number | null;
  /** When the breaker last opened; null while closed. */
  openedAt: number | null;
  /**
   * While `open`: when a probe may be sent. While `half_open`: when the probe's
   * hold ends (a probe whose worker died is then taken over). Null while closed.
   */
  openUntil: number | null;
  /** Times it opened since the last answer: the exponent of the open period's backoff. */
  openings: number;
  /**
   * Endpoint health (delivery/endpoint-health.ts): attempts in a row without a 2xx,
   * whatever went wrong (a 4xx and a URL-policy refusal too); 0 after a 2xx.
   */
  unsuccessfulAttempts: number;
  /** When the current run of attempts without a 2xx began; null after a 2xx. */
  unsuccessfulSince: number | null;
}

/** A stored {@link CircuitState} with the version its compare-and-set checks. */
export interface CircuitRecord extends CircuitState {
  agencyId: string;
  /** Increases by one on every write; starts at 1. */
  version: number;
}

/** Breaker thresholds: the `circuitBreaker` option of {@link createWebhookService}. */
export interface CircuitBreakerOptions {
  /**
   * Receiver failures in a row (timeouts, connection, DNS or TLS errors, 5xx) that open the breaker.
   * @default 5
   */
  failureThreshold?: number;
  /**
   * How long the breaker stays open the first time, in ms; each further opening
   * without an answer in between doubles it, up to `maxOpenMs`.
   * @default 30_000
   */
  openMs?: number;
  /**
   * Longest open period, in ms.
   * @default 600_000 (10 min)
   */
  maxOpenMs?: number;
}

/** Resolved breaker settings. */
export interface CircuitSettings {
  failureThreshold: number;
  openMs: number;
  maxOpenMs: number;
}

export const DEFAULT_CIRCUIT_SETTINGS: CircuitSettings = Object.freeze({
  failureThreshold: 5,
  openMs: 30_000,
  maxOpenMs: 600_000,
});

/** The state of an agency the store has never seen fail. */
export const CLOSED_CIRCUIT: CircuitState = Object.freeze({
  status: 'closed',
  consecutiveFailures: 0,
  failingSince: null,
  lastFailureAt: null,
  lastSuccessAt: null,
  openedAt: null,
  openUntil: null,
  openings: 0,
  unsuccessfulAttempts: 0,
  unsuccessfulSince: null,
});

/** Validates the option; `false` turns the breaker off (null). */
export function resolveCircuitSettings(
  options: CircuitBreakerOptions | false | undefined,
): CircuitSettings | null {
  if (options === false) return null;
  const defaults = DEFAULT_CIRCUIT_SETTINGS;
  const settings: CircuitSettings = {
    failureThreshold: positiveIntegerOption(
      'circuitBreaker.failureThreshold',
      options?.failureThreshold,
      defaults.failureThreshold,
    ),
    openMs: positiveIntegerOption('circuitBreaker.openMs', options?.openMs, defaults.openMs),
    maxOpenMs: positiveIntegerOption('circuitBreaker.maxOpenMs', options?.maxOpenMs, defaults.maxOpenMs),
  };
  if (settings.maxOpenMs < settings.openMs) {
    throw new InvalidOptionError(
      '@svc/webhooks-core',
      'circuitBreaker.maxOpenMs',
      `circuitBreaker.maxOpenMs (${settings.maxOpenMs}) must be at least openMs (${settings.openMs}).`,
    );
  }
  return settings;
}

/** How an attempt outcome bears on the receiver's health. */
export type CircuitSignal = 'answered' | 'failed' | 'neutral';

/** Timeouts, connection, DNS and TLS errors and 5xx fail; any other response answers; a policy refusal is neutral. */
export function circuitSignal(outcome: AttemptOutcome): CircuitSignal {
  if (outcome.ok) return 'answered';
  switch (outcome.errorKind) {
    case 'timeout':
    case 'connect':
    case 'dns':
    case 'tls':
      return 'failed';
    case 'http_status':
      return outcome.statusCode !== null && outcome.statusCode >= 500 ? 'failed' : 'answered';
    default:
      return 'neutral';
  }
}

/** What a claim of the agency may do now. */
export type CircuitAdmission =
  | { kind: 'send' }
  /** The breaker is open and due a probe: whoever takes it (see {@link startProbe}) sends one attempt. */
  | { kind: 'probe' }
  /** Not before `until`: the breaker is open, or another worker's probe is out. */
  | { kind: 'defer'; until: number };

/** Answers without a time are shared: the worker asks once per attempt, and closed is the common case. */
const SEND: CircuitAdmission = Object.freeze({ kind: 'send' });
const PROBE: CircuitAdmission = Object.freeze({ kind: 'probe' });

export function admission(state: CircuitState, now: number): CircuitAdmission {
  if (state.status === 'closed') return SEND;
  const until = state.openUntil ?? now;
  return until > now ? { kind: 'defer', until } : PROBE;
}

/**
 * The state once this worker has taken the probe: `half_open`, held until
 * `now + holdMs` (longer than one attempt), so no other worker probes meanwhile.
 */
export function startProbe(state: CircuitState, now: number, holdMs: number): CircuitState {
  return { ...state, status: 'half_open', openUntil: now + holdMs };
}

/**
 * The breaker closed with its failure count reset (the last failure and success times kept), or
 * `state` itself when it is closed with no failure counted: the caller then has nothing to write.
 */
export function closeCircuit(state: CircuitState): CircuitState {
  if (state.status === 'closed' && state.consecutiveFailures === 0) return state;
  return {
    ...state,
    status: 'closed',
    consecutiveFailures: 0,
    failingSince: null,
    openedAt: null,
    openUntil: null,
    openings: 0,
  };
}

/** The state after an attempt's outcome. Returns `state` itself when nothing changes. */
export function afterAttempt(
  state: CircuitState,
  signal: CircuitSignal,
  now: number,
  settings: CircuitSettings,
): CircuitState {
  if (signal === 'neutral') return state;
  if (signal === 'answered') {
    const closed = closeCircuit(state);
    // Healthy already: a write per success would cost more than the delivery.
    return closed === state ? state : { ...closed, lastSuccessAt: now };
  }
  const failed: CircuitState = {
    ...state,
    consecutiveFailures: state.consecutiveFailures + 1,
    failingSince: state.failingSince ?? now,
    lastFailureAt: now,
  };
  // An attempt started before the breaker opened may fail while it is open: it
  // counts, but does not move the probe time.
  if (state.status === 'open') return failed;
  if (state.status === 'half_open' || failed.consecutiveFailures >= settings.failureThreshold) {
    const openFor = Math.min(settings.maxOpenMs, settings.openMs * 2 ** Math.min(state.openings, 30));
    return {
      ...failed,
      status: 'open',
      openedAt: now,
      openUntil: now + openFor,
      openings: state.openings + 1,
    };
  }
  return failed;
}

/**
 * Until when the breaker holds the agency's automatic attempts: the end of an open
 * period, or of a probe's hold while half open; null when closed or when a probe
 * is due now.
 */
export function pausedUntil(state: CircuitState, now: number): number | null {
  if (state.status === 'closed' || state.openUntil === null) return null;
  return state.openUntil > now ? state.openUntil : null;
}

/**
 * What a person's action (a replay, a bulk recovery) does to a breaker that is not
 * closed: a probe due at once, so the agency's deliveries are claimed again now
 * rather than at the end of the open period. Returns `state` itself when a probe
 * is due already, or the breaker is closed.
 */
export function probeNow(state: CircuitState, now: number): CircuitState {
  if (state.status === 'closed') return state;
  if (state.status === 'open' && state.openUntil !== null && state.openUntil <= now) return state;
  return { ...state, status: 'open', openUntil: now };
}

/**
 * The state after a person's attempt (a replay or a recovery, sent whatever the
 * breaker said): the breaker takes it as its probe, so an answer closes it and a
 * failure opens it again for the next, longer period, unless another attempt has
 * done so already (it is open into the future): then the failure only counts.
 */
export function afterPersonalAttempt(
  state: CircuitState,
  signal: CircuitSignal,
  now: number,
  settings: CircuitSettings,
): CircuitState {
  const reopenedAlready = state.status === 'open' && state.openUntil !== null && state.openUntil > now;
  if (state.status === 'closed' || signal === 'neutral' || (signal === 'failed' && reopenedAlready)) {
    return afterAttempt(state, signal, now, settings);
  }
  return afterAttempt({ ...state, status: 'half_open' }, signal, now, settings);
}

/** Whether two states differ in anything the store keeps. */
export function circuitChanged(before: CircuitState, after: CircuitState): boolean {
  return (
    before !== after &&
    (before.status !== after.status ||
      before.consecutiveFailures !== after.consecutiveFailures ||
      before.failingSince !== after.failingSince ||
      before.lastFailureAt !== after.lastFailureAt ||
      before.lastSuccessAt !== after.lastSuccessAt ||
      before.openedAt !== after.openedAt ||
      before.openUntil !== after.openUntil ||
      before.openings !== after.openings ||
      before.unsuccessfulAttempts !== after.unsuccessfulAttempts ||
      before.unsuccessfulSince !== after.unsuccessfulSince)
  );
}
