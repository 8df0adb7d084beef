import type { Recovery } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi, PortalApiError } from '../api-client';
import { defineView } from '../define-view';
import { ENGLISH, type PortalText } from '../portal-text';
import { baseStyles } from '../theme';
import { recoveryStatusBadge, recoveryStatusLabel } from './recovery-status';

const POLL_INTERVAL_MS = 1000;

/**
 * `<svc-wh-bulk-recovery-progress>`: one bulk recovery's progress, re-read every second while it runs and
 * while the element is on the page, with a Cancel button. Fires `change` (detail: the recovery as last read).
 *
 * @csspart card - the progress box
 * @csspart badge - the recovery's status badge
 */
export class BulkRecoveryProgressElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    recoveryId: { type: String, attribute: 'recovery-id' },
    notice: { type: String },
    startedElsewhere: { type: Boolean, attribute: 'started-elsewhere' },
    recovery: { state: true },
    error: { state: true },
    cancelling: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      progress {
        width: 100%;
        height: 1.2em;
        accent-color: var(--_accent);
        margin-bottom: var(--_space);
      }
    `,
  ];

  declare api: PortalApi;
  /** The portal's words and date format. */
  declare text: PortalText;
  /** The recovery shown. */
  declare recoveryId: string;
  /** A message to show above the progress; replaced when the recovery finishes. */
  declare notice: string | null;
  /** Whether the recovery was started by someone else (a 409 named it), which changes the final message. */
  declare startedElsewhere: boolean;
  declare private recovery: Recovery | null;
  declare private error: string | null;
  declare private cancelling: boolean;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.text = ENGLISH;
    this.recoveryId = '';
    this.notice = null;
    this.startedElsewhere = false;
    this.recovery = null;
    this.error = null;
    this.cancelling = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('recoveryId') || changed.has('api')) && this.api && this.recoveryId) {
      this.recovery = null;
      this.error = null;
      void this.read().then(() => this.schedulePoll());
    }
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.schedulePoll();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopPolling();
  }

  /** Moves focus to the heading, so that a screen reader continues from the progress. */
  async focusHeading(): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('h3')?.focus();
  }

  private async read(): Promise<void> {
    const id = this.recoveryId;
    try {
      const next = await this.api.getRecovery(id);
      if (id === this.recoveryId) this.show(next);
    } catch (error) {
      if (id === this.recoveryId) this.error = `The progress could not be read: ${errorMessage(error)}`;
    }
  }

  private show(next: Recovery): void {
    const before = this.recovery?.status;
    this.recovery = next;
    this.error = null;
    if (next.status !== 'running' && before !== next.status) {
      const label = recoveryStatusLabel(next.status).toLowerCase();
      this.notice = this.startedElsewhere
        ? `The other recovery is ${label}; count again to start a new one.`
        : next.status === 'cancelled'
          ? 'Recovery cancelled. Deliveries already replayed stay queued.'
          : `Recovery ${label}: ${next.replayed} of ${next.matched} replayed.`;
    }
    this.dispatchEvent(new CustomEvent('change', { detail: { recovery: next } }));
  }

  /** Re-reads every second until the recovery ends (or while it could not be read), only while connected. */
  private schedulePoll(): void {
    this.stopPolling();
    const status = this.recovery?.status;
    if (
      !this.isConnected ||
      !this.api ||
      !this.recoveryId ||
      status === 'completed' ||
      status === 'cancelled'
    )
      return;
    this.pollTimer = setTimeout(async () => {
      this.pollTimer = undefined;
      await this.read();
      this.schedulePoll();
    }, POLL_INTERVAL_MS);
  }

  private stopPolling(): void {
    if (this.pollTimer !== undefined) clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
  }

  private async cancel(): Promise<void> {
    this.cancelling = true;
    try {
      this.show(await this.api.cancelRecovery(this.recoveryId));
    } catch (error) {
      if (error instanceof PortalApiError && error.code === 'recovery_not_running') await this.read();
      else this.error = `The recovery could not be cancelled: ${errorMessage(error)}`;
    } finally {
      this.cancelling = false;
    }
    this.schedulePoll();
  }

  protected override render() {
    const recovery = this.recovery;
    return html`<section class="card" part="card" aria-labelledby="progress-heading">
      <h3 id="progress-heading" tabindex="-1">Recovery progress</h3>
      <div role="status" aria-live="polite">
        ${this.notice === null ? nothing : html`<p class="state">${this.notice}</p>`}
      </div>
      ${recovery === null ? (this.error === null ? html`<p class="state">Reading the progress…</p>` : nothing) : this.renderRecovery(recovery)}
      ${this.error === null ? nothing : html`<p class="state error" role="alert">${this.error}</p>`}
      ${
        recovery === null || recovery.status === 'running'
          ? html`<button type="button" class="secondary" @click=${this.cancel} ?disabled=${this.cancelling}>
              ${this.cancelling ? 'Cancelling…' : 'Cancel recovery'}
            </button>`
          : nothing
      }
    </section>`;
  }

  private renderRecovery(recovery: Recovery) {
    const finished = recovery.status !== 'running';
    const max = Math.max(recovery.matched, 1);
    const value = recovery.matched === 0 && finished ? 1 : Math.min(recovery.replayed, max);
    return html`
      <p>
        ${recoveryStatusBadge(recovery.status)}
        Replayed ${recovery.replayed} of ${recovery.matched}
      </p>
      <progress max=${max} .value=${value} aria-label="Deliveries replayed">
        ${recovery.replayed} of ${recovery.matched}
      </progress>
      <p class="muted">
        Window: ${this.text.formatTime(recovery.since)} to ${this.text.formatTime(recovery.until)};
        ${recovery.eventTypes === null ? 'every event type' : recovery.eventTypes.join(', ')}.
        ${
          recovery.status === 'completed' && recovery.replayed < recovery.matched
            ? 'Deliveries that were no longer failed when reached (replayed by hand, say) were skipped.'
            : nothing
        }
      </p>
    `;
  }
}

defineView('svc-wh-bulk-recovery-progress', BulkRecoveryProgressElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-bulk-recovery-progress': BulkRecoveryProgressElement;
  }
}
