import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../src/delivery/attempt-outcome';
import { AgencySlots, INITIAL_AGENCY_WINDOW, nextWindow } from '../src/worker/agency-slots';

function outcome(statusCode: number | null, errorKind: AttemptOutcome['errorKind']): AttemptOutcome {
  return {
    ok: statusCode !== null && statusCode < 300,
    statusCode,
    errorKind,
    errorMessage: errorKind === null ? null : 'The attempt failed.',
    responseExcerpt: null,
    retryAfterMs: null,
    durationMs: 5,
  };
}

const answered = outcome(200, null);
const serverError = outcome(503, 'http_status');
const timedOut = outcome(null, 'timeout');
const refused = outcome(null, 'connect');
const badCertificate = outcome(null, 'tls');

describe('nextWindow', () => {
  it('doubles on any response, 5xx included, up to the cap', () => {
    expect(nextWindow(2, answered, 8)).toBe(4);
    expect(nextWindow(4, serverError, 8)).toBe(8);
    expect(nextWindow(8, answered, 8)).toBe(8);
    expect(nextWindow(6, answered, 8)).toBe(8);
  });

  it('halves on a timeout or a failed connect, never below one', () => {
    expect(nextWindow(8, timedOut, 8)).toBe(4);
    expect(nextWindow(3, refused, 8)).toBe(1);
    expect(nextWindow(1, timedOut, 8)).toBe(1);
  });

  it('keeps the window on failures that hold no socket open (TLS, DNS, refused address)', () => {
    expect(nextWindow(4, badCertificate, 8)).toBe(4);
    expect(nextWindow(4, outcome(null, 'dns'), 8)).toBe(4);
    expect(nextWindow(4, outcome(null, 'private_address'), 8)).toBe(4);
  });
});

describe('AgencySlots', () => {
  it('runs a new agency’s first claims up to the initial window and holds the rest', () => {
    const slots = new AgencySlots(8);
    const runs = Array.from({ length: 5 }, () => slots.hold('a'));
    expect(runs).toEqual([true, true, false, false, false]);
    expect(INITIAL_AGENCY_WINDOW).toBe(2);
    expect(slots.held('a')).toBe(5);
    expect(slots.full('a')).toBe(true);
    expect([...slots.fullAgencies()]).toEqual(['a']);
  });

  it('starts waiting claims as answers widen the window', () => {
    const slots = new AgencySlots(8);
    for (let i = 0; i < 6; i++) slots.hold('a');
    // Window 2 → 4: one slot freed and two more opened, three of the four waiting start.
    expect(slots.finishRun('a', answered)).toBe(3);
    expect(slots.full('a')).toBe(true);
    // Window 4 → 8: the last waiting claim starts; nothing is left to start after it.
    expect(slots.finishRun('a', answered)).toBe(1);
    expect(slots.full('a')).toBe(false);
    expect(slots.held('a')).toBe(4);
  });

  it('keeps a hanging agency to one attempt while it holds its cap', () => {
    const slots = new AgencySlots(8);
    const runs = Array.from({ length: 8 }, () => slots.hold('hang'));
    expect(runs.filter(Boolean)).toHaveLength(2);
    // Both first attempts time out: window 2 → 1 → 1, so one waiting claim starts after the second.
    expect(slots.finishRun('hang', timedOut)).toBe(0);
    expect(slots.finishRun('hang', timedOut)).toBe(1);
    expect(slots.held('hang')).toBe(6);
    expect(slots.full('hang')).toBe(true);
  });

  it('is full at the cap even when its window would run more', () => {
    const slots = new AgencySlots(3);
    for (let i = 0; i < 3; i++) slots.hold('a');
    slots.finishRun('a', answered);
    slots.hold('a');
    expect(slots.held('a')).toBe(3);
    expect(slots.full('a')).toBe(true);
  });

  it('forgets an agency that holds nothing but remembers its window for the next burst', () => {
    const slots = new AgencySlots(8);
    slots.hold('a');
    slots.finishRun('a', answered);
    expect(slots.held('a')).toBe(0);
    expect([...slots.fullAgencies()]).toEqual([]);
    // Window 4 was earned: four run at once now.
    expect(Array.from({ length: 5 }, () => slots.hold('a'))).toEqual([true, true, true, true, false]);

    const hanging = new AgencySlots(8);
    hanging.hold('h');
    hanging.finishRun('h', timedOut);
    expect([hanging.hold('h'), hanging.hold('h')]).toEqual([true, false]);
  });

  it('drops waiting claims given back on stop', () => {
    const slots = new AgencySlots(8);
    for (let i = 0; i < 3; i++) slots.hold('a');
    slots.dropWaiting('a');
    expect(slots.held('a')).toBe(2);
    // The two running ones finish: nothing was waiting, nothing starts.
    expect(slots.finishRun('a', answered)).toBe(0);
    expect(slots.finishRun('a', answered)).toBe(0);
    expect(slots.held('a')).toBe(0);
  });

  it('keeps agencies apart', () => {
    const slots = new AgencySlots(8);
    slots.hold('a');
    slots.hold('a');
    expect(slots.hold('b')).toBe(true);
    expect([...slots.fullAgencies()]).toEqual(['a']);
  });
});
