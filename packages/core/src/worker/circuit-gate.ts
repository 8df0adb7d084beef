import type { WebhookStore } from '../adapters/store';
import { setNewest } from '../bounded-map';
import type { AttemptOutcome } from '../delivery/attempt-outcome';
import {
  admission,
  type CircuitRecord,
  type CircuitSettings,
  type CircuitState,
  CLOSED_CIRCUIT,
  circuitChanged,
  circuitSignal,
  startProbe,
} from '../delivery/circuit-breaker';
import { afterAttemptHealth, afterAttemptWithHealth } from '../delivery/endpoint-health';
import type { WebhookCircuitEvent } from '../observability/hooks';
import type { EndpointHealthWatch } from './endpoint-health-watch';

/*
 * The worker's view of the agencies' circuit breakers (delivery/circuit-breaker.ts).
 *
 * The state lives in the store so that every process sees it; reading it before
 * every attempt would cost a round trip per delivery, so each process keeps what
 * it read for a second. An agency known to be open is excluded from claims until
 * its probe time, which is what keeps its backlog from taking slots at all; while
 * it is excluded its record is read again every half second, so a probe answered
 * in another process, a PUT of the configuration, a person's replay or a
 * successful test send releases its deliveries within that time rather than at
 * the end of the open period.
 * Writes are compare-and-set on the record's version, serialised per agency in
 * the process, and skipped when the outcome changes nothing (a healthy agency's
 * success): the common path costs no I/O. The same record carries the agency's
 * endpoint health (delivery/endpoint-health.ts), updated in the same write.
 */

/** What the worker does with a claim of the agency. */
export type GateDecision = { kind: 'send' } | { kind: 'probe' } | { kind: 'defer'; until: number };

/**
 * How an attempt was let through: the breaker allowed it (`send`), it is the
 * breaker's probe, or it is a person's (a replay or a recovery), sent whatever
 * the breaker said and counted as its probe.
 */
export type AttemptKind = 'send' | 'probe' | 'personal';

/** How long a read of an agency's breaker is trusted, in ms. */
const FRESH_MS = 1_000;
/** A probe lost to another worker: look again after this long, in ms. */
const PROBE_RACE_RETRY_MS = 500;
/**
 * How often the record of an excluded agency is read again, in ms. Its held
 * deliveries go within this long of the breaker closing anywhere (a probe's answer
 * in another process, a PUT, a person's replay or test send): one primary-key read
 * per excluded agency per interval is what that costs.
 */
const RECHECK_MS = 500;
/**
 * Re-reads are spread to at most one per this many ms per worker: with more than
 * 100 agencies excluded at once, each one's interval grows past `RECHECK_MS`
 * (1,000 paused agencies: every 5 s), so the reads stay at 200 a second.
 */
const RECHECK_SPACING_MS = 5;
const REMEMBERED_AGENCIES = 10_000;
const SAVE_TRIES = 4;
const NO_AGENCIES: readonly string[] = Object.freeze([]);

interface Known {
  record: CircuitRecord | null;
  readAt: number;
}

/** An agency excluded from claims: until when, and when its record is read again meanwhile. */
interface Deferral {
  until: number;
  recheckAt: number;
}

/** Options of {@link CircuitGate}. */
export interface CircuitGateOptions {
  store: WebhookStore;
  settings: CircuitSettings;
  /** How long a probe holds the breaker half open (longer than one attempt). */
  probeHoldMs: number;
  onChange: (event: WebhookCircuitEvent) => void;
  onError: (error: unknown) => void;
  /** An excluded agency may be claimed again before its deferral ended (a re-read found it closed or due a probe). */
  onRelease: () => void;
  clock: () => number;
  /** Reports health changes and auto-disables, after each write. */
  health?: EndpointHealthWatch;
}

export class CircuitGate {
  readonly #options: CircuitGateOptions;
  readonly #known = new Map<string, Known>();
  /** Agencies not to claim before a time: open, or probed by someone else. */
  readonly #deferred = new Map<string, Deferral>();
  /** Excluded agencies whose record is being read again. */
  readonly #rechecking = new Set<string>();
  /**
   * Fires at the earliest re-read that is due: an idle claim loop waits up to its poll
   * interval, and a re-read that only ran on a claim would wait with it.
   */
  #recheckTimer: NodeJS.Timeout | null = null;
  #recheckTimerAt = Number.POSITIVE_INFINITY;
  #closed = true;
  /** Per agency, the write in progress: the next one starts from its result. */
  readonly #writes = new Map<string, Promise<void>>();

  constructor(options: CircuitGateOptions) {
    this.#options = options;
  }

  /** The decision from what this process read within the last second; undefined when the store must be asked. */
  cached(agencyId: string, now: number): GateDecision | undefined {
    const known = this.#known.get(agencyId);
    if (!known || now - known.readAt > FRESH_MS) return undefined;
    const decision = admission(known.record ?? CLOSED_CIRCUIT, now);
    if (decision.kind === 'probe') return undefined;
    // Put back due by the next re-read, like every deferral (see #noted): a release must find it due.
    return decision.kind === 'defer' && decision.until > now + RECHECK_MS
      ? { kind: 'defer', until: now + RECHECK_MS }
      : decision;
  }

  /** Reads the breaker when needed and decides; takes the probe (compare-and-set) when one is due. */
  async decide(agencyId: string, now: number): Promise<GateDecision> {
    const fast = this.cached(agencyId, now);
    if (fast) return this.#noted(agencyId, fast, now);
    const record = await this.#read(agencyId, now);
    const decision = admission(record ?? CLOSED_CIRCUIT, now);
    if (decision.kind !== 'probe') return this.#noted(agencyId, decision, now);
    const state = record ?? CLOSED_CIRCUIT;
    const probing = await this.#options.store.saveCircuit(
      agencyId,
      record?.version ?? null,
      startProbe(state, now, this.#options.probeHoldMs),
    );
    if (probing) {
      this.#remember(agencyId, probing, now);
      this.#report(probing, state.status);
      return { kind: 'probe' };
    }
    const current = admission((await this.#read(agencyId, now)) ?? CLOSED_CIRCUIT, now);
    const raced: GateDecision = { kind: 'defer', until: now + PROBE_RACE_RETRY_MS };
    return this.#noted(agencyId, current.kind === 'probe' ? raced : current, now);
  }

  /**
   * Agencies whose claims should wait now (for the claim's `excludeAgencies`). Those
   * due a re-read of their record get one, in the background.
   */
  blocked(now: number): readonly string[] {
    if (this.#deferred.size === 0) return NO_AGENCIES;
    const agencies: string[] = [];
    for (const [agencyId, deferral] of this.#deferred) {
      if (deferral.until <= now) {
        this.#deferred.delete(agencyId);
        continue;
      }
      agencies.push(agencyId);
      if (deferral.recheckAt <= now) this.#recheck(agencyId);
    }
    return agencies;
  }

  /**
   * Records what an attempt (null: no attempt was made) does to the agency's
   * breaker. Synchronous and free when nothing changes; otherwise queued behind
   * the agency's previous write.
   */
  record(agencyId: string, outcome: AttemptOutcome | null, now: number, kind: AttemptKind): void {
    const known = this.#known.get(agencyId);
    if (kind === 'send' && outcome && known && !this.#writes.has(agencyId)) {
      const state = known.record ?? CLOSED_CIRCUIT;
      if (afterAttemptWithHealth(state, outcome, now, this.#options.settings) === state) return;
    }
    const previous = this.#writes.get(agencyId) ?? Promise.resolve();
    const write = previous
      .then(() => this.#apply(agencyId, outcome, now, kind))
      .catch((error: unknown) => this.#options.onError(error))
      .finally(() => {
        if (this.#writes.get(agencyId) === write) this.#writes.delete(agencyId);
      });
    this.#writes.set(agencyId, write);
  }

  /** Starts (again) the re-reads of excluded agencies: the worker started. */
  open(): void {
    this.#closed = false;
    for (const deferral of this.#deferred.values()) this.#armRecheck(deferral.recheckAt);
  }

  /** Stops the re-reads of excluded agencies (the worker stopped). */
  close(): void {
    this.#closed = true;
    if (this.#recheckTimer) clearTimeout(this.#recheckTimer);
    this.#recheckTimer = null;
    this.#recheckTimerAt = Number.POSITIVE_INFINITY;
  }

  /** Resolves when every write started so far has ended. */
  async settled(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all(this.#writes.values());
  }

  async #apply(
    agencyId: string,
    outcome: AttemptOutcome | null,
    now: number,
    kind: AttemptKind,
  ): Promise<void> {
    const known = this.#known.get(agencyId);
    let record = known && now - known.readAt <= FRESH_MS ? known.record : await this.#read(agencyId, now);
    for (let attempt = 0; attempt < SAVE_TRIES; attempt += 1) {
      const state = record ?? CLOSED_CIRCUIT;
      const next = this.#next(state, outcome, now, kind);
      if (!circuitChanged(state, next)) return;
      const saved = await this.#options.store.saveCircuit(agencyId, record?.version ?? null, next);
      if (saved) {
        this.#remember(agencyId, saved, now);
        if (saved.status !== state.status) this.#report(saved, state.status);
        await this.#options.health?.afterSave(state, saved, now);
        return;
      }
      record = await this.#read(agencyId, now);
    }
  }

  #next(state: CircuitState, outcome: AttemptOutcome | null, now: number, kind: AttemptKind): CircuitState {
    const signal = outcome ? circuitSignal(outcome) : 'neutral';
    if (kind === 'probe' && signal === 'neutral' && state.status === 'half_open') {
      // The probe learnt nothing about the receiver (no attempt, or the URL policy
      // refused it): let the next claim probe at once rather than after the hold.
      const reopened: CircuitState = { ...state, status: 'open', openUntil: now };
      return outcome ? afterAttemptHealth(reopened, outcome.ok, now) : reopened;
    }
    if (!outcome) return state;
    return afterAttemptWithHealth(state, outcome, now, this.#options.settings, kind === 'personal');
  }

  /** Reads an excluded agency's record again; releases the claim loop when it may be claimed now. */
  #recheck(agencyId: string): void {
    if (this.#rechecking.has(agencyId)) return;
    this.#rechecking.add(agencyId);
    this.#options.store
      .getCircuit(agencyId)
      .then(
        (record) => {
          this.#remember(agencyId, record, this.#options.clock());
          if (!this.#deferred.has(agencyId)) this.#options.onRelease();
        },
        (error: unknown) => {
          const deferral = this.#deferred.get(agencyId);
          if (deferral) {
            deferral.recheckAt = this.#options.clock() + RECHECK_MS;
            this.#armRecheck(deferral.recheckAt);
          }
          this.#options.onError(error);
        },
      )
      .finally(() => this.#rechecking.delete(agencyId));
  }

  async #read(agencyId: string, now: number): Promise<CircuitRecord | null> {
    const record = await this.#options.store.getCircuit(agencyId);
    this.#remember(agencyId, record, now);
    return record;
  }

  #remember(agencyId: string, record: CircuitRecord | null, now: number): void {
    setNewest(this.#known, agencyId, { record, readAt: now }, REMEMBERED_AGENCIES);
    this.#noted(agencyId, admission(record ?? CLOSED_CIRCUIT, now), now);
  }

  /**
   * Keeps the agency excluded while the decision defers. The deferral handed back
   * ends by the next re-read: the worker puts the claim back due then, and the
   * exclusion, not a far `runAt`, is what holds it, so a release finds it due.
   */
  #noted(agencyId: string, decision: GateDecision, now: number): GateDecision {
    if (decision.kind !== 'defer') {
      this.#deferred.delete(agencyId);
      return decision;
    }
    const recheckAt = now + Math.max(RECHECK_MS, this.#deferred.size * RECHECK_SPACING_MS);
    setNewest(this.#deferred, agencyId, { until: decision.until, recheckAt }, REMEMBERED_AGENCIES);
    this.#armRecheck(recheckAt);
    return decision.until <= recheckAt ? decision : { kind: 'defer', until: recheckAt };
  }

  #armRecheck(at: number): void {
    if (this.#closed || at >= this.#recheckTimerAt) return;
    if (this.#recheckTimer) clearTimeout(this.#recheckTimer);
    this.#recheckTimerAt = at;
    this.#recheckTimer = setTimeout(() => this.#recheckDue(), Math.max(0, at - this.#options.clock()));
    this.#recheckTimer.unref();
  }

  /** Re-reads every excluded agency whose time has come, then arms the timer for the next. */
  #recheckDue(): void {
    this.#recheckTimer = null;
    this.#recheckTimerAt = Number.POSITIVE_INFINITY;
    const now = this.#options.clock();
    let next = Number.POSITIVE_INFINITY;
    for (const [agencyId, deferral] of this.#deferred) {
      if (deferral.until <= now) {
        // Due a probe or closed by now: claimable again.
        this.#deferred.delete(agencyId);
        this.#options.onRelease();
      } else if (deferral.recheckAt <= now) this.#recheck(agencyId);
      else next = Math.min(next, deferral.recheckAt);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#armRecheck(next);
  }

  #report(circuit: CircuitRecord, previous: CircuitRecord['status']): void {
    this.#options.onChange({ circuit, previous });
  }
}
