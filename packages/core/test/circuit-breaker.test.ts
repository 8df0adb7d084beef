import { describe, expect, it } from 'vitest';
import type { AttemptErrorKind, AttemptOutcome } from '../src/delivery/attempt-outcome';
import {
  admission,
  afterAttempt,
  afterPersonalAttempt,
  type CircuitState,
  CLOSED_CIRCUIT,
  circuitChanged,
  circuitSignal,
  DEFAULT_CIRCUIT_SETTINGS,
  pausedUntil,
  probeNow,
  resolveCircuitSettings,
  startProbe,
} from '../src/delivery/circuit-breaker';

const NOW = 1_700_000_000_000;
const SETTINGS = DEFAULT_CIRCUIT_SETTINGS;

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

/** Applies `count` failures one ms apart from `start`. */
function failTimes(state: CircuitState, count: number, start = NOW): CircuitState {
  let current = state;
  for (let index = 0; index < count; index += 1)
    current = afterAttempt(current, 'failed', start + index, SETTINGS);
  return current;
}

describe('circuitSignal(outcome): what an attempt says about the receiver', () => {
  it.each([
    ['a 2xx', outcome(null, 200), 'answered'],
    ['a timeout', outcome('timeout'), 'failed'],
    ['a connection error', outcome('connect'), 'failed'],
    ['a DNS failure', outcome('dns'), 'failed'],
    ['a TLS failure', outcome('tls'), 'failed'],
    ['a 500', outcome('http_status', 500), 'failed'],
    ['a 503', outcome('http_status', 503), 'failed'],
    ['a 400 (the receiver is up)', outcome('http_status', 400), 'answered'],
    ['a 429 (Retry-After is the retry policy’s business)', outcome('http_status', 429), 'answered'],
    ['a redirect', outcome('http_status', 302), 'answered'],
    ['a private address refused by the URL policy', outcome('private_address'), 'neutral'],
  ] as const)('%s → %s', (_name, attempt, expected) => {
    expect(circuitSignal(attempt)).toBe(expected);
  });
});

describe('afterAttempt(state, signal, now, settings)', () => {
  it('stays closed through failureThreshold − 1 failures in a row, counting them', () => {
    const state = failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold - 1);
    expect(state).toMatchObject({
      status: 'closed',
      consecutiveFailures: SETTINGS.failureThreshold - 1,
      failingSince: NOW,
      lastFailureAt: NOW + SETTINGS.failureThreshold - 2,
    });
  });

  it('opens at failureThreshold failures in a row, for openMs', () => {
    const opened = failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold);
    const at = NOW + SETTINGS.failureThreshold - 1;
    expect(opened).toMatchObject({
      status: 'open',
      openedAt: at,
      openUntil: at + SETTINGS.openMs,
      openings: 1,
    });
  });

  it('an answer in between resets the count: failures must be in a row', () => {
    const almost = failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold - 1);
    const answered = afterAttempt(almost, 'answered', NOW + 100, SETTINGS);
    expect(answered).toMatchObject({
      status: 'closed',
      consecutiveFailures: 0,
      failingSince: null,
      lastSuccessAt: NOW + 100,
    });
    expect(afterAttempt(answered, 'failed', NOW + 200, SETTINGS).status).toBe('closed');
  });

  it('a failure of an attempt that started before the breaker opened counts but keeps the probe time', () => {
    const opened = failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold);
    const later = afterAttempt(opened, 'failed', NOW + 1_000, SETTINGS);
    expect(later).toMatchObject({
      status: 'open',
      consecutiveFailures: SETTINGS.failureThreshold + 1,
      openUntil: opened.openUntil,
    });
  });

  it('a failed probe opens it again for twice as long, up to maxOpenMs', () => {
    let state = failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold);
    const periods: number[] = [];
    for (let round = 0; round < 8; round += 1) {
      const probeAt = state.openUntil as number;
      const probing = startProbe(state, probeAt, 30_000);
      state = afterAttempt(probing, 'failed', probeAt + 10, SETTINGS);
      periods.push((state.openUntil as number) - (probeAt + 10));
    }
    expect(periods).toEqual([60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000, 600_000]);
  });

  it('an answered probe closes it and clears the backoff', () => {
    const opened = failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold);
    const probing = startProbe(opened, opened.openUntil as number, 30_000);
    expect(probing).toMatchObject({ status: 'half_open', openUntil: (opened.openUntil as number) + 30_000 });
    const closed = afterAttempt(probing, 'answered', NOW + 40_000, SETTINGS);
    expect(closed).toMatchObject({
      status: 'closed',
      consecutiveFailures: 0,
      openings: 0,
      openUntil: null,
      openedAt: null,
    });
  });

  it('returns the very same state when nothing changes: a healthy answer, or a neutral outcome', () => {
    expect(afterAttempt(CLOSED_CIRCUIT, 'answered', NOW, SETTINGS)).toBe(CLOSED_CIRCUIT);
    const failing = failTimes(CLOSED_CIRCUIT, 2);
    expect(afterAttempt(failing, 'neutral', NOW + 5, SETTINGS)).toBe(failing);
    expect(circuitChanged(failing, failing)).toBe(false);
    expect(circuitChanged(failing, { ...failing })).toBe(false);
    expect(circuitChanged(failing, { ...failing, lastFailureAt: NOW + 9 })).toBe(true);
  });

  it('never mutates its input', () => {
    const frozen = Object.freeze({ ...CLOSED_CIRCUIT });
    expect(() => failTimes(frozen, SETTINGS.failureThreshold + 2)).not.toThrow();
  });
});

describe('admission(state, now)', () => {
  it('closed → send; open before openUntil → defer until then; from openUntil → probe', () => {
    const opened = failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold);
    const until = opened.openUntil as number;
    expect(admission(CLOSED_CIRCUIT, NOW)).toEqual({ kind: 'send' });
    expect(admission(opened, until - 1)).toEqual({ kind: 'defer', until });
    expect(admission(opened, until)).toEqual({ kind: 'probe' });
  });

  it('half open: others defer while the probe holds it; a probe whose worker died is taken over', () => {
    const probing = startProbe(failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold), NOW + 60_000, 30_000);
    expect(admission(probing, NOW + 60_001)).toEqual({ kind: 'defer', until: NOW + 90_000 });
    expect(admission(probing, NOW + 90_000)).toEqual({ kind: 'probe' });
  });
});

describe('a person’s action: probeNow, afterPersonalAttempt, pausedUntil', () => {
  const open = failTimes(CLOSED_CIRCUIT, SETTINGS.failureThreshold);

  it('pausedUntil: the open period’s end, the probe hold’s end; null when closed or a probe is due', () => {
    expect(pausedUntil(open, NOW + 10)).toBe(open.openUntil);
    expect(pausedUntil(startProbe(open, NOW + 10, 5_000), NOW + 11)).toBe(NOW + 5_010);
    expect(pausedUntil(open, open.openUntil as number)).toBeNull();
    expect(pausedUntil(CLOSED_CIRCUIT, NOW)).toBeNull();
  });

  it('probeNow makes a probe due at once from open or half open, and leaves closed or due ones as they are', () => {
    const now = NOW + 1_000;
    expect(admission(probeNow(open, now), now)).toEqual({ kind: 'probe' });
    expect(admission(probeNow(startProbe(open, now, 30_000), now + 1), now + 1)).toEqual({ kind: 'probe' });
    expect(probeNow(CLOSED_CIRCUIT, now)).toBe(CLOSED_CIRCUIT);
    const due = probeNow(open, now);
    expect(probeNow(due, now + 5)).toBe(due);
    // The backoff is kept: a failing probe still opens it for the next, longer period.
    expect(probeNow(open, now).openings).toBe(open.openings);
  });

  it('a person’s answered attempt closes an open breaker; a failed one opens it again, longer', () => {
    const now = NOW + 1_000;
    expect(afterPersonalAttempt(open, 'answered', now, SETTINGS)).toMatchObject({
      status: 'closed',
      consecutiveFailures: 0,
      openUntil: null,
    });
    const due = probeNow(open, now);
    const reopened = afterPersonalAttempt(due, 'failed', now, SETTINGS);
    expect(reopened).toMatchObject({ status: 'open', openedAt: now, openings: 2 });
    expect(reopened.openUntil).toBe(now + 2 * SETTINGS.openMs);
    expect(afterPersonalAttempt(startProbe(due, now, 5_000), 'failed', now + 1, SETTINGS)).toMatchObject({
      status: 'open',
      openings: 2,
    });
    // Opened again already (by the probe, or another person's attempt): a failure only counts.
    const counted = afterPersonalAttempt(reopened, 'failed', now + 5, SETTINGS);
    expect(counted).toMatchObject({ openUntil: reopened.openUntil, openings: 2 });
    expect(counted.consecutiveFailures).toBe(reopened.consecutiveFailures + 1);
    expect(afterPersonalAttempt(reopened, 'answered', now + 5, SETTINGS).status).toBe('closed');
  });

  it('while closed, a person’s attempt counts as any other; a neutral one changes nothing', () => {
    expect(afterPersonalAttempt(CLOSED_CIRCUIT, 'failed', NOW, SETTINGS)).toEqual(
      afterAttempt(CLOSED_CIRCUIT, 'failed', NOW, SETTINGS),
    );
    expect(afterPersonalAttempt(open, 'neutral', NOW, SETTINGS)).toBe(open);
  });
});

describe('resolveCircuitSettings(options)', () => {
  it('defaults to 5 failures, 30 s open, 10 min at most; false turns it off', () => {
    expect(resolveCircuitSettings(undefined)).toEqual({
      failureThreshold: 5,
      openMs: 30_000,
      maxOpenMs: 600_000,
    });
    expect(resolveCircuitSettings({ failureThreshold: 3 })).toMatchObject({
      failureThreshold: 3,
      openMs: 30_000,
    });
    expect(resolveCircuitSettings(false)).toBeNull();
  });

  it.each([
    [{ failureThreshold: 0 }, 'circuitBreaker.failureThreshold'],
    [{ openMs: 1.5 }, 'circuitBreaker.openMs'],
    [{ maxOpenMs: -1 }, 'circuitBreaker.maxOpenMs'],
    [{ openMs: 60_000, maxOpenMs: 30_000 }, 'circuitBreaker.maxOpenMs'],
  ])('refuses %j with invalid_option naming %s', (options, option) => {
    expect(() => resolveCircuitSettings(options)).toThrow(
      expect.objectContaining({ code: 'invalid_option', option }),
    );
  });
});
