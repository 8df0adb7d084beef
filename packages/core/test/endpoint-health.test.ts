import { describe, expect, it } from 'vitest';
import type { AttemptErrorKind, AttemptOutcome } from '../src/delivery/attempt-outcome';
import { type CircuitState, CLOSED_CIRCUIT, DEFAULT_CIRCUIT_SETTINGS } from '../src/delivery/circuit-breaker';
import {
  AUTO_DISABLED_FAILING,
  afterAttemptHealth,
  afterAttemptWithHealth,
  DEFAULT_AUTO_DISABLE_AFTER_MS,
  healthState,
  healthView,
  resetHealth,
  resolveAutoDisable,
  shouldAutoDisable,
} from '../src/delivery/endpoint-health';
import { InvalidOptionError } from '../src/errors';

const NOW = 1_700_000_000_000;
const SETTINGS = DEFAULT_CIRCUIT_SETTINGS;
const DAY = 86_400_000;

function outcome(errorKind: AttemptErrorKind | null, statusCode: number | null = null): AttemptOutcome {
  return {
    ok: errorKind === null,
    statusCode,
    errorKind,
    errorMessage: errorKind === null ? null : 'failed',
    durationMs: 5,
    responseExcerpt: null,
    retryAfterMs: null,
  };
}

const FAILING: CircuitState = {
  ...CLOSED_CIRCUIT,
  unsuccessfulAttempts: 3,
  unsuccessfulSince: NOW - 60_000,
  lastFailureAt: NOW - 1_000,
  lastSuccessAt: NOW - DAY,
};

const ENABLED = { enabled: true, disabledAt: null, disabledReason: null };

describe('afterAttemptWithHealth(state, outcome, now, settings): what counts against health', () => {
  it.each([
    ['a timeout', outcome('timeout')],
    ['a connection error', outcome('connect')],
    ['a DNS failure', outcome('dns')],
    ['a TLS failure', outcome('tls')],
    ['a 500', outcome('http_status', 500)],
    ['a 404 (an answer to the breaker, no success to health)', outcome('http_status', 404)],
    ['a 429', outcome('http_status', 429)],
    ['a redirect', outcome('http_status', 302)],
    ['a URL-policy refusal', outcome('private_address')],
  ] as const)('%s starts a run: 1 attempt, since now, lastFailureAt now', (_name, attempt) => {
    const next = afterAttemptWithHealth(CLOSED_CIRCUIT, attempt, NOW, SETTINGS);
    expect(next).toMatchObject({ unsuccessfulAttempts: 1, unsuccessfulSince: NOW, lastFailureAt: NOW });
    expect(next.lastSuccessAt, 'no success recorded').toBeNull();
  });

  it('a request the sender was too busy to send changes nothing, for health or the breaker', () => {
    expect(afterAttemptWithHealth(CLOSED_CIRCUIT, outcome('sender_busy'), NOW, SETTINGS)).toBe(
      CLOSED_CIRCUIT,
    );
    expect(afterAttemptWithHealth(FAILING, outcome('sender_busy'), NOW, SETTINGS, true)).toBe(FAILING);
  });

  it('a 2xx while healthy changes nothing: the same object, so the worker writes nothing', () => {
    expect(afterAttemptWithHealth(CLOSED_CIRCUIT, outcome(null, 200), NOW, SETTINGS)).toBe(CLOSED_CIRCUIT);
  });

  it('further failures count on, keeping the run’s start', () => {
    const next = afterAttemptWithHealth(FAILING, outcome('http_status', 410), NOW, SETTINGS);
    expect(next).toMatchObject({
      unsuccessfulAttempts: 4,
      unsuccessfulSince: NOW - 60_000,
      lastFailureAt: NOW,
      lastSuccessAt: NOW - DAY,
    });
  });

  it('a 2xx ends the run and stamps lastSuccessAt', () => {
    const next = afterAttemptWithHealth(FAILING, outcome(null, 204), NOW, SETTINGS);
    expect(next).toMatchObject({
      unsuccessfulAttempts: 0,
      unsuccessfulSince: null,
      lastSuccessAt: NOW,
      lastFailureAt: NOW - 1_000,
    });
  });

  it('a 4xx after receiver failures closes the breaker as before, but is no success', () => {
    const broken: CircuitState = {
      ...FAILING,
      consecutiveFailures: 2,
      failingSince: NOW - 60_000,
    };
    const next = afterAttemptWithHealth(broken, outcome('http_status', 400), NOW, SETTINGS);
    expect(next, 'the breaker’s own reset').toMatchObject({
      status: 'closed',
      consecutiveFailures: 0,
      failingSince: null,
    });
    expect(next, 'health keeps counting').toMatchObject({
      unsuccessfulAttempts: 4,
      lastSuccessAt: NOW - DAY,
      lastFailureAt: NOW,
    });
  });

  it('opens the breaker exactly as the breaker alone does; 4xx in between never open it', () => {
    let state = CLOSED_CIRCUIT;
    for (let index = 0; index < 10; index += 1)
      state = afterAttemptWithHealth(state, outcome('http_status', 404), NOW + index, SETTINGS);
    expect(state).toMatchObject({ status: 'closed', consecutiveFailures: 0, unsuccessfulAttempts: 10 });
    for (let index = 0; index < SETTINGS.failureThreshold; index += 1)
      state = afterAttemptWithHealth(state, outcome('timeout'), NOW + 10 + index, SETTINGS);
    expect(state).toMatchObject({ status: 'open', unsuccessfulAttempts: 10 + SETTINGS.failureThreshold });
  });
});

describe('afterAttemptHealth(state, ok, now)', () => {
  it('returns the state itself for a success while healthy, a copy otherwise', () => {
    expect(afterAttemptHealth(CLOSED_CIRCUIT, true, NOW)).toBe(CLOSED_CIRCUIT);
    expect(afterAttemptHealth(CLOSED_CIRCUIT, false, NOW)).not.toBe(CLOSED_CIRCUIT);
    expect(afterAttemptHealth(FAILING, true, NOW)).toMatchObject({
      unsuccessfulAttempts: 0,
      lastSuccessAt: NOW,
    });
  });
});

describe('resetHealth(state): what a PUT does to the run', () => {
  it('forgets the run, keeps the last success and failure times', () => {
    expect(resetHealth(FAILING)).toEqual({ ...FAILING, unsuccessfulAttempts: 0, unsuccessfulSince: null });
  });

  it('returns the state itself when there is no run', () => {
    expect(resetHealth(CLOSED_CIRCUIT)).toBe(CLOSED_CIRCUIT);
  });
});

describe('shouldAutoDisable(state, now, afterMs)', () => {
  const afterMs = 5 * DAY;
  it.each([
    ['no run', CLOSED_CIRCUIT, NOW, false],
    ['a run younger than afterMs', { ...FAILING, unsuccessfulSince: NOW - afterMs + 1 }, NOW, false],
    ['a run exactly afterMs old', { ...FAILING, unsuccessfulSince: NOW - afterMs }, NOW, true],
    ['a run older than afterMs', { ...FAILING, unsuccessfulSince: NOW - 6 * DAY }, NOW, true],
    [
      'a time without a count (inconsistent record)',
      { ...CLOSED_CIRCUIT, unsuccessfulSince: NOW - 6 * DAY },
      NOW,
      false,
    ],
  ] as const)('%s → %s', (_name, state, now, expected) => {
    expect(shouldAutoDisable(state, now, afterMs)).toBe(expected);
  });
});

describe('healthState and healthView', () => {
  it.each([
    ['enabled, never written', ENABLED, null, 'healthy'],
    ['enabled, healthy record', ENABLED, CLOSED_CIRCUIT, 'healthy'],
    ['enabled, a run', ENABLED, FAILING, 'failing'],
    ['disabled by the agency, a run', { ...ENABLED, enabled: false }, FAILING, 'disabled'],
    [
      'disabled automatically',
      { enabled: false, disabledAt: NOW, disabledReason: AUTO_DISABLED_FAILING },
      FAILING,
      'disabled',
    ],
  ] as const)('%s → %s', (_name, config, circuit, expected) => {
    expect(healthState(config, circuit)).toBe(expected);
    expect(healthView(config, circuit, null, NOW).state).toBe(expected);
  });

  it('maps the record’s health fields and the configuration’s disable', () => {
    const config = { enabled: false, disabledAt: NOW, disabledReason: AUTO_DISABLED_FAILING };
    expect(healthView(config, FAILING, null, NOW)).toEqual({
      state: 'disabled',
      consecutiveFailures: 3,
      lastSuccessAt: NOW - DAY,
      lastFailureAt: NOW - 1_000,
      failingSince: NOW - 60_000,
      disabledAt: NOW,
      pausedUntil: null,
      disabledReason: AUTO_DISABLED_FAILING,
    });
  });

  it('pausedUntil: the end of an open period or a probe’s hold, null when closed, due a probe or disabled', () => {
    const open: CircuitState = { ...FAILING, status: 'open', openedAt: NOW - 10, openUntil: NOW + 30_000 };
    expect(healthView(ENABLED, open, null, NOW).pausedUntil).toBe(NOW + 30_000);
    expect(healthView(ENABLED, { ...open, status: 'half_open' }, null, NOW).pausedUntil).toBe(NOW + 30_000);
    expect(healthView(ENABLED, open, null, NOW + 30_000).pausedUntil, 'a probe is due').toBeNull();
    expect(healthView(ENABLED, FAILING, null, NOW).pausedUntil, 'closed').toBeNull();
    const disabled = { enabled: false, disabledAt: NOW, disabledReason: AUTO_DISABLED_FAILING };
    expect(healthView(disabled, open, null, NOW).pausedUntil, 'disabled: nothing is tried at all').toBeNull();
  });

  it('without a record: zero and nulls, lastSuccessAt from the newest successful delivery', () => {
    expect(healthView(ENABLED, null, NOW - 5, NOW)).toEqual({
      state: 'healthy',
      consecutiveFailures: 0,
      lastSuccessAt: NOW - 5,
      lastFailureAt: null,
      failingSince: null,
      disabledAt: null,
      pausedUntil: null,
      disabledReason: null,
    });
  });

  it('lastSuccessAt is the later of the record’s and the newest successful delivery’s', () => {
    expect(healthView(ENABLED, FAILING, NOW - 2 * DAY, NOW).lastSuccessAt).toBe(NOW - DAY);
    expect(healthView(ENABLED, FAILING, NOW - 5, NOW).lastSuccessAt).toBe(NOW - 5);
    expect(healthView(ENABLED, FAILING, null, NOW).lastSuccessAt).toBe(NOW - DAY);
  });
});

describe('resolveAutoDisable(options, breaker)', () => {
  it('defaults to five days with the breaker on', () => {
    expect(resolveAutoDisable(undefined, SETTINGS)).toEqual({ afterMs: DEFAULT_AUTO_DISABLE_AFTER_MS });
    expect(DEFAULT_AUTO_DISABLE_AFTER_MS).toBe(432_000_000);
    expect(resolveAutoDisable({}, SETTINGS)).toEqual({ afterMs: 432_000_000 });
    expect(resolveAutoDisable({ afterMs: 60_000 }, SETTINGS)).toEqual({ afterMs: 60_000 });
  });

  it('false turns it off, with or without the breaker', () => {
    expect(resolveAutoDisable(false, SETTINGS)).toBeNull();
    expect(resolveAutoDisable(false, null)).toBeNull();
  });

  it('is off without the breaker when not asked for, and refused when asked for', () => {
    expect(resolveAutoDisable(undefined, null)).toBeNull();
    expect(() => resolveAutoDisable({ afterMs: 60_000 }, null)).toThrow(InvalidOptionError);
    expect(() => resolveAutoDisable({}, null)).toThrow(/circuitBreaker: false/);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses afterMs %s', (afterMs) => {
    expect(() => resolveAutoDisable({ afterMs }, SETTINGS)).toThrow(InvalidOptionError);
  });
});
