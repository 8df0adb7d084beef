import type { RotatedSecret, WebhookConfig } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi } from '../api-client';
import { defineView } from '../define-view';
import type { EventTypeOption } from '../event-type-option';
import { ENGLISH, type PortalText } from '../portal-text';
import { baseStyles } from '../theme';
import type { EndpointHealthElement } from './endpoint-health';
import type { RevealedSecret } from './endpoint-secret';
import type { ConfigSavedDetail } from './endpoint-settings';
import type { SigningKeyRotatedDetail } from './endpoint-signing-keys';
import './endpoint-health';
import './endpoint-secret';
import './endpoint-settings';
import './endpoint-signing-keys';
import './endpoint-test-send';

/**
 * `<svc-wh-endpoint-view>`: the Endpoint tab. Loads the agency's configuration and lays out its settings
 * form (the "no endpoint yet" state when there is none), signing secret, Ed25519 public keys (when the
 * agency signs with them), test send and health. It holds the configuration; the once-shown full secret
 * is the portal's (`revealed`), so a tab switch does not lose it: this view asks for it to be set with
 * `svc-wh-revealed` (detail: the {@link RevealedSecret}, or null once the agent stored it). The parts
 * below it only render and call the API.
 *
 * @csspart card - each block
 * @csspart badge - state and result badges
 */
export class EndpointViewElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    eventTypes: { attribute: false },
    agencyId: { attribute: false },
    config: { state: true },
    loadError: { state: true },
    revealed: { attribute: false },
    text: { attribute: false },
    docsUrl: { attribute: false },
  };

  static override styles = [
    baseStyles,
    css`
      .layout {
        display: grid;
        grid-template-columns: minmax(0, 1fr);
        column-gap: var(--_space);
        align-items: start;
      }
      @media (min-width: 900px) {
        .layout {
          grid-template-columns: minmax(0, 3fr) minmax(0, 2fr);
        }
      }
      .column {
        min-width: 0;
      }
    `,
  ];

  declare api: PortalApi;
  declare eventTypes: readonly EventTypeOption[];
  /** The agency's id, for the address of its public keys; null when the host did not give it. */
  declare agencyId: string | null;
  /** undefined while loading; null when the agency has no configuration yet. */
  declare private config: WebhookConfig | null | undefined;
  declare private loadError: string | null;
  /** The full secret of a creation or rotation: the API returns it once, so it lives only in this page. */
  declare revealed: RevealedSecret | null;
  declare text: PortalText;
  /** Where the secret card links for the receiving guide. */
  declare docsUrl: string;
  /** Answers for an older API client (the host changed the token) are dropped. */
  private loadedFor: PortalApi | null = null;

  constructor() {
    super();
    this.eventTypes = [];
    this.agencyId = null;
    this.config = undefined;
    this.loadError = null;
    this.revealed = null;
    this.text = ENGLISH;
    this.docsUrl = '';
  }

  private reveal(revealed: RevealedSecret | null): void {
    this.dispatchEvent(new CustomEvent<RevealedSecret | null>('svc-wh-revealed', { detail: revealed }));
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('api') && this.api !== undefined) void this.load();
  }

  private async load(): Promise<void> {
    const api = this.api;
    this.loadedFor = api;
    this.config = undefined;
    this.loadError = null;
    try {
      const config = await api.getConfig();
      if (this.loadedFor !== api) return;
      this.config = config;
    } catch (error) {
      if (this.loadedFor !== api) return;
      this.loadError = errorMessage(error);
    }
  }

  /** The stored configuration as reads return it (secret masked); null when it cannot be read now. */
  private async readBack(): Promise<WebhookConfig | null> {
    try {
      return await this.api.getConfig();
    } catch {
      return null;
    }
  }

  private async onSaved(event: CustomEvent<ConfigSavedDetail>): Promise<void> {
    const { config, created } = event.detail;
    if (!created) {
      this.config = config;
      this.refreshHealth();
      return;
    }
    this.reveal({
      value: config.signingSecret,
      standardValue: config.standardSigningSecret,
      kind: 'created',
    });
    // A creation answers with the full secret; the page keeps only the masked one once the reveal is gone.
    const { standardSigningSecret: _, ...rest } = config;
    this.config = (await this.readBack()) ?? { ...rest, signingSecret: 'service_whsec_********' };
  }

  private async onRotated(event: CustomEvent<RotatedSecret>): Promise<void> {
    const { signingSecret, standardSigningSecret } = event.detail;
    this.reveal({ value: signingSecret, standardValue: standardSigningSecret, kind: 'rotated' });
    const config = await this.readBack();
    if (config !== null) this.config = config;
  }

  private onSigningKeyRotated(event: CustomEvent<SigningKeyRotatedDetail>): void {
    if (this.config) this.config = { ...this.config, signingPublicKeys: event.detail.signingPublicKeys };
  }

  private refreshHealth(): void {
    void this.renderRoot.querySelector<EndpointHealthElement>('svc-wh-endpoint-health')?.refresh();
  }

  protected override render() {
    if (this.loadError !== null)
      return html`<div class="state error" role="alert">
        <p>The endpoint settings could not be loaded: ${this.loadError}</p>
        <button type="button" @click=${() => this.load()}>Try again</button>
      </div>`;
    if (this.config === undefined)
      return html`<p class="state" role="status">Loading the endpoint settings…</p>`;
    const config = this.config;
    return html`
      <div class="layout">
        <div class="column">
          <svc-wh-endpoint-settings
            exportparts="card"
            .api=${this.api}
            .eventTypes=${this.eventTypes}
            .config=${config}
            .text=${this.text}
            @svc-wh-config-saved=${this.onSaved}
          ></svc-wh-endpoint-settings>
          ${
            config === null
              ? nothing
              : html`<svc-wh-endpoint-secret
                exportparts="card"
                .api=${this.api}
                .config=${config}
                .revealed=${this.revealed}
                .text=${this.text}
                .docsUrl=${this.docsUrl}
                @svc-wh-secret-rotated=${this.onRotated}
                @svc-wh-secret-dismissed=${() => this.reveal(null)}
              ></svc-wh-endpoint-secret>`
          }
          ${
            config === null || config.signingPublicKeys.length === 0
              ? nothing
              : html`<svc-wh-endpoint-signing-keys
                exportparts="card, badge"
                .api=${this.api}
                .config=${config}
                .agencyId=${this.agencyId}
                .text=${this.text}
                @svc-wh-signing-key-rotated=${this.onSigningKeyRotated}
              ></svc-wh-endpoint-signing-keys>`
          }
        </div>
        <div class="column">
          <svc-wh-endpoint-health
            exportparts="card, badge"
            .api=${this.api}
            .config=${config}
            .text=${this.text}
          ></svc-wh-endpoint-health>
          <svc-wh-endpoint-test-send
            exportparts="card, badge"
            .api=${this.api}
            .config=${config}
            .text=${this.text}
            @svc-wh-test-sent=${this.refreshHealth}
          ></svc-wh-endpoint-test-send>
        </div>
      </div>
    `;
  }
}

defineView('svc-wh-endpoint-view', EndpointViewElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-endpoint-view': EndpointViewElement;
  }
}
