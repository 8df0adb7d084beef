import type { AttemptRecord, DeliveryDetail, DeliveryStatus } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi, PortalApiError } from '../api-client';
import { defineView } from '../define-view';
import { focusWhenRendered } from '../focus';
import { formatDuration } from '../format';
import { ENGLISH, type PortalText } from '../portal-text';
import { baseStyles } from '../theme';

const STATUS_LABELS: Record<DeliveryStatus, string> = {
  pending: 'Pending',
  success: 'Success',
  failed: 'Failed',
};

const TRIGGER_LABELS: Record<AttemptRecord['trigger'], string> = {
  automatic: 'Automatic',
  replay: 'Replay',
  recovery: 'Recovery',
};

const ERROR_KIND_LABELS: Record<NonNullable<AttemptRecord['errorKind']>, string> = {
  http_status: 'The endpoint answered with an error status',
  timeout: 'No answer in time (timeout)',
  dns: 'The host name could not be resolved',
  private_address: 'Refused: the address is private',
  connect: 'The connection could not be made',
  tls: 'The secure connection (TLS) failed',
  sender_busy: 'Not sent: the sender was too busy to send it in time (not the endpoint’s fault)',
};

/** How often a pending delivery is re-read after a replay, and for how long at most. */
const FOLLOW_INTERVAL_MS = 1000;
const FOLLOW_LIMIT_MS = 30_000;

/** What the replay message says until the replayed delivery leaves `pending`, then once it has. */
const REPLAY_MESSAGES = {
  queued: 'Replay queued. The new attempt appears below once it has been made.',
  waiting: 'Replay queued, not attempted yet (the endpoint may be paused). Refresh to see how it went.',
  success: 'Replayed: delivered. The receiver answered with a 2xx; the new attempt is below.',
  failed: 'Replayed: failed again. The new attempt below shows what the receiver answered.',
} as const;

/**
 * `<svc-wh-delivery-detail>`: one delivery with its payload and every attempt, and a Replay button for a
 * failed one. Fires `close` (detail: the delivery as last read) when the reader goes back.
 *
 * @csspart card - the summary and the attempts
 * @csspart badge - the status badge
 */
export class DeliveryDetailElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    deliveryId: { type: String, attribute: 'delivery-id' },
    delivery: { state: true },
    attempts: { state: true },
    loading: { state: true },
    error: { state: true },
    replaying: { state: true },
    message: { state: true },
    replayError: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      dl {
        display: grid;
        grid-template-columns: minmax(8em, max-content) 1fr;
        gap: 4px var(--_space);
        margin: 0 0 var(--_space);
      }
      dt {
        font-weight: 600;
        color: var(--_muted);
      }
      dd {
        margin: 0;
        overflow-wrap: anywhere;
      }
      dl.facts {
        display: flex;
        flex-wrap: wrap;
        gap: 2px calc(var(--_space) * 2);
        margin-bottom: 6px;
      }
      dl.facts > div {
        display: flex;
        gap: 6px;
      }
      ol.timeline {
        list-style: none;
        padding: 0;
        margin: 0;
      }
      ol.timeline > li {
        border-left: 3px solid var(--_border);
        padding: 0 0 var(--_space) var(--_space);
      }
      .head {
        display: flex;
        flex-wrap: wrap;
        justify-content: space-between;
        gap: var(--_space);
        align-items: center;
        margin-bottom: var(--_space);
      }
      .head h2 {
        margin: 0;
      }
      h4 {
        margin: 0 0 6px;
        font-size: 1em;
      }
      .actions {
        margin-bottom: var(--_space);
      }
      @media (max-width: 480px) {
        dl:not(.facts) {
          grid-template-columns: 1fr;
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
  /** The delivery shown. */
  declare deliveryId: string;
  declare private delivery: DeliveryDetail | null;
  declare private attempts: AttemptRecord[];
  declare private loading: boolean;
  declare private error: string | null;
  declare private replaying: boolean;
  declare private message: string | null;
  declare private replayError: string | null;
  private loadToken = 0;
  private followTimer: ReturnType<typeof setTimeout> | undefined;
  private followUntil = 0;
  private focusHeadingOnLoad = true;
  /** A replay was queued and its outcome is not known yet: the next read that is not pending tells it. */
  private awaitingReplay = false;

  constructor() {
    super();
    this.text = ENGLISH;
    this.deliveryId = '';
    this.delivery = null;
    this.attempts = [];
    this.loading = false;
    this.error = null;
    this.replaying = false;
    this.message = null;
    this.replayError = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('deliveryId') || changed.has('api')) && this.api && this.deliveryId) {
      this.delivery = null;
      this.attempts = [];
      this.message = null;
      this.replayError = null;
      this.awaitingReplay = false;
      this.focusHeadingOnLoad = true;
      void this.load();
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopFollowing();
  }

  private async load(): Promise<void> {
    const token = ++this.loadToken;
    this.loading = true;
    this.error = null;
    try {
      const [delivery, attempts] = await Promise.all([
        this.api.getDelivery(this.deliveryId),
        this.api.listAttempts(this.deliveryId),
      ]);
      if (token !== this.loadToken) return;
      this.delivery = delivery;
      this.attempts = attempts.attempts;
      this.noteReplayOutcome(delivery);
    } catch (error) {
      if (token !== this.loadToken) return;
      this.error = errorMessage(error);
    } finally {
      if (token === this.loadToken) this.loading = false;
    }
    if (this.focusHeadingOnLoad && token === this.loadToken) {
      // The detail replaces the list: focus its heading so a screen reader starts here.
      this.focusHeadingOnLoad = false;
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('#detail-heading')?.focus();
    }
  }

  private async replay(): Promise<void> {
    this.replaying = true;
    this.message = null;
    this.replayError = null;
    try {
      await this.api.replay(this.deliveryId);
      this.message = REPLAY_MESSAGES.queued;
      this.awaitingReplay = true;
      this.followUntil = Date.now() + FOLLOW_LIMIT_MS;
    } catch (error) {
      this.replayError =
        error instanceof PortalApiError && error.code === 'delivery_not_replayable'
          ? 'This delivery cannot be replayed: only a failed delivery can be, and this one is no longer failed.'
          : `The replay could not be queued: ${errorMessage(error)}`;
    } finally {
      this.replaying = false;
    }
    // The disabled Replay button lost the focus: give it to the outcome, which the message keeps as it changes.
    void focusWhenRendered(this, this.replayError === null ? '#replay-message' : '#replay-error');
    await this.load();
    this.followWhilePending();
  }

  /** Once a replayed delivery is no longer pending, the message says how the replay went. */
  private noteReplayOutcome(delivery: DeliveryDetail): void {
    if (!this.awaitingReplay || delivery.status === 'pending') return;
    this.awaitingReplay = false;
    this.message = REPLAY_MESSAGES[delivery.status];
  }

  /** After a replay the worker attempts soon: re-read until the delivery leaves `pending`, for a while. */
  private followWhilePending(): void {
    this.stopFollowing();
    if (!this.isConnected || this.delivery?.status !== 'pending') return;
    if (Date.now() > this.followUntil) {
      if (this.awaitingReplay) this.message = REPLAY_MESSAGES.waiting;
      return;
    }
    this.followTimer = setTimeout(async () => {
      await this.load();
      this.followWhilePending();
    }, FOLLOW_INTERVAL_MS);
  }

  private stopFollowing(): void {
    if (this.followTimer !== undefined) clearTimeout(this.followTimer);
    this.followTimer = undefined;
  }

  private close(): void {
    this.stopFollowing();
    this.dispatchEvent(new CustomEvent('close', { detail: { delivery: this.delivery } }));
  }

  private onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.close();
    }
  }

  protected override render() {
    const delivery = this.delivery;
    return html`<section class="card" part="card" aria-labelledby="detail-heading" @keydown=${this.onKeydown}>
      <div class="head">
        <h2 id="detail-heading" tabindex="-1">
          Delivery${delivery ? html` of <code>${delivery.eventType}</code>` : nothing}
        </h2>
        <button type="button" class="secondary" @click=${this.close}>Back to deliveries</button>
      </div>
      ${this.renderBody()}
    </section>`;
  }

  private renderBody() {
    const delivery = this.delivery;
    if (delivery === null) {
      if (this.error !== null) {
        return html`<div class="state error" role="alert">
          <p>The delivery could not be loaded: ${this.error}</p>
          <button type="button" class="secondary" @click=${() => void this.load()}>Try again</button>
        </div>`;
      }
      return html`<p class="state" role="status">Loading the delivery…</p>`;
    }
    return html`
      ${this.renderSummary(delivery)}
      <div class="row actions">
        <button type="button" @click=${this.replay} ?disabled=${this.replaying || delivery.status !== 'failed'}>
          ${this.replaying ? 'Replaying…' : 'Replay'}
        </button>
        <button type="button" class="secondary" @click=${() => void this.load()} ?disabled=${this.loading}>Refresh</button>
        ${
          delivery.status === 'failed'
            ? nothing
            : html`<span class="muted">Only a failed delivery can be replayed.</span>`
        }
      </div>
      <div role="status" aria-live="polite">
        ${this.message === null ? nothing : html`<p class="state" id="replay-message" tabindex="-1">${this.message}</p>`}
      </div>
      ${
        this.replayError === null
          ? nothing
          : html`<p class="state error" id="replay-error" role="alert" tabindex="-1">${this.replayError}</p>`
      }
      ${this.error === null ? nothing : html`<p class="state error" role="alert">The delivery could not be reloaded: ${this.error}</p>`}
      <h3>Payload</h3>
      <pre tabindex="0" role="region" aria-label="Payload">${JSON.stringify(delivery.payload, null, 2)}</pre>
      <h3>Attempts</h3>
      ${
        this.attempts.length === 0
          ? html`<p class="state">No attempt has been made yet.</p>`
          : html`<ol class="timeline">${this.attempts.map((attempt) => this.renderAttempt(attempt))}</ol>`
      }
    `;
  }

  private renderSummary(delivery: DeliveryDetail) {
    return html`<dl>
      <dt>Status</dt>
      <dd><span class="badge ${delivery.status}" part="badge">${STATUS_LABELS[delivery.status]}</span></dd>
      <dt>Event type</dt>
      <dd><code>${delivery.eventType}</code></dd>
      <dt>Entity</dt>
      <dd>${delivery.entityType}${delivery.entityId === null ? nothing : html` <code>${delivery.entityId}</code>`}</dd>
      <dt>Webhook id</dt>
      <dd><code>${delivery.webhookId}</code></dd>
      <dt>Created</dt>
      <dd>${this.text.formatTime(delivery.createdOn)}</dd>
      <dt>Delivered</dt>
      <dd>${this.text.formatTime(delivery.deliveredAt)}</dd>
      <dt>Next retry</dt>
      <dd>${this.text.formatTime(delivery.nextRetryAt)}${
        delivery.pausedUntil === null
          ? nothing
          : html`<br /><span class="paused" data-paused-until=${delivery.pausedUntil}>
              Endpoint paused until ${this.text.formatTime(delivery.pausedUntil)}: the receiver failed too often in a row.
              It goes at once when a test event succeeds, or when a failed delivery is replayed or recovered.</span>`
      }</dd>
      <dt>Attempts</dt>
      <dd>${delivery.attempt} of ${delivery.maxAttempts}</dd>
      <dt>Last error</dt>
      <dd>${delivery.lastErrorMessage ?? '—'}</dd>
    </dl>`;
  }

  private renderAttempt(attempt: AttemptRecord) {
    const outcome =
      attempt.responseCode !== null
        ? `HTTP ${attempt.responseCode}`
        : attempt.errorKind !== null
          ? ERROR_KIND_LABELS[attempt.errorKind]
          : 'No answer recorded';
    return html`<li data-attempt=${attempt.attempt}>
      <h4>Attempt ${attempt.attempt}</h4>
      <dl class="facts">
        <div><dt>Trigger</dt><dd>${TRIGGER_LABELS[attempt.trigger]}</dd></div>
        <div><dt>Started</dt><dd>${this.text.formatTime(attempt.startedAt)}</dd></div>
        <div><dt>Duration</dt><dd>${formatDuration(attempt.durationMs)}</dd></div>
        <div><dt>Result</dt><dd>${outcome}</dd></div>
      </dl>
      ${attempt.errorMessage === null ? nothing : html`<p>${attempt.errorMessage}</p>`}
      ${
        attempt.responseExcerpt === null || attempt.responseExcerpt === ''
          ? nothing
          : html`<pre
              tabindex="0"
              role="region"
              aria-label=${`Response body of attempt ${attempt.attempt}`}
            >${attempt.responseExcerpt}</pre>`
      }
    </li>`;
  }
}

defineView('svc-wh-delivery-detail', DeliveryDetailElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-delivery-detail': DeliveryDetailElement;
  }
}
