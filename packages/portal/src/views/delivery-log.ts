import type { DeliveryDetail, DeliveryStatus, DeliverySummary } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { type DeliveryFilters, errorMessage, type PortalApi, PortalApiError, pageLimit } from '../api-client';
import { defineView } from '../define-view';
import type { EventTypeOption } from '../event-type-option';
import { parseLocalDateTime } from '../format';
import { ENGLISH, type PortalText } from '../portal-text';
import type { PortalStringKey } from '../strings';
import { baseStyles } from '../theme';
import { type DeliveryRoute, EMPTY_DELIVERY_ROUTE, sameDeliveryRoute } from '../url-state';
import './delivery-detail';

const STATUS_LABELS: Record<DeliveryStatus, PortalStringKey> = {
  pending: 'status.pending',
  success: 'status.success',
  failed: 'status.failed',
};

/** The creation-time presets: a window ending now, or the custom one typed in. */
const PRESETS = {
  '': { label: 'log.preset.any', ms: null },
  '1h': { label: 'log.preset.hour', ms: 3_600_000 },
  '24h': { label: 'log.preset.day', ms: 86_400_000 },
  '7d': { label: 'log.preset.week', ms: 7 * 86_400_000 },
  custom: { label: 'log.preset.custom', ms: null },
} as const satisfies Record<string, { label: PortalStringKey; ms: number | null }>;
type Preset = keyof typeof PRESETS;

/** How often the opt-in auto-refresh reloads the first page. */
const AUTO_REFRESH_MS = 10_000;

/** The filters as typed in the form: strings, empty meaning "any"; `since`/`until` count for `custom` only. */
interface FilterForm {
  status: DeliveryStatus | '';
  eventType: string;
  entityId: string;
  preset: Preset;
  since: string;
  until: string;
}

const EMPTY_FILTERS: FilterForm = {
  status: '',
  eventType: '',
  entityId: '',
  preset: '',
  since: '',
  until: '',
};

function isPreset(value: string | undefined): value is Preset {
  return value !== undefined && Object.hasOwn(PRESETS, value);
}

function isStatus(value: string | undefined): value is DeliveryStatus {
  return value === 'pending' || value === 'success' || value === 'failed';
}

/** The form a route's filters describe; unknown values are dropped. */
function formOf(route: DeliveryRoute): FilterForm {
  const { status, eventType, entityId, preset, since, until } = route.filters;
  const chosen: Preset = isPreset(preset) ? preset : since || until ? 'custom' : '';
  return {
    status: isStatus(status) ? status : '',
    eventType: eventType ?? '',
    entityId: entityId ?? '',
    preset: chosen,
    since: chosen === 'custom' ? (since ?? '') : '',
    until: chosen === 'custom' ? (until ?? '') : '',
  };
}

/** `whdel_{id}` (the webhook id a receiver logs) or the delivery id itself. */
function deliveryIdOf(typed: string): string {
  const trimmed = typed.trim();
  return trimmed.startsWith('whdel_') ? trimmed.slice('whdel_'.length) : trimmed;
}

/**
 * `<svc-wh-delivery-log>`: the agency's deliveries, newest first, filtered by status, event type, entity
 * and creation time (presets or a custom window), a page at a time, with an opt-in auto-refresh; a
 * delivery opens from its row or directly by its delivery or webhook id. `route` sets the filters and the
 * open delivery (from the address); every change the agent makes is fired as `svc-wh-route` (detail: the
 * new {@link DeliveryRoute}). On a phone the rows are cards.
 *
 * @csspart card - the filter form and the list
 * @csspart badge - each status badge
 * @csspart table - the box around the table
 */
export class DeliveryLogElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    eventTypes: { attribute: false },
    text: { attribute: false },
    route: { attribute: false },
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
    findId: { state: true },
    findError: { state: true },
    finding: { state: true },
    autoRefresh: { state: true },
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
      button.link {
        background: transparent;
        border-color: transparent;
        color: var(--_accent);
        padding: 0;
        font-weight: 400;
        min-height: 28px;
        text-decoration: underline;
      }
      .filters,
      .find {
        margin-bottom: var(--_space);
      }
      .filters select,
      .filters input:not([type='checkbox']),
      .find input {
        min-width: 10em;
      }
      .actions {
        align-items: center;
      }
      .actions label.inline {
        gap: 8px;
      }
      .find input {
        width: 22em;
      }
      .find .state {
        margin: 8px 0 0;
      }
      /* On a phone each delivery is a card: every field visible with its name, nothing scrolled sideways. */
      @media (max-width: 640px) {
        .filters select,
        .filters input:not([type='checkbox']),
        .find input,
        .row > label:not(.inline) {
          width: 100%;
          min-width: 0;
        }
        table,
        tbody,
        tr,
        td {
          display: block;
        }
        thead {
          position: absolute;
          width: 1px;
          height: 1px;
          overflow: hidden;
          clip: rect(0 0 0 0);
        }
        tr {
          border: 1px solid var(--_border);
          border-radius: var(--_radius);
          padding: 6px 8px;
          margin-bottom: 8px;
        }
        td {
          border: none;
          padding: 2px 0;
          white-space: normal;
          overflow-wrap: anywhere;
          display: flex;
          gap: 8px;
        }
        td::before {
          content: attr(data-label);
          flex: 0 0 9em;
          color: var(--_muted);
          font-size: 0.9em;
        }
        td:first-child::before {
          content: none;
        }
      }
    `,
  ];

  declare api: PortalApi;
  declare eventTypes: readonly EventTypeOption[];
  /** The portal's words and date format. */
  declare text: PortalText;
  /** The filters and open delivery to show, as the address holds them. */
  declare route: DeliveryRoute;
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
  declare private findId: string;
  declare private findError: string | null;
  declare private finding: boolean;
  declare private autoRefresh: boolean;
  /** Which load is current, so a slow answer to an older request is dropped. */
  private loadToken = 0;
  private loadedApi: PortalApi | null = null;
  private refreshTimer: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.eventTypes = [];
    this.text = ENGLISH;
    this.route = EMPTY_DELIVERY_ROUTE;
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
    this.findId = '';
    this.findError = null;
    this.finding = false;
    this.autoRefresh = false;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    let reload = false;
    if (changed.has('route') && !sameDeliveryRoute(this.route, this.currentRoute())) {
      this.form = formOf(this.route);
      this.applied = { ...this.form };
      this.selectedId = this.route.delivery;
      this.formError = null;
      reload = true;
    }
    if (this.api && this.api !== this.loadedApi) {
      this.loadedApi = this.api;
      reload = true;
    }
    if (reload && this.api) void this.load();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopAutoRefresh();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.autoRefresh) this.startAutoRefresh();
  }

  /** Reloads the first page with the applied filters. */
  async refresh(): Promise<void> {
    await this.load();
  }

  /** What the list shows now, as the address would hold it. */
  private currentRoute(): DeliveryRoute {
    const { status, eventType, entityId, preset, since, until } = this.applied;
    const filters: Record<string, string> = { status, eventType, entityId: entityId.trim(), preset };
    if (preset === 'custom') Object.assign(filters, { since, until });
    return { filters, delivery: this.selectedId };
  }

  private announceRoute(): void {
    this.dispatchEvent(new CustomEvent<DeliveryRoute>('svc-wh-route', { detail: this.currentRoute() }));
  }

  private filtersFor(form: FilterForm, cursor: string | null): DeliveryFilters {
    const preset = PRESETS[form.preset];
    const window =
      preset.ms !== null
        ? { since: Date.now() - preset.ms, until: null }
        : form.preset === 'custom'
          ? { since: parseLocalDateTime(form.since), until: parseLocalDateTime(form.until) }
          : { since: null, until: null };
    return {
      status: form.status,
      eventType: form.eventType,
      entityId: form.entityId.trim(),
      ...window,
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
    if (this.form.preset === 'custom') {
      const since = parseLocalDateTime(this.form.since);
      const until = parseLocalDateTime(this.form.until);
      if (since !== null && until !== null && since > until) {
        this.formError = this.text.t('log.windowError');
        return;
      }
    }
    this.formError = null;
    this.applied = { ...this.form };
    this.announceRoute();
    void this.load();
  }

  private onClear(): void {
    this.form = { ...EMPTY_FILTERS };
    this.applied = { ...EMPTY_FILTERS };
    this.formError = null;
    this.announceRoute();
    void this.load();
  }

  private setField<K extends keyof FilterForm>(field: K, value: FilterForm[K]): void {
    this.form = { ...this.form, [field]: value };
  }

  private onAutoRefresh(on: boolean): void {
    this.autoRefresh = on;
    if (on) this.startAutoRefresh();
    else this.stopAutoRefresh();
  }

  private startAutoRefresh(): void {
    this.stopAutoRefresh();
    this.refreshTimer = setInterval(() => {
      // Not while a delivery is open or a page is loading: the list is not on screen, or about to change.
      if (this.selectedId === null && !this.loading && !this.loadingMore) void this.load();
    }, AUTO_REFRESH_MS);
  }

  private stopAutoRefresh(): void {
    if (this.refreshTimer !== undefined) clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  private open(id: string): void {
    this.selectedId = id;
    this.announceRoute();
  }

  /** Opens a delivery by its id or webhook id, after checking there is one, so a typo is said here. */
  private async onFind(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const id = deliveryIdOf(this.findId);
    if (id === '') {
      this.findError = this.text.t('log.find.empty');
      await this.focusFind();
      return;
    }
    this.finding = true;
    this.findError = null;
    try {
      await this.api.getDelivery(id);
      this.findId = '';
      this.open(id);
    } catch (error) {
      this.findError =
        error instanceof PortalApiError && error.code === 'delivery_not_found'
          ? this.text.t('log.find.notFound', { id: this.findId.trim() })
          : this.text.t('log.find.error', { message: errorMessage(error) });
      await this.focusFind();
    } finally {
      this.finding = false;
    }
  }

  private async focusFind(): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLInputElement>('#find-id')?.focus();
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
    this.announceRoute();
    await this.updateComplete;
    (this.viewButton(id) ?? this.renderRoot.querySelector<HTMLElement>('#deliveries-heading'))?.focus();
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
        .text=${this.text}
        .deliveryId=${this.selectedId}
        @close=${this.onDetailClose}
      ></svc-wh-delivery-detail>`;
    }
    const t = this.text;
    return html`<section class="card" part="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading" tabindex="-1">${t.t('log.title')}</h2>
      ${this.renderFind()} ${this.renderFilters()}
      <p class="visually-hidden" role="status" aria-live="polite">${this.announcement()}</p>
      ${this.renderBody()}
    </section>`;
  }

  private renderFind() {
    const t = this.text;
    return html`<form class="find" @submit=${this.onFind} aria-label=${t.t('log.find.label')}>
      <div class="row">
        <label>
          ${t.t('log.find.field')}
          <input
            id="find-id"
            type="search"
            autocomplete="off"
            spellcheck="false"
            placeholder="whdel_…"
            .value=${this.findId}
            aria-invalid=${this.findError === null ? 'false' : 'true'}
            aria-describedby=${this.findError === null ? nothing : 'find-error'}
            @input=${(e: Event) => {
              this.findId = (e.target as HTMLInputElement).value;
            }}
          />
        </label>
        <button type="submit" class="secondary" ?disabled=${this.finding}>${t.t('log.find.open')}</button>
      </div>
      ${this.findError === null ? nothing : html`<p id="find-error" class="state error" role="alert">${this.findError}</p>`}
    </form>`;
  }

  private renderFilters() {
    const t = this.text;
    const form = this.form;
    return html`<form class="filters" @submit=${this.onApply} aria-label=${t.t('log.filters')}>
      <div class="row">
        <label>
          ${t.t('log.status')}
          <select @change=${(e: Event) => this.setField('status', (e.target as HTMLSelectElement).value as FilterForm['status'])}>
            <option value="" ?selected=${form.status === ''}>${t.t('log.anyStatus')}</option>
            ${(['pending', 'success', 'failed'] as const).map(
              (status) =>
                html`<option value=${status} ?selected=${form.status === status}>${t.t(STATUS_LABELS[status])}</option>`,
            )}
          </select>
        </label>
        <label>
          ${t.t('log.eventType')}
          <select @change=${(e: Event) => this.setField('eventType', (e.target as HTMLSelectElement).value)}>
            <option value="" ?selected=${form.eventType === ''}>${t.t('log.anyEventType')}</option>
            ${this.eventTypes.map(
              (type) =>
                html`<option value=${type.eventType} ?selected=${form.eventType === type.eventType}>${type.eventType}</option>`,
            )}
          </select>
        </label>
        <label>
          ${t.t('log.entityId')}
          <input
            type="search"
            autocomplete="off"
            spellcheck="false"
            .value=${form.entityId}
            @input=${(e: Event) => this.setField('entityId', (e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          ${t.t('log.created')}
          <select @change=${(e: Event) => this.setField('preset', (e.target as HTMLSelectElement).value as Preset)}>
            ${(Object.keys(PRESETS) as Preset[]).map(
              (preset) =>
                html`<option value=${preset} ?selected=${form.preset === preset}>${t.t(PRESETS[preset].label)}</option>`,
            )}
          </select>
        </label>
        ${
          form.preset === 'custom'
            ? html`<label>
                ${t.t('log.since')}
                <input
                  type="datetime-local"
                  .value=${form.since}
                  @input=${(e: Event) => this.setField('since', (e.target as HTMLInputElement).value)}
                />
              </label>
              <label>
                ${t.t('log.until')}
                <input
                  type="datetime-local"
                  .value=${form.until}
                  @input=${(e: Event) => this.setField('until', (e.target as HTMLInputElement).value)}
                />
              </label>`
            : nothing
        }
      </div>
      <div class="row actions">
        <button type="submit">${t.t('log.apply')}</button>
        <button type="button" class="secondary" @click=${this.onClear}>${t.t('log.clear')}</button>
        <button type="button" class="secondary" @click=${() => void this.refresh()} ?disabled=${this.loading}>
          ${t.t('log.refresh')}
        </button>
        <label class="inline">
          <input
            type="checkbox"
            .checked=${this.autoRefresh}
            @change=${(e: Event) => this.onAutoRefresh((e.target as HTMLInputElement).checked)}
          />
          ${t.t('log.autoRefresh')}
        </label>
      </div>
      ${this.formError === null ? nothing : html`<p class="state error" role="alert">${this.formError}</p>`}
    </form>`;
  }

  private announcement(): string {
    if (this.loading && this.rows.length === 0) return this.text.t('log.loading');
    if (this.error !== null || this.loading) return '';
    const key = this.rows.length === 1 ? 'log.shown.one' : 'log.shown.other';
    return `${this.text.t(key, { count: this.rows.length })}${this.nextCursor ? ` ${this.text.t('log.more')}` : ''}`;
  }

  private renderBody() {
    const t = this.text;
    if (this.loading && this.rows.length === 0) return html`<p class="state">${t.t('log.loading')}</p>`;
    if (this.error !== null && this.rows.length === 0) {
      return html`<div class="state error" role="alert">
        <p>${t.t('log.loadError', { message: this.error })}</p>
        <button type="button" class="secondary" @click=${() => void this.refresh()}>${t.t('common.tryAgain')}</button>
      </div>`;
    }
    if (this.rows.length === 0) {
      const filtered = Object.values(this.applied).some((value) => value !== '');
      return html`<p class="state">${t.t(filtered ? 'log.noMatch' : 'log.none')}</p>`;
    }
    return html`
      <div class="table-wrap" part="table" tabindex="0" role="region" aria-label=${t.t('log.table')}>
        <table>
          <thead>
            <tr>
              <th scope="col">${t.t('log.eventType')}</th>
              <th scope="col">${t.t('log.status')}</th>
              <th scope="col">${t.t('log.entity')}</th>
              <th scope="col">${t.t('log.created')}</th>
              <th scope="col">${t.t('log.attempts')}</th>
              <th scope="col">${t.t('log.lastResponse')}</th>
              <th scope="col">${t.t('log.lastAttempt')}</th>
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
            ${this.loadingMore ? t.t('log.loadingMore') : t.t('log.loadMore')}
          </button>`
          : html`<p class="muted">${t.t('log.end')}</p>`
      }
    `;
  }

  /**
   * The last response in words: the status code; "No answer" when attempts were made but none got an
   * HTTP answer (a timeout, a refused connection: the detail says which); nothing before the first.
   */
  private lastResponse(row: DeliverySummary) {
    if (row.lastResponseCode !== null) return html`${row.lastResponseCode}`;
    if (row.attempt > 0) return html`<span data-no-answer>${this.text.t('log.noAnswer')}</span>`;
    return html`<span class="muted">${this.text.t('log.notTried')}</span>`;
  }

  private renderRow(row: DeliverySummary) {
    const t = this.text;
    // The event type is the button that opens the detail: first in the row, it heads the card on a phone.
    return html`<tr data-delivery-row=${row.id}>
      <td>
        <button type="button" class="link" data-delivery-id=${row.id} @click=${() => this.open(row.id)}>
          <span class="visually-hidden">${t.t('log.view')} </span><code>${row.eventType}</code><span class="visually-hidden">
            ${row.entityId ? t.t('log.viewFor', { entityId: row.entityId }) : t.t('log.viewDelivery')}</span
          >
        </button>
      </td>
      <td data-label=${t.t('log.status')}>
        <span class="badge ${row.status}" part="badge">${t.t(STATUS_LABELS[row.status])}</span>
      </td>
      <td data-label=${t.t('log.entity')}>${row.entityId ?? html`<span class="muted">—</span>`}</td>
      <td data-label=${t.t('log.created')}>${t.formatTime(row.createdAt)}</td>
      <td data-label=${t.t('log.attempts')}>${row.attempt}</td>
      <td data-label=${t.t('log.lastResponse')}>${this.lastResponse(row)}</td>
      <td data-label=${t.t('log.lastAttempt')}>${t.formatTime(row.lastAttemptAt)}</td>
    </tr>`;
  }
}

defineView('svc-wh-delivery-log', DeliveryLogElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-delivery-log': DeliveryLogElement;
  }
}
