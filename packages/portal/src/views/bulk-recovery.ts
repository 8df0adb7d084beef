import type { Recovery } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { type PortalApi, PortalApiError, type RecoveryRequest } from '../api-client';
import { defineView } from '../define-view';
import type { EventTypeOption } from '../event-type-option';
import { focusWhenRendered } from '../focus';
import { parseLocalDateTime, toLocalDateTimeInput } from '../format';
import { ENGLISH, type PortalText } from '../portal-text';
import { baseStyles } from '../theme';
import './bulk-recovery-progress';
import './recovery-history';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The recovery each API client last followed, kept across the element's re-creation when tabs change. */
const followedRecoveries = new WeakMap<PortalApi, string>();

/** The recovery the form follows and what to say about it. */
interface Followed {
  id: string;
  notice: string | null;
  startedElsewhere: boolean;
}

/** A dry run's answer, kept with the request it counted so that the replay starts exactly that. */
interface Counted {
  request: RecoveryRequest;
  matched: number;
}

/**
 * `<svc-wh-bulk-recovery>`: replays the failed deliveries of a time window (optionally of some event types)
 * after the agency's endpoint was down: count first (a dry run), confirm, then follow the progress. Below,
 * the agency's past recoveries, from which a running one can be followed too.
 *
 * @csspart card - the form, the progress and the history
 * @csspart badge - each recovery status badge
 * @csspart table - the scrollable box around the history's table
 */
export class BulkRecoveryElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    eventTypes: { attribute: false },
    since: { state: true },
    until: { state: true },
    selectedTypes: { state: true },
    counted: { state: true },
    busy: { state: true },
    formError: { state: true },
    followed: { state: true },
    followedRunning: { state: true },
    followedRecovery: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      fieldset {
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
        margin: 0 0 var(--_space);
        padding: var(--_space);
        min-width: 0;
      }
      legend {
        font-weight: 600;
        padding: 0 4px;
      }
      .types {
        display: flex;
        flex-wrap: wrap;
        gap: 6px 18px;
      }
      .types label {
        overflow-wrap: anywhere;
      }
      .count {
        align-items: center;
        margin-top: var(--_space);
      }
      .count p {
        margin: 0;
      }
      .window {
        margin-bottom: var(--_space);
      }
      .form-error {
        margin-top: var(--_space);
      }
    `,
  ];

  declare api: PortalApi;
  /** The portal's words and date format. */
  declare text: PortalText;
  declare eventTypes: readonly EventTypeOption[];
  declare private since: string;
  declare private until: string;
  declare private selectedTypes: ReadonlySet<string>;
  declare private counted: Counted | null;
  declare private busy: 'count' | 'start' | null;
  declare private formError: string | null;
  declare private followed: Followed | null;
  /** Whether the followed recovery still runs (its progress element says), which holds back a new one. */
  declare private followedRunning: boolean;
  /** The followed recovery as its progress last read it, which keeps the history in step. */
  declare private followedRecovery: Recovery | null;

  constructor() {
    super();
    this.text = ENGLISH;
    this.eventTypes = [];
    this.since = toLocalDateTimeInput(Date.now() - DAY_MS);
    this.until = '';
    this.selectedTypes = new Set();
    this.counted = null;
    this.busy = null;
    this.formError = null;
    this.followed = null;
    this.followedRunning = false;
    this.followedRecovery = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // The portal makes a new element each time its tab opens: show the recovery it last followed again.
    if (changed.has('api') && this.api && this.followed === null) {
      const remembered = followedRecoveries.get(this.api);
      if (remembered) void this.follow(remembered, null, false, false);
    }
  }

  /** The form as a request, or null (with the problem shown) when it is not valid. */
  private readRequest(): RecoveryRequest | null {
    const since = parseLocalDateTime(this.since);
    const until = parseLocalDateTime(this.until);
    if (since === null) {
      this.formError = 'Choose the start of the window (“Created from”).';
      return null;
    }
    if (this.until !== '' && until === null) {
      this.formError = 'The end of the window (“Created before”) is not a valid date and time.';
      return null;
    }
    if (until !== null && since > until) {
      this.formError = 'The start of the window must be before its end.';
      return null;
    }
    this.formError = null;
    const request: RecoveryRequest = { since };
    if (until !== null) request.until = until;
    // The list follows the catalogue's order so that the request does not depend on click order.
    const types = this.eventTypes
      .map((type) => type.eventType)
      .filter((type) => this.selectedTypes.has(type));
    if (types.length > 0) request.eventTypes = types;
    return request;
  }

  private async onCount(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const request = this.readRequest();
    if (request === null) return;
    this.busy = 'count';
    this.counted = null;
    try {
      // Without an end both the count and the replay run up to the server's "now" (no clock skew).
      const matched = await this.api.countRecoverable(request);
      this.counted = { request, matched };
    } catch (error) {
      this.formError = this.describe(error);
    } finally {
      this.busy = null;
    }
    // The Count button was disabled while it ran, which dropped the focus: the count (or the error) takes it.
    await focusWhenRendered(this, this.counted === null ? '#form-error' : '#count-result');
  }

  private async onStart(): Promise<void> {
    const counted = this.counted;
    if (!counted || counted.matched === 0) return;
    this.busy = 'start';
    try {
      const started = await this.api.startRecovery(counted.request);
      this.counted = null;
      await this.follow(started.recoveryId, 'Recovery started.', false, true);
    } catch (error) {
      if (error instanceof PortalApiError && error.code === 'recovery_in_progress') {
        const running = recoveryIdOf(error.details);
        this.counted = null;
        const notice =
          'Another recovery is already running for this agency. Wait for it to finish or cancel it, then start a new one.';
        if (running) await this.follow(running, `${notice} Its progress is shown below.`, true, true);
        else this.formError = notice;
      } else {
        this.formError = this.describe(error);
      }
    } finally {
      this.busy = null;
    }
    if (this.formError !== null) await focusWhenRendered(this, '#form-error');
  }

  private async follow(recoveryId: string, notice: string | null, startedElsewhere: boolean, focus: boolean) {
    followedRecoveries.set(this.api, recoveryId);
    if (this.followedRecovery?.id !== recoveryId) this.followedRecovery = null;
    this.followed = { id: recoveryId, notice, startedElsewhere };
    this.followedRunning = true;
    if (!focus) return;
    await this.updateComplete;
    await this.renderRoot.querySelector('svc-wh-bulk-recovery-progress')?.focusHeading();
  }

  private describe(error: unknown): string {
    if (!(error instanceof PortalApiError)) return String(error);
    if (error.code === 'validation_failed') return `Check the form: ${error.message}`;
    return error.message;
  }

  /** Any change to the form makes the last count stale. */
  private edited(apply: () => void): void {
    apply();
    this.counted = null;
  }

  private toggleType(type: string, checked: boolean): void {
    this.edited(() => {
      const next = new Set(this.selectedTypes);
      if (checked) next.add(type);
      else next.delete(type);
      this.selectedTypes = next;
    });
  }

  protected override render() {
    return html`${this.renderForm()} ${this.renderProgress()}
      <svc-wh-recovery-history
        exportparts="card, badge, table"
        .api=${this.api}
        .text=${this.text}
        .followedRecovery=${this.followedRecovery}
        @follow=${(event: CustomEvent<{ recoveryId: string }>) =>
          void this.follow(event.detail.recoveryId, null, false, true)}
      ></svc-wh-recovery-history>`;
  }

  private renderProgress() {
    const followed = this.followed;
    if (followed === null) return nothing;
    // One element per recovery: a notice the last one rewrote when it ended must not carry over.
    return keyed(
      followed.id,
      html`<svc-wh-bulk-recovery-progress
        exportparts="card, badge"
        .api=${this.api}
        .text=${this.text}
        .recoveryId=${followed.id}
        .notice=${followed.notice}
        .startedElsewhere=${followed.startedElsewhere}
        @change=${(event: CustomEvent<{ recovery: Recovery }>) => this.onProgress(event.detail.recovery)}
      ></svc-wh-bulk-recovery-progress>`,
    );
  }

  private onProgress(recovery: Recovery): void {
    // A read of a recovery the form no longer follows can still land after the switch.
    if (recovery.id !== this.followed?.id) return;
    this.followedRunning = recovery.status === 'running';
    this.followedRecovery = recovery;
  }

  private renderForm() {
    const counted = this.counted;
    const running = this.followed !== null && this.followedRunning;
    return html`<section class="card" part="card" aria-labelledby="recovery-heading">
      <h2 id="recovery-heading">Bulk recovery</h2>
      <p class="muted">
        Gives every failed delivery created in a time window one more attempt, for example after your endpoint was
        down. Count them first; nothing is sent until you confirm.
      </p>
      <form @submit=${this.onCount} novalidate>
        <div class="row window">
          <label>
            Created from (required)
            <input
              type="datetime-local"
              required
              .value=${this.since}
              @input=${(e: Event) => this.edited(() => (this.since = (e.target as HTMLInputElement).value))}
            />
          </label>
          <label>
            Created before (empty: now)
            <input
              type="datetime-local"
              .value=${this.until}
              @input=${(e: Event) => this.edited(() => (this.until = (e.target as HTMLInputElement).value))}
            />
          </label>
        </div>
        <fieldset>
          <legend>Event types</legend>
          <p class="muted">None selected: every event type.</p>
          ${
            this.eventTypes.length === 0
              ? html`<p class="muted">No event types are available.</p>`
              : html`<div class="types">
                ${this.eventTypes.map(
                  (type) => html`<label class="inline">
                    <input
                      type="checkbox"
                      .checked=${this.selectedTypes.has(type.eventType)}
                      @change=${(e: Event) => this.toggleType(type.eventType, (e.target as HTMLInputElement).checked)}
                    />
                    <code>${type.eventType}</code>
                  </label>`,
                )}
              </div>`
          }
        </fieldset>
        <button type="submit" ?disabled=${this.busy !== null}>${this.busy === 'count' ? 'Counting…' : 'Count failed deliveries'}</button>
        ${this.formError === null ? nothing : html`<p class="state error form-error" id="form-error" role="alert" tabindex="-1">${this.formError}</p>`}
      </form>
      <div role="status" aria-live="polite">
        ${
          counted === null
            ? nothing
            : html`<div class="row count">
              <p id="count-result" tabindex="-1">
                <strong>${counted.matched}</strong>
                ${counted.matched === 1 ? 'failed delivery matches.' : 'failed deliveries match.'}
              </p>
              ${counted.matched === 0 ? html`<span class="muted">Nothing to replay.</span>` : this.renderStart(counted.matched, running)}
            </div>`
        }
      </div>
    </section>`;
  }

  /** The red button that starts the replay of `matched` (at least one) deliveries. */
  private renderStart(matched: number, running: boolean) {
    return html`<button type="button" class="danger" ?disabled=${this.busy !== null || running} @click=${this.onStart}>
        ${this.busy === 'start' ? 'Starting…' : `Replay ${matched} ${matched === 1 ? 'delivery' : 'deliveries'}`}
      </button>
      ${running ? html`<span class="muted">Wait for the running recovery to finish first.</span>` : nothing}`;
  }
}

function recoveryIdOf(details: unknown): string | null {
  const id = (details as { recoveryId?: unknown } | null | undefined)?.recoveryId;
  return typeof id === 'string' ? id : null;
}

defineView('svc-wh-bulk-recovery', BulkRecoveryElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-bulk-recovery': BulkRecoveryElement;
  }
}
