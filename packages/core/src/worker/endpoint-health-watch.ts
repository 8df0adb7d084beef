import type { WebhookStore } from '../adapters/store';
import type { WebhookConfigRecord } from '../config/config';
import type { CircuitRecord, CircuitState } from '../delivery/circuit-breaker';
import {
  AUTO_DISABLED_FAILING,
  type AutoDisableSettings,
  healthState,
  healthView,
  shouldAutoDisable,
} from '../delivery/endpoint-health';
import { callHook, type WebhookHooks } from '../observability/hooks';
import { disableEndpoint } from './endpoint-disable';

/*
 * What the worker does once the circuit gate has saved an attempt's effect on an
 * agency's record: report a move between healthy and failing, and disable the
 * configuration once every attempt has failed for `autoDisable.afterMs`.
 *
 * Both need the configuration, so the store is read only then: on the rare
 * write that changes the health state, and on an unsuccessful attempt past the
 * threshold. The disable is a compare-and-set on the configuration's `updatedAt`
 * after a fresh read of the record, so a PUT that resets health or rewrites the
 * configuration in between wins, and of many workers only one disables and
 * reports it.
 */

/** Options of {@link EndpointHealthWatch}. */
export interface EndpointHealthWatchOptions {
  store: WebhookStore;
  /** Null: never disable (`autoDisable: false`). */
  autoDisable: AutoDisableSettings | null;
  hooks: Pick<WebhookHooks, 'onEndpointHealthChange' | 'onEndpointDisabled'>;
}

export class EndpointHealthWatch {
  readonly #options: EndpointHealthWatchOptions;

  constructor(options: EndpointHealthWatchOptions) {
    this.#options = options;
  }

  /** Called by the gate after it saved `saved` over `before` (the agency's writes are serialised there). */
  async afterSave(before: CircuitState, saved: CircuitRecord, now: number): Promise<void> {
    const moved = before.unsuccessfulAttempts > 0 !== saved.unsuccessfulAttempts > 0;
    const due = this.#disableDue(before, saved, now);
    if (!due && !(moved && this.#options.hooks.onEndpointHealthChange)) return;
    const config = await this.#options.store.getConfig(saved.agencyId);
    if (!config) return;
    if (due && config.enabled && (await this.#disable(config, before, now))) return;
    if (moved) this.#reportChange(config, before, saved, now);
  }

  /** This write counted an unsuccessful attempt, and the run it belongs to is old enough. */
  #disableDue(before: CircuitState, saved: CircuitRecord, now: number): boolean {
    const settings = this.#options.autoDisable;
    return (
      settings !== null &&
      saved.unsuccessfulAttempts > before.unsuccessfulAttempts &&
      shouldAutoDisable(saved, now, settings.afterMs)
    );
  }

  /** Disables the configuration read as `config`; false when the record or the configuration changed first. */
  async #disable(config: WebhookConfigRecord, before: CircuitState, now: number): Promise<boolean> {
    const { store, autoDisable } = this.#options;
    // Read again after the configuration: a PUT resets the record before it rewrites the
    // configuration, so a run that is still old here was not cleared by one we read past.
    const current = await store.getCircuit(config.agencyId);
    if (!current || !autoDisable || !shouldAutoDisable(current, now, autoDisable.afterMs)) return false;
    return disableEndpoint(this.#options, {
      config,
      reason: AUTO_DISABLED_FAILING,
      now,
      before,
      after: current,
    });
  }

  #reportChange(config: WebhookConfigRecord, before: CircuitState, saved: CircuitRecord, now: number): void {
    const previous = healthState(config, before);
    const health = healthView(config, saved, null, now);
    if (previous === health.state) return;
    callHook(this.#options.hooks.onEndpointHealthChange, {
      agencyId: saved.agencyId,
      previous,
      current: health.state,
      health,
    });
  }
}
