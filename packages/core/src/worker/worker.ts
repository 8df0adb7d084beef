import type { Claim } from '../adapters/queue';
import type { AttemptOutcome } from '../delivery/attempt-outcome';
import type { DeliveryRecord } from '../delivery/delivery';
import { callHook, type WorkerErrorStage } from '../observability/hooks';
import { type Engine, engineOf } from '../service/engine';
import type { WebhookService } from '../service/service';
import { AgencySlots } from './agency-slots';
import { runClaim } from './attempt-runner';
import { type AttemptKind, CircuitGate } from './circuit-gate';
import { DueWakeups } from './due-wakeups';
import { EndpointHealthWatch } from './endpoint-health-watch';
import { createRecoverySweep, type RecoverySweep } from './recovery-sweep';
import { RecoveryWalker } from './recovery-walker';
import { type RetentionPurge, startRetentionPurge } from './retention-purge';
import { resolveWorkerOptions, type WorkerOptions, type WorkerSettings } from './worker-options';

export type { WorkerOptions } from './worker-options';

/** A running (or stopped) delivery worker. */
export interface WebhookWorker {
  /** Starts claiming and sending. Calling it again while running does nothing. */
  start(): Promise<void>;
  /** Claims nothing new, waits for in-flight attempts to be recorded, then resolves. */
  stop(): Promise<void>;
  /** Attempts in flight right now. */
  readonly inFlight: number;
  readonly running: boolean;
}

const RESCHEDULE_SATURATED_MS = 100;

/** A pending delivery whose next attempt a person asked for (a replay or a bulk recovery). */
function isPersonal(record: DeliveryRecord | null | undefined): record is DeliveryRecord {
  return record?.status === 'pending' && record.nextAttemptTrigger !== 'automatic';
}
/** What the claim loop excludes when no agency is saturated: one shared array rather than a new one per claim. */
const NO_AGENCIES: readonly string[] = Object.freeze([]);

/**
 * Creates a worker that delivers the service's queued webhooks. Run one or more
 * per process; many processes on many machines may share one store and queue.
 *
 * @example
 * const worker = createWorker(webhooks, { concurrency: 64 });
 * await worker.start();
 * process.on('SIGTERM', () => worker.stop());
 */
export function createWorker(service: WebhookService, options: WorkerOptions = {}): WebhookWorker {
  const engine = engineOf(service);
  const settings = resolveWorkerOptions(options);
  return new DeliveryWorker(engine, settings);
}

class DeliveryWorker implements WebhookWorker {
  #running = false;
  #abort = new AbortController();
  #loop: Promise<void> | null = null;
  /**
   * Claims held, running or waiting for their agency's window, each with the promise of its attempt
   * (keyed by the object: no string to hash). Waiting ones are here too, so their leases are renewed.
   */
  #held = new Map<Claim, Promise<void>>();
  readonly #slots: AgencySlots;
  /** Per agency, claims held beyond its window, oldest first, each with what settles its #held promise. */
  #waiting = new Map<string, Array<{ claim: Claim; settle: () => void }>>();
  #slotFreed: (() => void) | null = null;
  #queueWait: Promise<void> | null = null;
  /** The outstanding waitForWork ended while we were not waiting on it (see #idle). */
  #wokenUnseen = false;
  /**
   * A slot freed while a claim was in flight. That claim may have skipped the slot's agency as
   * saturated, and nothing else would wake us for its entries, which are due already (see #idle).
   */
  #slotFreedUnseen = false;
  #timers: NodeJS.Timeout[] = [];
  /** Wakes the claim loop when entries this worker put back for later fall due. */
  readonly #dueWakeups: DueWakeups;
  #sweep: RecoverySweep | null = null;
  #purge: RetentionPurge | null = null;
  readonly #gate: CircuitGate | null;
  readonly #walker: RecoveryWalker | null;

  constructor(
    private readonly engine: Engine,
    private readonly settings: WorkerSettings,
  ) {
    this.#slots = new AgencySlots(settings.perAgencyConcurrency);
    this.#dueWakeups = new DueWakeups(engine.clock, () => this.#wakeClaimLoop());
    this.#gate = engine.circuit
      ? new CircuitGate({
          store: engine.store,
          settings: engine.circuit,
          // A probe cannot outlive its claim's lease, so the lease bounds its hold.
          probeHoldMs: settings.leaseMs,
          onChange: (event) => callHook(engine.hooks.onCircuitChange, event),
          onError: (error) => this.#reportError(error, 'circuit'),
          onRelease: () => this.#wakeClaimLoop(),
          clock: engine.clock,
          health: new EndpointHealthWatch({
            store: engine.store,
            autoDisable: engine.autoDisable,
            hooks: engine.hooks,
          }),
        })
      : null;
    this.#walker = settings.bulkRecovery
      ? new RecoveryWalker(engine, settings.bulkRecovery, settings.leaseMs, (error) =>
          this.#reportError(error, 'recovery'),
        )
      : null;
  }

  get inFlight(): number {
    return this.#held.size;
  }

  get running(): boolean {
    return this.#running;
  }

  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    this.#abort = new AbortController();
    this.#gate?.open();
    const { leaseMs, recoverySweep } = this.settings;
    this.#timers.push(setInterval(() => this.#renewAll(), Math.max(1, Math.floor(leaseMs / 3))));
    if (recoverySweep) {
      const { store, queue, clock } = this.engine;
      this.#sweep = createRecoverySweep({
        ...recoverySweep,
        store,
        queue,
        clock,
        skip: (deliveryId) => this.#isHeld(deliveryId),
        onError: (error) => this.#reportError(error, 'sweep'),
      });
      this.#sweep.start();
    }
    this.#purge = startRetentionPurge(this.engine, this.settings.retentionPurge, (error) =>
      this.#reportError(error, 'retention'),
    );
    this.#walker?.start();
    this.#loop = this.#claimLoop();
  }

  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#abort.abort();
    this.#giveBackWaiting();
    this.#wakeClaimLoop();
    await this.#loop;
    await Promise.all(this.#held.values());
    this.#gate?.close();
    await this.#gate?.settled();
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    this.#dueWakeups.clear();
    await this.#sweep?.stop();
    this.#sweep = null;
    await this.#purge?.stop();
    this.#purge = null;
    await this.#walker?.stop();
  }

  async #claimLoop(): Promise<void> {
    const { concurrency, leaseMs, pollIntervalMs } = this.settings;
    // Claiming one slot at a time costs a round trip per delivery on a database
    // queue; waiting until an eighth of the slots are free batches the claims. An
    // in-process queue has no round trip to save, and every slot left empty while
    // waiting for a batch is throughput lost.
    const minBatch = this.engine.queue.capabilities.inProcess ? 1 : Math.max(1, Math.floor(concurrency / 8));
    while (this.#running) {
      const free = concurrency - this.#held.size;
      if (free < minBatch && this.#held.size > 0) {
        await new Promise<void>((resolve) => {
          this.#slotFreed = resolve;
        });
        continue;
      }
      let claims: Claim[];
      // Freed from here on, a slot may not be seen by this claim's exclusions.
      this.#slotFreedUnseen = false;
      try {
        const now = this.engine.clock();
        claims = await this.engine.queue.claim({
          limit: free,
          leaseMs,
          now,
          excludeAgencies: this.#excludedAgencies(now),
          perAgencyLimit: this.settings.perAgencyConcurrency,
        });
      } catch (error) {
        this.#reportError(error, 'claim');
        await this.#idle(pollIntervalMs);
        continue;
      }
      if (claims.length === 0) {
        await this.#idle(pollIntervalMs);
        continue;
      }
      for (const claim of claims) this.#dispatch(claim);
    }
  }

  /**
   * Waits for the queue to signal work, for the poll interval, for stop(), or for
   * a slot to free up: the entries we skipped because their agency was saturated
   * are already due, so a queue would not wake us for them.
   *
   * At most one waitForWork call is outstanding; a freed slot only ends our wait
   * for it, not the call itself. Aborting a per-wait AbortController instead would
   * build a DOMException with a stack trace on every wake-up, which at thousands
   * of deliveries a second costs more than the delivery.
   *
   * So a wake-up can arrive while we are claiming rather than waiting, and a
   * queue may count it as taken (Redis does: waitForWork assumes its caller
   * claims next). It is kept in #wokenUnseen, and the next idle claims at once
   * instead of waiting for a wake-up that already came. A slot freed during a
   * claim is kept the same way (#slotFreedUnseen): that claim may have skipped
   * the agency as saturated, and its due entries would otherwise wait for the
   * poll interval.
   */
  async #idle(timeoutMs: number): Promise<void> {
    if (this.#wokenUnseen || this.#slotFreedUnseen) {
      this.#wokenUnseen = false;
      this.#slotFreedUnseen = false;
      return;
    }
    if (!this.#queueWait) {
      this.#queueWait = this.engine.queue
        .waitForWork({ timeoutMs, signal: this.#abort.signal })
        .finally(() => {
          this.#queueWait = null;
          this.#wokenUnseen = true;
        });
    }
    const slotFreed = new Promise<void>((resolve) => {
      this.#slotFreed = resolve;
    });
    await Promise.race([this.#queueWait, slotFreed]);
    this.#slotFreed = null;
    // Whatever ended the wait, we claim next: any wake-up so far is seen.
    this.#wokenUnseen = false;
  }

  #dispatch(claim: Claim): void {
    const { agencyId } = claim;
    if (this.#slots.held(agencyId) >= this.settings.perAgencyConcurrency || !this.#running) {
      // A queue that cannot skip saturated agencies hands us their entries anyway:
      // give them back for a moment instead of exceeding the agency's cap, and claim
      // again when they are due (see DueWakeups).
      const dueAt = this.engine.clock() + RESCHEDULE_SATURATED_MS;
      this.engine.queue
        .reschedule(claim, dueAt)
        .catch((error: unknown) => this.#reportError(error, 'claim', claim.deliveryId))
        .finally(() => this.#dueWakeups.at(dueAt));
      return;
    }
    if (this.#slots.hold(agencyId)) {
      this.#held.set(claim, this.#run(claim));
      return;
    }
    // Over the agency's window: held (and renewed) until one of its attempts is answered.
    let settle!: () => void;
    this.#held.set(
      claim,
      new Promise<void>((resolve) => {
        settle = resolve;
      }),
    );
    const waiting = this.#waiting.get(agencyId);
    if (waiting) waiting.push({ claim, settle });
    else this.#waiting.set(agencyId, [{ claim, settle }]);
  }

  async #run(claim: Claim): Promise<void> {
    const gate = this.#gate;
    let outcome: AttemptOutcome | null = null;
    try {
      if (!gate) {
        outcome = await runClaim(this.engine, claim, this.engine.clock());
        return;
      }
      const { agencyId } = claim;
      const now = this.engine.clock();
      const decision = gate.cached(agencyId, now) ?? (await gate.decide(agencyId, now));
      let record: DeliveryRecord | null | undefined;
      let kind: AttemptKind = decision.kind === 'probe' ? 'probe' : 'send';
      if (decision.kind === 'defer') {
        // A person's replay or recovery goes whatever the breaker says, as its probe;
        // an automatic attempt goes back in the queue untouched, no attempt spent.
        record = await this.engine.store.getDelivery(claim.deliveryId);
        if (!isPersonal(record)) {
          if (await this.engine.queue.reschedule(claim, decision.until)) this.#dueWakeups.at(decision.until);
          return;
        }
        kind = 'personal';
      }
      outcome = await runClaim(this.engine, claim, this.engine.clock(), record);
      gate.record(agencyId, outcome, this.engine.clock(), kind);
    } catch (error) {
      this.#reportError(error, 'attempt', claim.deliveryId);
    } finally {
      this.#release(claim, outcome);
    }
  }

  #release(claim: Claim, outcome: AttemptOutcome | null): void {
    this.#held.delete(claim);
    const { agencyId } = claim;
    const start = this.#slots.finishRun(agencyId, outcome);
    const waiting = this.#waiting.get(agencyId);
    for (let started = 0; started < start && waiting && waiting.length > 0; started++) {
      const next = waiting.shift()!;
      this.#run(next.claim).then(next.settle);
    }
    if (waiting?.length === 0) this.#waiting.delete(agencyId);
    this.#wakeClaimLoop();
  }

  /** On stop: claims still waiting for a window go back to the queue, due now, for any worker. */
  #giveBackWaiting(): void {
    const now = this.engine.clock();
    for (const [agencyId, waiting] of this.#waiting) {
      for (const { claim, settle } of waiting) {
        this.#slots.dropWaiting(agencyId);
        this.engine.queue
          .reschedule(claim, now)
          .catch((error: unknown) => this.#reportError(error, 'claim', claim.deliveryId))
          .finally(() => {
            this.#held.delete(claim);
            settle();
          });
      }
    }
    this.#waiting.clear();
  }

  #wakeClaimLoop(): void {
    const wake = this.#slotFreed;
    this.#slotFreed = null;
    if (wake) wake();
    else this.#slotFreedUnseen = true;
  }

  /**
   * Agencies to skip in the next claim: those whose breaker is open, and those that could not run
   * another attempt here now (window full) or hold their cap. A queue that counts every process's
   * leases would refuse the capped ones itself; the window is this worker's alone.
   */
  #excludedAgencies(now: number): readonly string[] {
    const blocked = this.#gate?.blocked(now) ?? NO_AGENCIES;
    let excluded: string[] | undefined;
    for (const agencyId of this.#slots.fullAgencies()) {
      excluded ??= [...blocked];
      excluded.push(agencyId);
    }
    return excluded ?? blocked;
  }

  #renewAll(): void {
    const now = this.engine.clock();
    for (const claim of this.#held.keys()) {
      this.engine.queue
        .renew(claim, this.settings.leaseMs, now)
        .catch((error: unknown) => this.#reportError(error, 'renew', claim.deliveryId));
    }
  }

  #isHeld(deliveryId: string): boolean {
    for (const claim of this.#held.keys()) if (claim.deliveryId === deliveryId) return true;
    return false;
  }

  #reportError(error: unknown, stage: WorkerErrorStage, deliveryId?: string): void {
    callHook(this.engine.hooks.onError, error, deliveryId === undefined ? { stage } : { stage, deliveryId });
  }
}
