import type { Recovery } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi, pageLimit } from '../api-client';
import { defineView } from '../define-view';
import { ENGLISH, type PortalText } from '../portal-text';
import { baseStyles } from '../theme';
import { recoveryStatusBadge } from './recovery-status';

/**
 * `<svc-wh-recovery-history>`: the agency's past bulk recoveries, newest first and of every status, a page
 * at a time. Give it the recovery the page follows (as last read) and it stays in step: a new or finished
 * one reloads the list, progress on a running one updates its row. "Show progress" on a running row fires
 * `follow` (detail: `{ recoveryId }`).
 *
 * @csspart card - the list's box
 * @csspart badge - each status badge
 * @csspart table - the scrollable box around the table
 */
export class RecoveryHistoryElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    pageSize: { type: Number, attribute: 'page-size' },
    followedRecovery: { attribute: false },
    recoveries: { state: true },
    nextCursor: { state: true },
    loading: { state: true },
    loadingMore: { state: true },
    error: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      .heading {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        justify-content: space-between;
        gap: calc(var(--_space) * 0.75);
        margin-bottom: var(--_space);
      }
      .heading h3 {
        margin: 0;
      }
      .table-wrap {
        /* Contains the visually hidden labels, which are absolutely positioned, so they scroll with the table. */
        position: relative;
        overflow-x: auto;
        margin-bottom: var(--_space);
      }
      th,
      td {
        white-space: nowrap;
        vertical-align: middle;
      }
      tbody th {
        font-size: inherit;
        color: inherit;
        font-weight: 400;
      }
      /*
       * Times put their date over their clock, and the window its start over its end: every row has the same
       * two lines, and the table fits a desktop without scrolling.
       */
      .two-lines > span,
      .two-lines > time > span {
        display: block;
      }
      /* Event types break between names, never inside one. */
      .wraps {
        white-space: normal;
      }
      .wraps > span {
        white-space: nowrap;
      }
      .status {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 4px 10px;
      }
      button.link {
        background: transparent;
        border-color: transparent;
        color: var(--_accent);
        padding: 0;
        font-weight: 400;
        min-height: 28px;
        text-decoration: underline;
      }
      .scroll-hint {
        display: none;
      }
      @media (max-width: 640px) {
        .scroll-hint {
          display: block;
        }
      }
    `,
  ];

  declare api: PortalApi;
  /** The portal's words and date format. */
  declare text: PortalText;
  /** Recoveries per page, 1 to 100. @default 10 */
  declare pageSize: number;
  /** The recovery the page follows, as its progress last read it; null when it follows none. */
  declare followedRecovery: Recovery | null;
  declare private recoveries: Recovery[];
  declare private nextCursor: string | null;
  declare private loading: boolean;
  declare private loadingMore: boolean;
  declare private error: string | null;
  /** Which load is current, so a slow answer to an older request is dropped. */
  private loadToken = 0;
  private loadedApi: PortalApi | null = null;

  constructor() {
    super();
    this.text = ENGLISH;
    this.pageSize = 10;
    this.followedRecovery = null;
    this.recoveries = [];
    this.nextCursor = null;
    this.loading = false;
    this.loadingMore = false;
    this.error = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (this.api && this.api !== this.loadedApi) {
      this.loadedApi = this.api;
      void this.load();
      return;
    }
    if (changed.has('followedRecovery') && this.followedRecovery) this.keepInStep(this.followedRecovery);
  }

  /** Reads the list again, as many rows as are shown. */
  async refresh(): Promise<void> {
    await this.load();
  }

  private keepInStep(latest: Recovery): void {
    const shown = this.recoveries.find((recovery) => recovery.id === latest.id);
    // A recovery the list does not have yet, or one that ended, can change other rows too: read them all.
    if (shown === undefined || shown.status !== latest.status) {
      void this.load();
      return;
    }
    this.recoveries = this.recoveries.map((recovery) => (recovery.id === latest.id ? latest : recovery));
  }

  private async load(): Promise<void> {
    const token = ++this.loadToken;
    // Reading as many as are shown keeps the rows "Show more" added when a status change reloads the list.
    const limit = pageLimit(Math.max(this.pageSize, this.recoveries.length), 1);
    this.loading = true;
    this.error = null;
    try {
      const page = await this.api.listRecoveries({ limit });
      if (token !== this.loadToken) return;
      this.recoveries = page.recoveries;
      this.nextCursor = page.nextCursor;
    } catch (error) {
      if (token === this.loadToken) this.error = errorMessage(error);
    } finally {
      if (token === this.loadToken) this.loading = false;
    }
  }

  private async loadMore(): Promise<void> {
    if (!this.nextCursor) return;
    const token = this.loadToken;
    const firstNew = this.recoveries.length;
    this.loadingMore = true;
    this.error = null;
    try {
      const page = await this.api.listRecoveries({
        limit: pageLimit(this.pageSize, 1),
        cursor: this.nextCursor,
      });
      if (token !== this.loadToken) return;
      this.recoveries = [...this.recoveries, ...page.recoveries];
      this.nextCursor = page.nextCursor;
      // Keyboard users land on the first new row instead of at the end of the page.
      await this.updateComplete;
      this.rowHeader(this.recoveries[firstNew]?.id)?.focus();
    } catch (error) {
      if (token === this.loadToken) this.error = errorMessage(error);
    } finally {
      this.loadingMore = false;
    }
  }

  private rowHeader(id: string | undefined): HTMLElement | null {
    if (!id) return null;
    return this.renderRoot.querySelector<HTMLElement>(`tr[data-recovery-id="${CSS.escape(id)}"] th`);
  }

  private follow(recoveryId: string): void {
    this.dispatchEvent(new CustomEvent('follow', { detail: { recoveryId } }));
  }

  protected override render() {
    // Refresh stays enabled while loading: disabling it would drop the focus of whoever just pressed it.
    return html`<section class="card" part="card" aria-labelledby="history-heading">
      <div class="heading">
        <h3 id="history-heading">Recent recoveries</h3>
        <button type="button" class="secondary" @click=${() => void this.refresh()}>Refresh</button>
      </div>
      <p class="visually-hidden" role="status" aria-live="polite">${this.announcement()}</p>
      ${this.renderBody()}
    </section>`;
  }

  private announcement(): string {
    if (this.loading && this.recoveries.length === 0) return 'Loading recoveries…';
    if (this.error !== null) return '';
    const shown = this.recoveries.length;
    return `${shown} ${shown === 1 ? 'recovery' : 'recoveries'} shown${this.nextCursor ? ', more available' : ''}.`;
  }

  private renderBody() {
    const rows = this.recoveries;
    if (this.error !== null && rows.length === 0) {
      return html`<div class="state error" role="alert">
        <p>The recoveries could not be loaded: ${this.error}</p>
        <button type="button" class="secondary" @click=${() => void this.refresh()}>Try again</button>
      </div>`;
    }
    if (rows.length === 0) {
      return html`<p class="state">${this.loading ? 'Loading recoveries…' : 'No recovery has run yet.'}</p>`;
    }
    return html`
      <p class="muted scroll-hint" aria-hidden="true">Scroll the table sideways for more columns.</p>
      <div class="table-wrap" part="table" tabindex="0" role="region" aria-label="Recent recoveries table">
        <table>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              <th scope="col">Replayed</th>
              <th scope="col">Window</th>
              <th scope="col">Event types</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            ${rows.map((recovery) => this.renderRow(recovery))}
          </tbody>
        </table>
      </div>
      ${this.error === null ? nothing : html`<p class="state error" role="alert">The recoveries could not be loaded: ${this.error}</p>`}
      ${
        this.nextCursor
          ? html`<button type="button" class="secondary" @click=${() => void this.loadMore()} ?disabled=${this.loadingMore}>
            ${this.loadingMore ? 'Loading…' : 'Show more'}
          </button>`
          : nothing
      }
    `;
  }

  private renderRow(recovery: Recovery) {
    const created = this.text.formatTime(recovery.createdAt);
    return html`<tr data-recovery-id=${recovery.id}>
      <th scope="row" class="two-lines" tabindex="-1">${renderTime(recovery.createdAt, this.text)}</th>
      <td>
        <div class="status">${recoveryStatusBadge(recovery.status)}${this.renderFollow(recovery, created)}</div>
      </td>
      <td>${recovery.replayed} of ${recovery.matched}</td>
      <td class="two-lines">
        <span>${this.text.formatTime(recovery.since)}<span aria-hidden="true"> →</span><span class="visually-hidden"> to</span></span>
        <span>${this.text.formatTime(recovery.until)}</span>
      </td>
      <td class="wraps">${renderEventTypes(recovery.eventTypes)}</td>
      <td class="two-lines">
        ${recovery.completedAt === null ? html`<span class="muted">—</span>` : renderTime(recovery.completedAt, this.text)}
      </td>
    </tr>`;
  }

  private renderFollow(recovery: Recovery, created: string) {
    if (recovery.status !== 'running') return nothing;
    if (this.followedRecovery?.id === recovery.id)
      return html`<span class="muted">Progress shown above</span>`;
    return html`<button type="button" class="link" @click=${() => this.follow(recovery.id)}>
      Show progress<span class="visually-hidden"> of the recovery created ${created}</span>
    </button>`;
  }
}

function renderEventTypes(eventTypes: readonly string[] | null) {
  if (eventTypes === null) return html`<span class="muted">All</span>`;
  const last = eventTypes.length - 1;
  return eventTypes.map((type, index) => html`<span><code>${type}</code>${index < last ? ',' : ''}</span> `);
}

function renderTime(epochMs: number, text: PortalText) {
  const { date, time } = text.formatTimeParts(epochMs);
  return html`<time datetime=${new Date(epochMs).toISOString()}><span>${date}</span> <span>${time}</span></time>`;
}

defineView('svc-wh-recovery-history', RecoveryHistoryElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-recovery-history': RecoveryHistoryElement;
  }
}
