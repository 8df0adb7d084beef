import type { EndpointHealth, WebhookConfig } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi } from '../api-client';
import { defineView } from '../define-view';
import { ENGLISH, type PortalText } from '../portal-text';
import { baseStyles } from '../theme';

const STATE_LABELS: Record<EndpointHealth['state'], string> = {
  healthy: 'Healthy',
  failing: 'Failing',
  disabled: 'Disabled',
};

/**
 * What the badge says. The API calls an endpoint `healthy` until an attempt fails, so one that never got a
 * 2xx reads "No delivery yet" (or "No success yet" after failures a save forgot): nothing proved it works.
 */
function stateLabel(health: EndpointHealth): { label: string; badge: string } {
  if (health.state === 'healthy' && health.lastSuccessAt === null)
    return { label: health.lastFailureAt === null ? 'No delivery yet' : 'No success yet', badge: 'idle' };
  return { label: STATE_LABELS[health.state], badge: health.state };
}

/** `disabledReason` in words; a reason not listed here is shown as the API gives it. */
const REASONS: Record<string, string> = {
  auto_disabled_failing:
    'Disabled automatically: every delivery failed for too long. Fix the receiver, then enable the endpoint again.',
  receiver_gone:
    'Disabled: the receiver answered 410 Gone, which under Standard Webhooks asks for no more deliveries. Enable the endpoint again to resume.',
};

/**
 * `<svc-wh-endpoint-health>`: whether deliveries to the configured URL get through (healthy, failing,
 * disabled) and since when. Loads on a new configuration; {@link EndpointHealthElement.refresh} reloads.
 *
 * @csspart card - the health card
 * @csspart badge - the state badge
 */
export class EndpointHealthElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    config: { attribute: false },
    health: { state: true },
    pending: { state: true },
    loading: { state: true },
    error: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      .head {
        display: flex;
        flex-wrap: wrap;
        gap: var(--_space);
        align-items: center;
        justify-content: space-between;
        margin-bottom: var(--_space);
      }
      .head h2 {
        margin: 0;
      }
      dl {
        display: grid;
        grid-template-columns: max-content 1fr;
        gap: 6px var(--_space);
        margin: var(--_space) 0 0;
      }
      dt {
        color: var(--_muted);
      }
      dd {
        margin: 0;
        overflow-wrap: anywhere;
      }
      @media (max-width: 480px) {
        dl {
          grid-template-columns: 1fr;
          gap: 2px;
        }
        dd {
          margin-bottom: 6px;
        }
      }
    `,
  ];

  declare api: PortalApi;
  /** The portal's words and date format. */
  declare text: PortalText;
  /** The stored configuration; null shows the empty state and loads nothing. */
  declare config: WebhookConfig | null;
  declare private health: EndpointHealth | null;
  /** Whether a delivery waits for a retry, read while failing; null when unknown. */
  declare private pending: boolean | null;
  declare private loading: boolean;
  declare private error: string | null;
  /** Answers of older requests are dropped, so a slow one cannot overwrite a newer state. */
  private request = 0;

  constructor() {
    super();
    this.text = ENGLISH;
    this.config = null;
    this.health = null;
    this.pending = null;
    this.loading = false;
    this.error = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // A new secret does not change the health; a new endpoint, URL or enabled flag may. refresh() sets its
    // loading state before its first await, so this render already shows it.
    const before = changed.get('config') as WebhookConfig | null | undefined;
    const moved =
      changed.has('config') &&
      (before == null ||
        this.config === null ||
        before.id !== this.config.id ||
        before.webhookUrl !== this.config.webhookUrl ||
        before.enabled !== this.config.enabled);
    if (changed.has('api') || moved) void this.refresh();
  }

  /** Reloads the health from the API (nothing without a configuration). */
  async refresh(): Promise<void> {
    const request = ++this.request;
    if (this.config === null || this.api === undefined) {
      this.health = null;
      this.error = null;
      this.loading = false;
      return;
    }
    this.loading = true;
    this.error = null;
    try {
      const health = await this.api.getHealth();
      const pending = health.state === 'failing' ? await this.hasPending() : null;
      if (request !== this.request) return;
      this.health = health;
      this.pending = pending;
    } catch (error) {
      if (request !== this.request) return;
      this.error = errorMessage(error);
    } finally {
      if (request === this.request) this.loading = false;
    }
  }

  /**
   * Whether any delivery is pending, which is what "retried" needs: the health alone does not say, and
   * when every delivery has failed for good nothing will be retried. Null when the list cannot be read.
   */
  private async hasPending(): Promise<boolean | null> {
    try {
      const { deliveries } = await this.api.listDeliveries({ status: 'pending', limit: 1 });
      return deliveries.length > 0;
    } catch {
      return null;
    }
  }

  protected override render() {
    const noConfig = this.config === null;
    return html`
      <section class="card" part="card" aria-labelledby="health-title" aria-busy=${this.loading ? 'true' : 'false'}>
        <div class="head">
          <h2 id="health-title">Endpoint health</h2>
          ${
            noConfig
              ? nothing
              : html`<button type="button" class="secondary" ?disabled=${this.loading} @click=${() => this.refresh()}>
                ${this.loading ? 'Refreshing…' : 'Refresh health'}
              </button>`
          }
        </div>
        ${this.renderBody(noConfig)}
        ${
          this.error === null
            ? nothing
            : html`<div class="state error" role="alert">
              <p>The health could not be loaded: ${this.error}</p>
              <button type="button" class="secondary" @click=${() => this.refresh()}>Try again</button>
            </div>`
        }
      </section>
    `;
  }

  private renderBody(noConfig: boolean) {
    if (noConfig) return html`<p class="state">Health appears here once the endpoint exists.</p>`;
    const health = this.health;
    // Only the state line is live: re-reading every date on each refresh would drown it.
    if (health === null)
      return this.loading
        ? html`<p class="state" role="status" aria-live="polite">Loading the health…</p>`
        : nothing;
    const { label, badge } = stateLabel(health);
    return html`
      <p role="status" aria-live="polite">
        <span class=${`badge ${badge}`} part="badge" data-state=${health.state}>${label}</span>
        ${summary(health, this.pending, this.text)}
      </p>
      <dl>
        <dt>Failures in a row</dt>
        <dd>${health.consecutiveFailures}</dd>
        <dt>Last success</dt>
        <dd>${this.text.formatTime(health.lastSuccessAt)}</dd>
        <dt>Last failure</dt>
        <dd>${this.text.formatTime(health.lastFailureAt)}</dd>
        <dt>Failing since</dt>
        <dd>${this.text.formatTime(health.failingSince)}</dd>
        ${
          health.pausedUntil === null
            ? nothing
            : html`<dt>Paused until</dt>
              <dd data-paused-until=${health.pausedUntil}>${this.text.formatTime(health.pausedUntil)}</dd>`
        }
        ${
          health.disabledAt === null
            ? nothing
            : html`<dt>Disabled at</dt>
              <dd>${this.text.formatTime(health.disabledAt)}</dd>`
        }
      </dl>
    `;
  }
}

/** The sentence after the badge; `pending` says whether a delivery waits for a retry (null: unknown). */
function summary(health: EndpointHealth, pending: boolean | null, text: PortalText): string {
  switch (health.state) {
    case 'healthy':
      if (health.lastSuccessAt !== null) return 'Deliveries get through: the last attempt got a 2xx answer.';
      return health.lastFailureAt === null
        ? 'No delivery has got a 2xx answer from this endpoint yet.'
        : 'No delivery has got a 2xx answer yet; the failures before the settings were last saved no longer count.';
    case 'failing':
      if (health.pausedUntil !== null)
        return `Paused until ${text.formatTime(health.pausedUntil)}: every attempt since ${text.formatTime(health.failingSince)} went without a 2xx answer, and the receiver failed too often in a row, so deliveries wait. A test event that succeeds, a replay or a recovery tries again at once.`;
      return `Every attempt since ${text.formatTime(health.failingSince)} went without a 2xx answer. ${recourse(pending)}`;
    default:
      if (health.disabledReason === null)
        return 'The endpoint is switched off in the settings: nothing is delivered until it is enabled.';
      return REASONS[health.disabledReason] ?? health.disabledReason;
  }
}

/** What becomes of a failing endpoint's deliveries: "retried" only while one is pending. */
function recourse(pending: boolean | null): string {
  if (pending === true) return 'Pending deliveries are retried on their schedule.';
  const replay = 'replay the failed ones from Deliveries, or a whole time window from Recovery.';
  return pending === false ? `No delivery is waiting for a retry: ${replay}` : `You can ${replay}`;
}

defineView('svc-wh-endpoint-health', EndpointHealthElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-endpoint-health': EndpointHealthElement;
  }
}
