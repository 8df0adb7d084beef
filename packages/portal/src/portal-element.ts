import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, PortalApi } from './api-client';
import type { EventTypeOption } from './event-type-option';
import { baseStyles } from './theme';
import './views/endpoint-view';
import './views/delivery-log';
import './views/bulk-recovery';

const TABS = [
  { id: 'endpoint', label: 'Endpoint' },
  { id: 'deliveries', label: 'Deliveries' },
  { id: 'recovery', label: 'Recovery' },
] as const;

/** A view of the portal: one of its tabs. */
export type PortalView = (typeof TABS)[number]['id'];

/**
 * `<svc-webhooks-portal>`: an agency's webhook settings, endpoint health, test send, delivery log with
 * replay, and bulk recovery, talking only to the management API.
 *
 * @example
 * ```html
 * <script type="module" src="/portal/portal.js"></script>
 * <svc-webhooks-portal api-base="/v1/agency/webhooks"></svc-webhooks-portal>
 * <script type="module">
 *   document.querySelector('svc-webhooks-portal').token = await getAgentToken();
 * </script>
 * ```
 *
 * Themable through CSS custom properties (`--svc-wh-color-accent`, `--svc-wh-font`, … listed in
 * docs/portal.md) and the parts `tabs`, `tab`, `panel`, `card`, `badge` and `table`.
 */
export class SvcWebhooksPortal extends LitElement {
  static override properties = {
    apiBase: { type: String, attribute: 'api-base' },
    token: { type: String },
    credentials: { type: String },
    agencyId: { type: String, attribute: 'agency-id' },
    view: { type: String, reflect: true },
    eventTypes: { state: true },
    eventTypesError: { state: true },
  };

  /** The element's styles: the shared theme and the tabs'. */
  static override styles = [
    baseStyles,
    css`
      [role='tablist'] {
        display: flex;
        gap: 4px;
        border-bottom: 2px solid var(--_border);
        margin-bottom: var(--_space);
        overflow-x: auto;
      }
      [role='tab'] {
        background: transparent;
        color: var(--_muted);
        border: none;
        border-bottom: 3px solid transparent;
        border-radius: 0;
        margin-bottom: -2px;
      }
      [role='tab'][aria-selected='true'] {
        color: var(--_accent);
        border-bottom-color: var(--_accent);
      }
    `,
  ];

  /** Where the management API is mounted. @default '/v1/agency/webhooks' */
  declare apiBase: string;
  /** The agent's token, sent as `authorization: Bearer …`; leave unset when the host authenticates by cookie. */
  declare token: string | null;
  /** `fetch` credentials mode: `same-origin` by default, `include` when the API is on another origin with cookies. */
  declare credentials: RequestCredentials;
  /**
   * The agency's id, which the management API does not repeat: with it the portal shows the full address of
   * the agency's public keys (JWKS) for Ed25519 signatures; without it, a placeholder in its place.
   */
  declare agencyId: string | null;
  /** The tab shown: `endpoint`, `deliveries` or `recovery`. */
  declare view: PortalView;
  declare private eventTypes: readonly EventTypeOption[] | null;
  declare private eventTypesError: string | null;
  private api: PortalApi;

  constructor() {
    super();
    this.apiBase = '/v1/agency/webhooks';
    this.token = null;
    this.credentials = 'same-origin';
    this.agencyId = null;
    this.view = 'endpoint';
    this.eventTypes = null;
    this.eventTypesError = null;
    this.api = this.createApi();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('apiBase') || changed.has('token') || changed.has('credentials')) {
      this.api = this.createApi();
      void this.loadEventTypes();
    }
  }

  private createApi(): PortalApi {
    return new PortalApi({ apiBase: this.apiBase, token: this.token, credentials: this.credentials });
  }

  private async loadEventTypes(): Promise<void> {
    const api = this.api;
    try {
      const list = await api.listEventTypes();
      if (api !== this.api) return;
      this.eventTypes = list.eventTypes;
      this.eventTypesError = null;
    } catch (error) {
      if (api !== this.api) return;
      this.eventTypesError = errorMessage(error);
    }
  }

  private select(view: PortalView): void {
    this.view = view;
    this.dispatchEvent(
      new CustomEvent('svc-webhooks-view', { detail: { view }, bubbles: true, composed: true }),
    );
  }

  private onTabKey(event: KeyboardEvent): void {
    const index = TABS.findIndex((tab) => tab.id === this.view);
    const moves: Record<string, number> = {
      ArrowRight: 1,
      ArrowLeft: -1,
      Home: -index,
      End: TABS.length - 1 - index,
    };
    const move = moves[event.key];
    if (move === undefined) return;
    event.preventDefault();
    const next = TABS[(index + move + TABS.length) % TABS.length];
    if (!next) return;
    this.select(next.id);
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLButtonElement>(`#tab-${next.id}`)?.focus(),
    );
  }

  protected override render() {
    return html`
      <div role="tablist" aria-label="Webhooks" part="tabs" @keydown=${this.onTabKey}>
        ${TABS.map(
          (tab) => html`<button
            role="tab"
            part="tab"
            id=${`tab-${tab.id}`}
            aria-controls="panel"
            aria-selected=${tab.id === this.view ? 'true' : 'false'}
            tabindex=${tab.id === this.view ? 0 : -1}
            @click=${() => this.select(tab.id)}
          >
            ${tab.label}
          </button>`,
        )}
      </div>
      ${
        this.eventTypesError === null
          ? nothing
          : html`<p class="state error" role="alert">The event types could not be loaded: ${this.eventTypesError}</p>`
      }
      <div id="panel" role="tabpanel" part="panel" aria-labelledby=${`tab-${this.view}`}>${this.renderView()}</div>
    `;
  }

  private renderView() {
    const eventTypes = this.eventTypes ?? [];
    switch (this.view) {
      case 'deliveries':
        return html`<svc-wh-delivery-log exportparts="card, badge, table" .api=${this.api} .eventTypes=${eventTypes}></svc-wh-delivery-log>`;
      case 'recovery':
        return html`<svc-wh-bulk-recovery exportparts="card, badge, table" .api=${this.api} .eventTypes=${eventTypes}></svc-wh-bulk-recovery>`;
      default:
        return html`<svc-wh-endpoint-view
          exportparts="card, badge"
          .api=${this.api}
          .eventTypes=${eventTypes}
          .agencyId=${this.agencyId}
        ></svc-wh-endpoint-view>`;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'svc-webhooks-portal': SvcWebhooksPortal;
  }
}
