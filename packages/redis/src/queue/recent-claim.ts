/** What one claim saw, kept for a moment. */
interface ClaimSighting {
  /** performance.now() when the reply arrived. */
  at: number;
  /** The `now` the claim was made with (service clock). */
  now: number;
  /** When something next becomes claimable; null: nothing scheduled; undefined: not known (full batch). */
  nextDue: number | null | undefined;
  /** Fewer entries came back than asked for: nothing else was due. */
  short: boolean;
  excluded: ReadonlySet<string>;
  /** The wake-up listener's message count when the claim began (0 without a listener). */
  seq: number;
}

/** A claim right after a short one may be answered locally only this soon after it, in ms. */
const SKIP_WINDOW_MS = 5;
/** A wait may rely on the last claim's "next due" answer only this soon after it, in ms. */
const DUE_WINDOW_MS = 50;

/**
 * Spares round trips the core worker's loop would otherwise make right after a
 * claim: the claim that follows a short batch (answered empty when nothing can
 * have changed), and the "when is the next entry due" lookup of the wait that
 * follows an empty claim.
 *
 * "Nothing can have changed" means: within a few ms, no wake-up message has
 * arrived since the last claim began (every enqueue publishes one), the claim
 * excludes at least the agencies the last one did, and the service clock has
 * not reached the next due time the last claim reported. A message still in
 * flight when the local answer is given wakes the wait that follows at once, so
 * at worst the entry is claimed a moment later, never lost.
 *
 * "No message since the last claim began" is counted, not read off the messages
 * still unanswered: a `waitForWork` that a message ends answers it on behalf of
 * the claim its caller makes next, and that claim must then go to Redis.
 */
export class RecentClaim {
  #last: ClaimSighting | null = null;
  #skipped = false;

  record(sighting: ClaimSighting): void {
    this.#last = sighting;
    this.#skipped = false;
  }

  /**
   * True when a claim with these options would surely come back empty (at most
   * once per real claim). `seq` is the wake-up listener's message count now.
   */
  surelyEmpty(now: number, excludeAgencies: readonly string[] | undefined, seq: number): boolean {
    const last = this.#last;
    if (!last?.short || last.nextDue === undefined || this.#skipped || seq !== last.seq) return false;
    if (performance.now() - last.at > SKIP_WINDOW_MS || now < last.now) return false;
    if (last.nextDue !== null && now >= last.nextDue) return false;
    const excluded = new Set(excludeAgencies);
    for (const agency of last.excluded) if (!excluded.has(agency)) return false;
    this.#skipped = true;
    return true;
  }

  /** Ms from `now` until the next due time the last claim reported, when that answer is fresh; else undefined. */
  dueIn(): number | undefined {
    const last = this.#last;
    this.#last = null;
    if (!last?.short || last.nextDue === undefined || performance.now() - last.at > DUE_WINDOW_MS)
      return undefined;
    return last.nextDue === null ? Number.POSITIVE_INFINITY : Math.max(0, last.nextDue - last.now);
  }
}
