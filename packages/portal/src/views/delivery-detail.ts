import type { AttemptRecord, DeliveryDetail, DeliveryStatus } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi, PortalApiError } from '../api-client';
import { defineView } from '../define-view';
import { focusWhenRendered } from '../focus';
import { formatDuration } from '../format';
import { ENGLISH, type PortalText } from '../portal-text';
import type { PortalStringKey } from '../strings';
import { baseStyles } from '../theme';

const STATUS_LABELS: Record<DeliveryStatus, PortalStringKey> = {
  pending: 'status.pending',
  success: 'status.success',
  failed: 'status.failed',
};

const TRIGGER_LABELS: Record<AttemptRecord['trigger'], PortalStringKey> = {
  automatic: 'detail.trigger.automatic',
  replay: 'detail.trigger.replay',
  recovery: 'detail.trigger.recovery',
};

const ERROR_KIND_LABELS: Record<NonNullable<AttemptRecord['errorKind']>, PortalStringKey> = {
  http_status: 'detail.error.http_status',
  timeout: 'detail.error.timeout',
  dns: 'detail.error.dns',
  private_address: 'detail.error.private_address',
  connect: 'detail.error.connect',
  tls: 'detail.error.tls',
  sender_busy: 'detail.error.sender_busy',
};

/** How often a pending delivery is re-read after a replay, and for how long at most. */
const FOLLOW_INTERVAL_MS = 1000;
const FOLLOW_LIMIT_MS = 30_000;

/** What the replay message says until the replayed delivery leaves `pending`, then once it has. */
const REPLAY_MESSAGES = {
  queued: 'detail.replay.queued',
  waiting: 'detail.replay.waiting',
  success: 'detail.replay.success',
  failed: 'detail.replay.failed',
} as const satisfies Record<string, PortalStringKey>;

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
      this.message = this.text.t(REPLAY_MESSAGES.queued);
      this.awaitingReplay = true;
      this.followUntil = Date.now() + FOLLOW_LIMIT_MS;
    } catch (error) {
      this.replayError =
        error instanceof PortalApiError && error.code === 'delivery_not_replayable'
          ? this.text.t('detail.replay.notReplayable')
          : this.text.t('detail.replay.error', { message: errorMessage(error) });
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
    this.message = this.text.t(REPLAY_MESSAGES[delivery.status]);
  }

  /** After a replay the worker attempts soon: re-read until the delivery leaves `pending`, for a while. */
  private followWhilePending(): void {
    this.stopFollowing();
    if (!this.isConnected || this.delivery?.status !== 'pending') return;
    if (Date.now() > this.followUntil) {
      if (this.awaitingReplay) this.message = this.text.t(REPLAY_MESSAGES.waiting);
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
          ${this.text.t(delivery ? 'detail.titleOf' : 'detail.title')}${delivery ? html` <code>${delivery.eventType}</code>` : nothing}
        </h2>
        <button type="button" class="secondary" @click=${this.close}>${this.text.t('detail.back')}</button>
      </div>
      ${this.renderBody()}
    </section>`;
  }

  private renderBody() {
    const delivery = this.delivery;
    if (delivery === null) {
      if (this.error !== null) {
        return html`<div class="state error" role="alert">
          <p>${this.text.t('detail.loadError', { message: this.error })}</p>
          <button type="button" class="secondary" @click=${() => void this.load()}>${this.text.t('common.tryAgain')}</button>
        </div>`;
      }
      return html`<p class="state" role="status">${this.text.t('detail.loading')}</p>`;
    }
    return html`
      ${this.renderSummary(delivery)}
      <div class="row actions">
        <button type="button" @click=${this.replay} ?disabled=${this.replaying || delivery.status !== 'failed'}>
          ${this.text.t(this.replaying ? 'detail.replaying' : 'detail.replay')}
        </button>
        <button type="button" class="secondary" @click=${() => void this.load()} ?disabled=${this.loading}>${this.text.t('detail.refresh')}</button>
        ${
          delivery.status === 'failed'
            ? nothing
            : html`<span class="muted">${this.text.t('detail.onlyFailed')}</span>`
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
      ${this.error === null ? nothing : html`<p class="state error" role="alert">${this.text.t('detail.reloadError', { message: this.error })}</p>`}
      <h3>${this.text.t('detail.payload')}</h3>
      <pre tabindex="0" role="region" aria-label=${this.text.t('detail.payload')}>${JSON.stringify(delivery.payload, null, 2)}</pre>
      <h3>${this.text.t('detail.attempts')}</h3>
      ${
        this.attempts.length === 0
          ? html`<p class="state">${this.text.t('detail.noAttempt')}</p>`
          : html`<ol class="timeline">${this.attempts.map((attempt) => this.renderAttempt(attempt))}</ol>`
      }
    `;
  }

  private renderSummary(delivery: DeliveryDetail) {
    const t = this.text;
    return html`<dl>
      <dt>${t.t('detail.status')}</dt>
      <dd><span class="badge ${delivery.status}" part="badge">${t.t(STATUS_LABELS[delivery.status])}</span></dd>
      <dt>${t.t('detail.eventType')}</dt>
      <dd><code>${delivery.eventType}</code></dd>
      <dt>${t.t('detail.entity')}</dt>
      <dd>${delivery.entityType}${delivery.entityId === null ? nothing : html` <code>${delivery.entityId}</code>`}</dd>
      <dt>${t.t('detail.webhookId')}</dt>
      <dd><code>${delivery.webhookId}</code></dd>
      <dt>${t.t('detail.created')}</dt>
      <dd>${this.text.formatTime(delivery.createdOn)}</dd>
      <dt>${t.t('detail.delivered')}</dt>
      <dd>${this.text.formatTime(delivery.deliveredAt)}</dd>
      <dt>${t.t('detail.nextRetry')}</dt>
      <dd>${this.text.formatTime(delivery.nextRetryAt)}${
        delivery.pausedUntil === null
          ? nothing
          : html`<br /><span class="paused" data-paused-until=${delivery.pausedUntil}>
              ${t.t('detail.paused', { until: t.formatTime(delivery.pausedUntil) })}</span>`
      }</dd>
      <dt>${t.t('detail.attempts')}</dt>
      <dd>${t.t('detail.attemptsOf', { attempt: delivery.attempt, max: delivery.maxAttempts })}</dd>
      <dt>${t.t('detail.lastError')}</dt>
      <dd>${delivery.lastErrorMessage ?? '—'}</dd>
    </dl>`;
  }

  private renderAttempt(attempt: AttemptRecord) {
    const t = this.text;
    const outcome =
      attempt.responseCode !== null
        ? t.t('detail.http', { status: attempt.responseCode })
        : attempt.errorKind !== null
          ? t.t(ERROR_KIND_LABELS[attempt.errorKind])
          : t.t('detail.noAnswerRecorded');
    return html`<li data-attempt=${attempt.attempt}>
      <h4>${t.t('detail.attempt', { attempt: attempt.attempt })}</h4>
      <dl class="facts">
        <div><dt>${t.t('detail.trigger')}</dt><dd>${t.t(TRIGGER_LABELS[attempt.trigger])}</dd></div>
        <div><dt>${t.t('detail.started')}</dt><dd>${t.formatTime(attempt.startedAt)}</dd></div>
        <div><dt>${t.t('detail.duration')}</dt><dd>${formatDuration(attempt.durationMs)}</dd></div>
        <div><dt>${t.t('detail.result')}</dt><dd>${outcome}</dd></div>
      </dl>
      ${attempt.errorMessage === null ? nothing : html`<p>${attempt.errorMessage}</p>`}
      ${
        attempt.responseExcerpt === null || attempt.responseExcerpt === ''
          ? nothing
          : html`<pre
              tabindex="0"
              role="region"
              aria-label=${t.t('detail.responseBody', { attempt: attempt.attempt })}
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
