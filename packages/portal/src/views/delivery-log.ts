import type { DeliveryDetail, DeliveryStatus, DeliverySummary } from '@svc/webhooks-core';
import { css, html, LitElement, nothing } from 'lit';
import { type DeliveryFilters, errorMessage, type PortalApi, pageLimit } from '../api-client';
import { defineView } from '../define-view';
import type { EventTypeOption } from '../event-type-option';
import { formatTime, parseLocalDateTime } from '../format';
import { baseStyles } from '../theme';
import './delivery-detail';

const STATUS_LABELS: Record<DeliveryStatus, string> = {
  pending: 'Pending',
  success: 'Success',
  failed: 'Failed',
};

/** The filters as typed in the form: strings, empty meaning "any". */
interface FilterForm {
  status: DeliveryStatus | '';
  eventType: string;
  since: string;
  until: string;
}

const EMPTY_FILTERS: FilterForm = { status: '', eventType: '', since: '', until: '' };

/**
 * `<svc-wh-delivery-log>`: the agency's deliveries, newest first, filtered by status, event type and
 * creation window, a page at a time; "View" opens a delivery's detail with its attempts and replay.
 *
 * @csspart card - the filter form and the list
 * @csspart badge - each status badge
 * @csspart table - the scrollable box around the table
 */
export class DeliveryLogElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    eventTypes: { attribute: false },
    pageSize: { type: Number, attribute: 'page-size' },
    form: { state: true },
    applied: { state: true },
    rows: { state: true },
    nextCursor: { state: true },
    loading: { state: true },
    loadingMore: { state: true },
    error: { state: true },
    formError: { state: true },
    selectedId: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
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
      .scroll-hint {
        display: none;
      }
      @media (max-width: 640px) {
        .scroll-hint {
          display: block;
        }
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
      .filters {
        margin-bottom: var(--_space);
      }
      .filters select,
      .filters input {
        min-width: 10em;
      }
    `,
  ];

  declare api: PortalApi;
  declare eventTypes: readonly EventTypeOption[];
  /** Deliveries per page, 1 to 100. @default 20 */
  declare pageSize: number;
  declare private form: FilterForm;
  declare private applied: FilterForm;
  declare private rows: DeliverySummary[];
  declare private nextCursor: string | null;
  declare private loading: boolean;
  declare private loadingMore: boolean;
  declare private error: string | null;
  declare private formError: string | null;
  declare private selectedId: string | null;
  /** Which load is current, so a slow answer to an older request is dropped. */
  private loadToken = 0;
  private loadedApi: PortalApi | null = null;

  constructor() {
    super();
    this.eventTypes = [];
    this.pageSize = 20;
    this.form = { ...EMPTY_FILTERS };
    this.applied = { ...EMPTY_FILTERS };
    this.rows = [];
    this.nextCursor = null;
    this.loading = false;
    this.loadingMore = false;
    this.error = null;
    this.formError = null;
    this.selectedId = null;
  }

  protected override willUpdate(): void {
    if (this.api && this.api !== this.loadedApi) {
      this.loadedApi = this.api;
      void this.load();
    }
  }

  /** Reloads the first page with the applied filters. */
  async refresh(): Promise<void> {
    await this.load();
  }

  private filtersFor(form: FilterForm, cursor: string | null): DeliveryFilters {
    return {
      status: form.status,
      eventType: form.eventType,
      since: parseLocalDateTime(form.since),
      until: parseLocalDateTime(form.until),
      limit: pageLimit(this.pageSize, 20),
      cursor,
    };
  }

  private async load(): Promise<void> {
    const token = ++this.loadToken;
    this.loading = true;
    this.error = null;
    try {
      const page = await this.api.listDeliveries(this.filtersFor(this.applied, null));
      if (token !== this.loadToken) return;
      this.rows = page.deliveries;
      this.nextCursor = page.nextCursor;
    } catch (error) {
      if (token !== this.loadToken) return;
      this.error = errorMessage(error);
      this.rows = [];
      this.nextCursor = null;
    } finally {
      if (token === this.loadToken) this.loading = false;
    }
  }

  private async loadMore(): Promise<void> {
    if (!this.nextCursor) return;
    const token = this.loadToken;
    const firstNew = this.rows.length;
    this.loadingMore = true;
    this.error = null;
    try {
      const page = await this.api.listDeliveries(this.filtersFor(this.applied, this.nextCursor));
      if (token !== this.loadToken) return;
      this.rows = [...this.rows, ...page.deliveries];
      this.nextCursor = page.nextCursor;
      // Keyboard users land on the first new row instead of at the end of the page.
      await this.updateComplete;
      this.viewButton(this.rows[firstNew]?.id)?.focus();
    } catch (error) {
      if (token === this.loadToken) this.error = errorMessage(error);
    } finally {
      this.loadingMore = false;
    }
  }

  private onApply(event: SubmitEvent): void {
    event.preventDefault();
    const since = parseLocalDateTime(this.form.since);
    const until = parseLocalDateTime(this.form.until);
    if (since !== null && until !== null && since > until) {
      this.formError = 'The “Created from” time must be before the “Created before” time.';
      return;
    }
    this.formError = null;
    this.applied = { ...this.form };
    void this.load();
  }

  private onClear(): void {
    this.form = { ...EMPTY_FILTERS };
    this.applied = { ...EMPTY_FILTERS };
    this.formError = null;
    void this.load();
  }

  private setField(field: keyof FilterForm, value: string): void {
    this.form = { ...this.form, [field]: value };
  }

  private open(id: string): void {
    this.selectedId = id;
  }

  /** Back from the detail: the row shows what the detail last read, and focus goes back to it. */
  private async onDetailClose(event: CustomEvent<{ delivery: DeliveryDetail | null }>): Promise<void> {
    const id = this.selectedId;
    const latest = event.detail.delivery;
    if (latest) {
      this.rows = this.rows.map((row) =>
        row.id === latest.id
          ? {
              ...row,
              status: latest.status,
              attempt: latest.attempt,
              lastAttemptAt: latest.lastAttemptAt,
              deliveredAt: latest.deliveredAt,
              lastResponseCode: latest.lastResponseCode,
            }
          : row,
      );
    }
    this.selectedId = null;
    await this.updateComplete;
    this.viewButton(id)?.focus();
  }

  private viewButton(id: string | undefined | null): HTMLButtonElement | null {
    if (!id) return null;
    return this.renderRoot.querySelector<HTMLButtonElement>(`button[data-delivery-id="${CSS.escape(id)}"]`);
  }

  protected override render() {
    if (this.selectedId !== null) {
      return html`<svc-wh-delivery-detail
        exportparts="card, badge"
        .api=${this.api}
        .deliveryId=${this.selectedId}
        @close=${this.onDetailClose}
      ></svc-wh-delivery-detail>`;
    }
    return html`<section class="card" part="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      ${this.renderFilters()}
      <p class="visually-hidden" role="status" aria-live="polite">${this.announcement()}</p>
      ${this.renderBody()}
    </section>`;
  }

  private renderFilters() {
    const form = this.form;
    return html`<form class="filters" @submit=${this.onApply} aria-label="Delivery filters">
      <div class="row">
        <label>
          Status
          <select .value=${form.status} @change=${(e: Event) => this.setField('status', (e.target as HTMLSelectElement).value)}>
            <option value="" ?selected=${form.status === ''}>Any status</option>
            ${(['pending', 'success', 'failed'] as const).map(
              (status) =>
                html`<option value=${status} ?selected=${form.status === status}>${STATUS_LABELS[status]}</option>`,
            )}
          </select>
        </label>
        <label>
          Event type
          <select
            .value=${form.eventType}
            @change=${(e: Event) => this.setField('eventType', (e.target as HTMLSelectElement).value)}>
            <option value="" ?selected=${form.eventType === ''}>Any event type</option>
            ${this.eventTypes.map(
              (type) =>
                html`<option value=${type.eventType} ?selected=${form.eventType === type.eventType}>${type.eventType}</option>`,
            )}
          </select>
        </label>
        <label>
          Created from
          <input
            type="datetime-local"
            .value=${form.since}
            @input=${(e: Event) => this.setField('since', (e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Created before
          <input
            type="datetime-local"
            .value=${form.until}
            @input=${(e: Event) => this.setField('until', (e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Apply</button>
        <button type="button" class="secondary" @click=${this.onClear}>Clear filters</button>
        <button type="button" class="secondary" @click=${() => void this.refresh()} ?disabled=${this.loading}>
          Refresh
        </button>
      </div>
      ${this.formError === null ? nothing : html`<p class="state error" role="alert">${this.formError}</p>`}
    </form>`;
  }

  private announcement(): string {
    if (this.loading) return 'Loading deliveries…';
    if (this.error !== null) return '';
    return `${this.rows.length} ${this.rows.length === 1 ? 'delivery' : 'deliveries'} shown${this.nextCursor ? ', more available' : ''}.`;
  }

  private renderBody() {
    if (this.loading && this.rows.length === 0) return html`<p class="state">Loading deliveries…</p>`;
    if (this.error !== null && this.rows.length === 0) {
      return html`<div class="state error" role="alert">
        <p>The deliveries could not be loaded: ${this.error}</p>
        <button type="button" class="secondary" @click=${() => void this.refresh()}>Try again</button>
      </div>`;
    }
    if (this.rows.length === 0) {
      const filtered = Object.values(this.applied).some((value) => value !== '');
      return html`<p class="state">${filtered ? 'No deliveries match these filters.' : 'No deliveries yet.'}</p>`;
    }
    return html`
      <p class="muted scroll-hint" aria-hidden="true">Scroll the table sideways for more columns.</p>
      <div class="table-wrap" part="table" tabindex="0" role="region" aria-label="Deliveries table">
        <table>
          <thead>
            <tr>
              <th scope="col">Event type</th>
              <th scope="col">Status</th>
              <th scope="col">Entity</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last response</th>
              <th scope="col">Last attempt</th>
            </tr>
          </thead>
          <tbody>
            ${this.rows.map((row) => this.renderRow(row))}
          </tbody>
        </table>
      </div>
      ${this.error === null ? nothing : html`<p class="state error" role="alert">${this.error}</p>`}
      ${
        this.nextCursor
          ? html`<button type="button" class="secondary" @click=${() => void this.loadMore()} ?disabled=${this.loadingMore}>
            ${this.loadingMore ? 'Loading…' : 'Load more'}
          </button>`
          : html`<p class="muted">End of the list.</p>`
      }
    `;
  }

  private renderRow(row: DeliverySummary) {
    // The event type is the button that opens the detail: first in the row, it stays in view on a phone.
    return html`<tr data-delivery-row=${row.id}>
      <td>
        <button type="button" class="link" data-delivery-id=${row.id} @click=${() => this.open(row.id)}>
          <span class="visually-hidden">View </span><code>${row.eventType}</code><span class="visually-hidden">
            delivery${row.entityId ? ` for ${row.entityId}` : ''}</span
          >
        </button>
      </td>
      <td><span class="badge ${row.status}" part="badge">${STATUS_LABELS[row.status]}</span></td>
      <td>${row.entityId ?? html`<span class="muted">—</span>`}</td>
      <td>${row.attempt}</td>
      <td>${row.lastResponseCode ?? html`<span class="muted">—</span>`}</td>
      <td>${formatTime(row.lastAttemptAt)}</td>
    </tr>`;
  }
}

defineView('svc-wh-delivery-log', DeliveryLogElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-delivery-log': DeliveryLogElement;
  }
}
