import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, PortalApi, type PortalApiError } from './api-client';
import type { EventTypeOption } from './event-type-option';
import { PortalText } from './portal-text';
import type { PortalStringKey, PortalStrings } from './strings';
import { baseStyles, themeStyles } from './theme';
import {
  type DeliveryRoute,
  EMPTY_DELIVERY_ROUTE,
  formatRoute,
  parseRoute,
  sameDeliveryRoute,
} from './url-state';
import type { RevealedSecret } from './views/endpoint-secret';
import './views/endpoint-view';
import './views/delivery-log';
import './views/bulk-recovery';
import './views/event-catalogue';

const TABS = [
  { id: 'endpoint', label: 'tab.endpoint' },
  { id: 'deliveries', label: 'tab.deliveries' },
  { id: 'recovery', label: 'tab.recovery' },
  { id: 'events', label: 'tab.events' },
] as const satisfies readonly { id: string; label: PortalStringKey }[];

/** A view of the portal: one of its tabs. */
export type PortalView = (typeof TABS)[number]['id'];

/** Detail of the `unauthorized` event: the API's 401 as it came. */
export interface UnauthorizedDetail {
  status: number;
  /** The API's error code, such as `unauthorized`. */
  code: string;
}

/** The guide the secret card links to, unless the host gives its own (`docs-url`). */
const DEFAULT_DOCS_URL = 'https://github.com/svc/webhooks/blob/main/docs/receiving-webhooks.md';

function isView(value: string | null): value is PortalView {
  return TABS.some((tab) => tab.id === value);
}

/**
 * `<svc-webhooks-portal>`: an agency's webhook settings, endpoint health, test send, delivery log with
 * replay, bulk recovery and the event catalogue, talking only to the management API.
 *
 * Fires `unauthorized` (bubbles, composed; detail {@link UnauthorizedDetail}) once per token when the API
 * answers 401, so the host can sign the agent in again and set a new `token`; meanwhile the portal says
 * the session ended. Fires `svc-webhooks-view` (detail `{ view }`) when the agent changes tab.
 *
 * @example
 * ```html
 * <script type="module" src="/portal/portal.js"></script>
 * <svc-webhooks-portal api-base="/v1/agency/webhooks"></svc-webhooks-portal>
 * <script type="module">
 *   const portal = document.querySelector('svc-webhooks-portal');
 *   portal.addEventListener('unauthorized', async () => { portal.token = await signInAgain(); });
 *   portal.token = await getAgentToken();
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
    strings: { type: Object },
    locale: { type: String },
    theme: { type: String, reflect: true },
    docsUrl: { type: String, attribute: 'docs-url' },
    urlState: { type: Boolean, attribute: 'url-state' },
    eventTypes: { state: true },
    eventTypesError: { state: true },
    signedOut: { state: true },
    revealed: { state: true },
    leavingFor: { state: true },
    deliveryRoute: { state: true },
  };

  /** The element's styles: the shared theme, the palettes and the tabs'. */
  static override styles = [
    baseStyles,
    themeStyles,
    css`
      [role='tablist'] {
        display: flex;
        flex-wrap: wrap;
        gap: 0 4px;
        border-bottom: 2px solid var(--_border);
        margin-bottom: var(--_space);
      }
      [role='tab'] {
        background: transparent;
        color: var(--_muted);
        border: none;
        border-bottom: 3px solid transparent;
        border-radius: 0;
        margin-bottom: -2px;
        padding: 6px 10px;
      }
      [role='tab'][aria-selected='true'] {
        color: var(--_accent);
        border-bottom-color: var(--_accent);
      }
      .leave {
        border: 2px solid var(--_warning);
        border-radius: var(--_radius);
        padding: var(--_space);
        margin-bottom: var(--_space);
        background: var(--_surface);
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
  /** The tab shown: `endpoint`, `deliveries`, `recovery` or `events`. */
  declare view: PortalView;
  /**
   * The host's words for any of the portal's strings, by key (English for the rest): the `strings`
   * attribute takes them as JSON. The keys and their English text are `DEFAULT_STRINGS`; `{name}` in a
   * string is a value filled in when it is shown.
   */
  declare strings: PortalStrings | null;
  /** The BCP 47 locale dates are shown in, to match `strings`. @default 'en' */
  declare locale: string;
  /** `light` or `dark` forces that palette; anything else follows the reader's `prefers-color-scheme`. */
  declare theme: string | null;
  /** Where the secret card's "Receiving webhooks" link goes. @default the project's receiving guide */
  declare docsUrl: string;
  /**
   * Keep the tab, the delivery filters and the open delivery in the address's fragment (`#view=…`), so
   * Reload and Back restore them. Off by default: a host page may use the fragment itself.
   */
  declare urlState: boolean;
  declare private eventTypes: readonly EventTypeOption[] | null;
  declare private eventTypesError: string | null;
  /** The API answered 401 for the current token: the host has to sign the agent in again. */
  declare private signedOut: boolean;
  /** A new secret not yet confirmed as stored: it outlives tab switches, never the page. */
  declare private revealed: RevealedSecret | null;
  /** The tab asked for while an unconfirmed secret is shown: the warning is up. */
  declare private leavingFor: PortalView | null;
  declare private deliveryRoute: DeliveryRoute;
  private api: PortalApi;
  private text: PortalText;

  constructor() {
    super();
    this.apiBase = '/v1/agency/webhooks';
    this.token = null;
    this.credentials = 'same-origin';
    this.agencyId = null;
    this.view = 'endpoint';
    this.strings = null;
    this.locale = 'en';
    this.theme = null;
    this.docsUrl = DEFAULT_DOCS_URL;
    this.urlState = false;
    this.eventTypes = null;
    this.eventTypesError = null;
    this.signedOut = false;
    this.revealed = null;
    this.leavingFor = null;
    this.deliveryRoute = EMPTY_DELIVERY_ROUTE;
    this.text = new PortalText();
    this.api = this.createApi();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('beforeunload', this.onBeforeUnload);
    window.addEventListener('popstate', this.onPopState);
    if (this.urlState) this.readRoute();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('beforeunload', this.onBeforeUnload);
    window.removeEventListener('popstate', this.onPopState);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('strings') || changed.has('locale'))
      this.text = new PortalText(this.strings, this.locale);
    if (changed.has('apiBase') || changed.has('token') || changed.has('credentials')) {
      this.signedOut = false;
      this.api = this.createApi();
      void this.loadEventTypes();
    }
    if (changed.has('urlState') && this.urlState && changed.get('urlState') === false) this.readRoute();
  }

  private createApi(): PortalApi {
    const api: PortalApi = new PortalApi({
      apiBase: this.apiBase,
      token: this.token,
      credentials: this.credentials,
      onUnauthorized: (error) => this.onUnauthorized(api, error),
    });
    return api;
  }

  /** One event per token: every view's request fails alike, the host needs telling once. */
  private onUnauthorized(api: PortalApi, error: PortalApiError): void {
    if (api !== this.api || this.signedOut) return;
    this.signedOut = true;
    this.dispatchEvent(
      new CustomEvent<UnauthorizedDetail>('unauthorized', {
        detail: { status: error.status, code: error.code },
        bubbles: true,
        composed: true,
      }),
    );
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

  /** Leaving or reloading the page loses an unconfirmed secret for good: the browser asks first. */
  private readonly onBeforeUnload = (event: BeforeUnloadEvent): void => {
    if (this.revealed === null) return;
    event.preventDefault();
    // Older Chromium asks only when returnValue is set.
    event.returnValue = '';
  };

  private readonly onPopState = (): void => {
    if (this.urlState) this.readRoute();
  };

  private readRoute(): void {
    const route = parseRoute(window.location.hash);
    if (isView(route.view)) this.view = route.view;
    if (!sameDeliveryRoute(route.deliveries, this.deliveryRoute)) this.deliveryRoute = route.deliveries;
  }

  /** A new history entry for the new place, so Back returns to the one before. */
  private writeRoute(): void {
    if (!this.urlState) return;
    const fragment = formatRoute({ view: this.view, deliveries: this.deliveryRoute });
    if (fragment === window.location.hash) return;
    history.pushState(null, '', `${window.location.pathname}${window.location.search}${fragment}`);
  }

  private select(view: PortalView): void {
    if (view === this.view) return;
    if (this.revealed !== null && this.view === 'endpoint') {
      this.leavingFor = view;
      void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('.leave')?.focus());
      return;
    }
    this.show(view);
  }

  private show(view: PortalView): void {
    this.leavingFor = null;
    this.view = view;
    this.writeRoute();
    this.dispatchEvent(
      new CustomEvent('svc-webhooks-view', { detail: { view }, bubbles: true, composed: true }),
    );
  }

  private stay(): void {
    this.leavingFor = null;
    void this.updateComplete.then(() => {
      const endpoint = this.renderRoot.querySelector('svc-wh-endpoint-view');
      const secret = endpoint?.renderRoot.querySelector('svc-wh-endpoint-secret');
      const card = secret?.renderRoot.querySelector<HTMLElement>('.once');
      card?.scrollIntoView({ block: 'start' });
      card?.focus({ preventScroll: true });
    });
  }

  private onLeaveKey(event: KeyboardEvent): void {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    this.stay();
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
    if (this.leavingFor !== null) return;
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLButtonElement>(`#tab-${next.id}`)?.focus(),
    );
  }

  private onDeliveryRoute(event: CustomEvent<DeliveryRoute>): void {
    if (sameDeliveryRoute(event.detail, this.deliveryRoute)) return;
    this.deliveryRoute = event.detail;
    this.writeRoute();
  }

  protected override render() {
    const t = this.text;
    return html`
      <div role="tablist" aria-label=${t.t('tabs.label')} part="tabs" @keydown=${this.onTabKey}>
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
            ${t.t(tab.label)}
          </button>`,
        )}
      </div>
      ${this.leavingFor === null ? nothing : this.renderLeaveWarning(this.leavingFor)}
      ${
        this.eventTypesError === null || this.signedOut
          ? nothing
          : html`<p class="state error" role="alert">${t.t('eventTypes.loadError', { message: this.eventTypesError })}</p>`
      }
      <div id="panel" role="tabpanel" part="panel" aria-labelledby=${`tab-${this.view}`}>
        ${this.signedOut ? this.renderSignedOut() : this.renderView()}
      </div>
    `;
  }

  private renderLeaveWarning(view: PortalView) {
    const t = this.text;
    return html`<div
      class="leave"
      role="alertdialog"
      aria-labelledby="leave-question"
      aria-describedby="leave-detail"
      tabindex="-1"
      @keydown=${this.onLeaveKey}
    >
      <p id="leave-question"><strong>${t.t('leave.question')}</strong></p>
      <p id="leave-detail">${t.t('leave.detail')}</p>
      <div class="row">
        <button type="button" @click=${this.stay}>${t.t('leave.stay')}</button>
        <button type="button" class="secondary" @click=${() => this.show(view)}>${t.t('leave.go')}</button>
      </div>
    </div>`;
  }

  /** Instead of each view's error: one plain message, and no button that could not help. */
  private renderSignedOut() {
    const t = this.text;
    return html`<section class="card" part="card" role="alert" aria-labelledby="signed-out-title">
      <h2 id="signed-out-title">${t.t('signedOut.title')}</h2>
      <p>${t.t('signedOut.body')}</p>
    </section>`;
  }

  private renderView() {
    const eventTypes = this.eventTypes ?? [];
    switch (this.view) {
      case 'deliveries':
        return html`<svc-wh-delivery-log
          exportparts="card, badge, table"
          .api=${this.api}
          .eventTypes=${eventTypes}
          .text=${this.text}
          .route=${this.deliveryRoute}
          @svc-wh-route=${this.onDeliveryRoute}
        ></svc-wh-delivery-log>`;
      case 'recovery':
        return html`<svc-wh-bulk-recovery
          exportparts="card, badge, table"
          .api=${this.api}
          .eventTypes=${eventTypes}
          .text=${this.text}
        ></svc-wh-bulk-recovery>`;
      case 'events':
        return html`<svc-wh-event-catalogue
          exportparts="card"
          .api=${this.api}
          .text=${this.text}
        ></svc-wh-event-catalogue>`;
      default:
        return html`<svc-wh-endpoint-view
          exportparts="card, badge"
          .api=${this.api}
          .eventTypes=${eventTypes}
          .agencyId=${this.agencyId}
          .text=${this.text}
          .docsUrl=${this.docsUrl}
          .revealed=${this.revealed}
          @svc-wh-revealed=${(event: CustomEvent<RevealedSecret | null>) => {
            this.revealed = event.detail;
          }}
        ></svc-wh-endpoint-view>`;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'svc-webhooks-portal': SvcWebhooksPortal;
  }
}
