import type { WebhookStore } from '../adapters/store';
import type { WebhookConfigRecord } from '../config/config';
import { sendsStandard } from '../config/signing-keys';
import { type CircuitState, CLOSED_CIRCUIT } from '../delivery/circuit-breaker';
import { afterAttemptHealth, healthState, healthView, RECEIVER_GONE } from '../delivery/endpoint-health';
import { callHook, type WebhookHooks } from '../observability/hooks';

/** What {@link disableEndpoint} needs besides the store and hooks. */
export interface EndpointDisable {
  /** The configuration as the caller read it: its `updatedAt` is the compare-and-set's expectation. */
  config: WebhookConfigRecord;
  /** Stored as `disabledReason` and reported: `auto_disabled_failing` or `receiver_gone`. */
  reason: string;
  /** Epoch ms: `disabledAt`. */
  now: number;
  /** The agency's health record the caller's decision saw (null: none), for the state before. */
  before: CircuitState | null;
  /** The health record to report with the disable (null: none). */
  after: CircuitState | null;
}

/** The store and hooks a disable writes and reports through. */
export interface EndpointDisableDeps {
  store: WebhookStore;
  hooks: Pick<WebhookHooks, 'onEndpointHealthChange' | 'onEndpointDisabled'>;
}

/**
 * Disables the configuration with a compare-and-set on the `updatedAt` read
 * (a PUT that landed since wins, and of many workers one disables), then
 * reports it once: `onEndpointDisabled`, and `onEndpointHealthChange` to
 * `disabled`. False, with nothing reported, when the compare-and-set lost.
 */
export async function disableEndpoint(deps: EndpointDisableDeps, disable: EndpointDisable): Promise<boolean> {
  const { config, reason, now, before, after } = disable;
  const disabled = await deps.store.disableConfig(config.agencyId, {
    reason,
    now,
    expectedUpdatedAt: config.updatedAt,
  });
  if (!disabled) return false;
  callHook(deps.hooks.onEndpointDisabled, {
    agencyId: disabled.agencyId,
    reason,
    webhookUrl: disabled.webhookUrl,
    failingSince: after?.unsuccessfulSince ?? null,
    disabledAt: now,
  });
  callHook(deps.hooks.onEndpointHealthChange, {
    agencyId: disabled.agencyId,
    previous: healthState(config, before),
    current: 'disabled',
    health: healthView(disabled, after, null, now),
  });
  return true;
}

/**
 * Whether an answer tells the sender to stop for good: `410 Gone` under a
 * Standard Webhooks scheme (which gives 410 that meaning). Under the spec's
 * `'service'` scheme a 410 is an ordinary failed attempt.
 */
export function isReceiverGone(
  config: Pick<WebhookConfigRecord, 'signatureScheme'>,
  statusCode: number | null,
): boolean {
  return statusCode === 410 && sendsStandard(config.signatureScheme ?? 'service');
}

/**
 * Disables the configuration whose receiver answered `410 Gone` at `sentAt`
 * (reason `receiver_gone`), reading the agency's health record only for the
 * report: this rare path costs one read besides the compare-and-set. The
 * report counts the 410 in the failing run, which the circuit gate records
 * right after.
 */
export async function disableGoneReceiver(
  deps: EndpointDisableDeps & { circuit: boolean },
  config: WebhookConfigRecord,
  sentAt: number,
): Promise<boolean> {
  const before = deps.circuit ? await deps.store.getCircuit(config.agencyId) : null;
  const after = deps.circuit ? afterAttemptHealth(before ?? CLOSED_CIRCUIT, false, sentAt) : null;
  return disableEndpoint(deps, { config, reason: RECEIVER_GONE, now: sentAt, before, after });
}
