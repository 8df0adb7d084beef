import type { AttemptOutcome } from './attempt-outcome';
import type { DeliveryRecord } from './delivery';

/** What the worker was doing when an unexpected error (a store or queue failure) happened. */
export type WorkerErrorStage = 'claim' | 'attempt' | 'renew' | 'sweep';

/**
 * Observability callbacks. All optional, called synchronously after the fact;
 * a hook that throws is ignored (it can never break delivery). Signing secrets
 * never appear in any argument.
 */
export interface WebhookHooks {
  /** After every attempt is recorded, successful or not. `delivery` is the record as saved. */
  onAttempt?(event: { delivery: DeliveryRecord; outcome: AttemptOutcome; claimedAt: number; runAt: number }): void;
  /** After a delivery reached `success`. */
  onDelivered?(delivery: DeliveryRecord): void;
  /** After a delivery reached `failed` (attempts exhausted, or its configuration was disabled or deleted). */
  onFailed?(delivery: DeliveryRecord): void;
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
