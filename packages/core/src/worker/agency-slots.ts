import { setNewest } from '../bounded-map';
import type { AttemptOutcome } from '../delivery/attempt-outcome';

/**
 * Attempts an agency may run at once before any of its attempts has been answered. Its window then
 * doubles with each answer up to the cap, so a healthy receiver reaches the cap after a few answers,
 * while one that accepts connections and never answers keeps this many sockets, not the cap.
 */
export const INITIAL_AGENCY_WINDOW = 2;

/** Agencies whose last window is remembered after they hold nothing; the least recently settled go first. */
const REMEMBERED_WINDOWS = 10_000;

/** One agency's share of a worker: what it holds, what runs, and how many may run. */
interface AgencyShare {
  /** Claims held: running plus waiting for the window. */
  held: number;
  running: number;
  window: number;
}

/**
 * Per-agency accounting of one worker (pure: no I/O, no clock).
 *
 * Two limits apply. `cap` (`perAgencyConcurrency`) bounds the claims an agency holds, so its
 * backlog cannot take the worker's slots. The window bounds how many of them run: a new or
 * recovering agency starts at {@link INITIAL_AGENCY_WINDOW}; every attempt that gets a response
 * (any status: the receiver is answering) doubles it up to the cap, and every attempt that ends
 * in a timeout or a failed connect halves it (never below 1). A hanging receiver thus costs its
 * agency's slots but only a socket or two, and the TLS handshakes to it stay few; a slow but
 * answering one keeps the full cap. Shares are dropped when an agency holds nothing; its window is
 * remembered (for the last {@link REMEMBERED_WINDOWS} agencies), so a healthy agency's next burst
 * starts at the window it earned and a hanging one's does not start afresh.
 */
export class AgencySlots {
  readonly #shares = new Map<string, AgencyShare>();
  readonly #remembered = new Map<string, number>();

  constructor(readonly cap: number) {}

  /** Claims the agency holds now, running or waiting. */
  held(agencyId: string): number {
    return this.#shares.get(agencyId)?.held ?? 0;
  }

  /** Records a claim the agency now holds; true when it may run at once, false when it waits. */
  hold(agencyId: string): boolean {
    let share = this.#shares.get(agencyId);
    if (!share) {
      const window = this.#remembered.get(agencyId) ?? INITIAL_AGENCY_WINDOW;
      share = { held: 0, running: 0, window: Math.min(window, this.cap) };
      this.#shares.set(agencyId, share);
    }
    share.held += 1;
    if (share.running >= share.window) return false;
    share.running += 1;
    return true;
  }

  /**
   * Records the end of a running claim (`outcome` null when no attempt was made) and returns how many
   * of the agency's waiting claims may start now; they count as running from here.
   */
  finishRun(agencyId: string, outcome: AttemptOutcome | null): number {
    const share = this.#shares.get(agencyId);
    if (!share) return 0;
    share.held -= 1;
    share.running -= 1;
    if (outcome) share.window = nextWindow(share.window, outcome, this.cap);
    return this.#startWaiting(agencyId, share);
  }

  /** Records a waiting claim given up (the worker is stopping). */
  dropWaiting(agencyId: string): void {
    const share = this.#shares.get(agencyId);
    if (!share) return;
    share.held -= 1;
    if (share.held === 0) this.#forget(agencyId, share);
  }

  /** True when a further claim of the agency could not run now (its window is full) or not be held at all. */
  full(agencyId: string): boolean {
    const share = this.#shares.get(agencyId);
    return share !== undefined && (share.running >= share.window || share.held >= this.cap);
  }

  /** Agencies for which {@link full} is true. */
  *fullAgencies(): Iterable<string> {
    for (const [agencyId, share] of this.#shares) {
      if (share.running >= share.window || share.held >= this.cap) yield agencyId;
    }
  }

  #forget(agencyId: string, share: AgencyShare): void {
    this.#shares.delete(agencyId);
    setNewest(this.#remembered, agencyId, share.window, REMEMBERED_WINDOWS);
  }

  #startWaiting(agencyId: string, share: AgencyShare): number {
    if (share.held === 0) {
      this.#forget(agencyId, share);
      return 0;
    }
    const waiting = share.held - share.running;
    const start = Math.max(0, Math.min(waiting, share.window - share.running));
    share.running += start;
    return start;
  }
}

/** The window after one attempt: doubled on any response, halved on a timeout or failed connect. */
export function nextWindow(window: number, outcome: AttemptOutcome, cap: number): number {
  if (outcome.statusCode !== null) return Math.min(cap, window * 2);
  if (outcome.errorKind === 'timeout' || outcome.errorKind === 'connect')
    return Math.max(1, Math.floor(window / 2));
  return window;
}
