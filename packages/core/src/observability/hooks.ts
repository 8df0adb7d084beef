import type { AttemptOutcome } from '../delivery/attempt-outcome';
import type { CircuitRecord, CircuitStatus } from '../delivery/circuit-breaker';
import type { DeliveryRecord } from '../delivery/delivery';
import type { EndpointHealth, EndpointHealthState } from '../delivery/endpoint-health';

/** What the worker was doing when an unexpected error (a store or queue failure) happened. */
export type WorkerErrorStage =
  | 'claim'
  | 'attempt'
  | 'renew'
  | 'sweep'
  | 'circuit'
  | 'retention'
  | 'recovery'
  /** Reported by the queue on its own (see `DeliveryQueue.reportErrorsTo`), not by a call. */
  | 'queue';

/** What {@link WebhookHooks.onPurge} receives: one worker's retention round. */
export interface WebhookPurgeEvent {
  /** `success` deliveries (with their attempts) this round deleted. */
  success: number;
  /** `failed` deliveries (with their attempts) this round deleted. */
  failed: number;
  /** Finished bulk recoveries (`completed` or `cancelled`) this round deleted. */
  recoveries: number;
  /** Store calls it took, each deleting at most the worker's `retentionPurge.batchSize`. */
  batches: number;
  /** Wall time of the round in ms, pauses between batches included. */
  durationMs: number;
}

/** What {@link WebhookHooks.onCircuitChange} receives. */
export interface WebhookCircuitEvent {
  /** The breaker as this worker saved it. */
  circuit: CircuitRecord;
  /** Its status before. */
  previous: CircuitStatus;
}

/** What {@link WebhookHooks.onEndpointHealthChange} receives. */
export interface WebhookEndpointHealthEvent {
  agencyId: string;
  /** The state before the change. */
  previous: EndpointHealthState;
  /** The state now (`health.state`). */
  current: EndpointHealthState;
  /**
   * The health as the process that changed it wrote it. `lastSuccessAt` is the
   * record's alone here (not filled from the delivery log as `getEndpointHealth` does).
   */
  health: EndpointHealth;
}

/** What {@link WebhookHooks.onEndpointDisabled} receives. Times are epoch ms. */
export interface WebhookEndpointDisabledEvent {
  agencyId: string;
  /**
   * The stored `disabledReason`: `auto_disabled_failing` (every attempt failed for
   * `autoDisable.afterMs`) or `receiver_gone` (a `410 Gone` under a Standard Webhooks scheme).
   */
  reason: string;
  /** Where deliveries were going: tell the agency which endpoint to fix. */
  webhookUrl: string;
  /** When the run of attempts without a 2xx began. */
  failingSince: number | null;
  disabledAt: number;
}

/** What {@link WebhookHooks.onAttempt} receives. Every time is epoch ms. */
export interface WebhookAttemptEvent {
  /** The record as saved after the attempt (its `attempt` counts this one). */
  delivery: DeliveryRecord;
  /** What the transport reported, including `durationMs`. */
  outcome: AttemptOutcome;
  /** When the worker claimed the queue entry. */
  claimedAt: number;
  /** When the queue entry was due: `claimedAt - runAt` is the queue lag. */
  runAt: number;
  /** When the request was started (after reconciling with the store). */
  startedAt: number;
}

/**
 * Observability callbacks. All optional, called synchronously after the fact;
 * a hook that throws is ignored (it can never break delivery). Signing secrets
 * never appear in any argument.
 */
export interface WebhookHooks {
  /** After every attempt is recorded, successful or not. */
  onAttempt?(event: WebhookAttemptEvent): void;
  /** After a delivery reached `success`. */
  onDelivered?(delivery: DeliveryRecord): void;
  /** After a delivery reached `failed` (attempts exhausted, or its configuration was disabled or deleted). */
  onFailed?(delivery: DeliveryRecord): void;
  /**
   * An agency's circuit breaker changed status (opened, took a probe, closed),
   * reported by the worker that changed it.
   */
  onCircuitChange?(event: WebhookCircuitEvent): void;
  /**
   * An agency's endpoint health moved between `healthy`, `failing` and `disabled`,
   * reported once, by the process that wrote the change (a worker recording an
   * attempt or disabling the configuration, or `putConfig`).
   */
  onEndpointHealthChange?(event: WebhookEndpointHealthEvent): void;
  /**
   * The service disabled an agency's configuration: every attempt failed for
   * `autoDisable.afterMs`, or its receiver answered `410 Gone` under the `'standard'` or
   * `'both'` signature scheme (`event.reason` says which). The place to tell the agency
   * (e-mail, in-app notice). Called once per disable, by the worker whose compare-and-set won.
   */
  onEndpointDisabled?(event: WebhookEndpointDisabledEvent): void;
  /**
   * A worker's retention round deleted old finished deliveries or bulk recoveries
   * (rounds that found nothing to delete are not reported). With several workers, each reports its own share.
   */
  onPurge?(event: WebhookPurgeEvent): void;
  /** A store or queue call failed inside the worker; the affected work is retried after its lease expires. */
  onError?(error: unknown, context: { stage: WorkerErrorStage; deliveryId?: string }): void;
}

/** Calls a hook, swallowing anything it throws. */
export function callHook<A extends unknown[]>(hook: ((...args: A) => void) | undefined, ...args: A): void {
  if (!hook) return;
  try {
    hook(...args);
  } catch {
    // A broken observer must never stop or fail a delivery.
  }
}

/**
 * Merges several hook sets into one: each callback of each set is called in
 * order, and one that throws does not keep the others from running.
 *
 * @example
 * ```ts
 * const webhooks = createWebhookService({
 *   store,
 *   queue,
 *   hooks: combineHooks(createOpenTelemetryHooks(), { onFailed: (d) => alertOps(d.id) }),
 * });
 * ```
 */
export function combineHooks(...sets: ReadonlyArray<WebhookHooks | undefined>): WebhookHooks {
  const present = sets.filter((set): set is WebhookHooks => set !== undefined);
  return {
    onAttempt: (event) => {
      for (const set of present) callHook(set.onAttempt, event);
    },
    onDelivered: (delivery) => {
      for (const set of present) callHook(set.onDelivered, delivery);
    },
    onFailed: (delivery) => {
      for (const set of present) callHook(set.onFailed, delivery);
    },
    onCircuitChange: (event) => {
      for (const set of present) callHook(set.onCircuitChange, event);
    },
    onEndpointHealthChange: (event) => {
      for (const set of present) callHook(set.onEndpointHealthChange, event);
    },
    onEndpointDisabled: (event) => {
      for (const set of present) callHook(set.onEndpointDisabled, event);
    },
    onPurge: (event) => {
      for (const set of present) callHook(set.onPurge, event);
    },
    onError: (error, context) => {
      for (const set of present) callHook(set.onError, error, context);
    },
  };
}
