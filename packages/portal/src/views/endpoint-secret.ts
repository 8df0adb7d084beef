import type { RotatedSecret, SignatureScheme, WebhookConfig } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi } from '../api-client';
import { copyText } from '../copy';
import { defineView } from '../define-view';
import { ENGLISH, type PortalText } from '../portal-text';
import { includesStandard } from '../signature-scheme';
import { baseStyles } from '../theme';
import { verifySnippet } from '../verify-snippet';

/** A full signing secret the API returned once: on creation or rotation. */
export interface RevealedSecret {
  /** The spec's form: 64 hex characters. */
  value: string;
  /** The same secret as Standard Webhooks libraries take it (`whsec_…`), when the scheme includes them. */
  standardValue?: string | undefined;
  kind: 'created' | 'rotated';
}

/** The headers a receiver may check with the secret, per scheme. */
const CHECKED_HEADERS: Record<SignatureScheme, readonly string[]> = {
  service: ['x-service-signature'],
  standard: ['webhook-signature'],
  both: ['x-service-signature', 'webhook-signature'],
};

/**
 * `<svc-wh-endpoint-secret>`: the signing secret. Shows `revealed` (the full secret the API returns once,
 * on creation or rotation) with a Copy button, beside its `whsec_` form for Standard Webhooks libraries when
 * the API gave it, a short verification snippet and a link to the receiving guide, or else the masked
 * secret of the configuration; rotates the secret after an inline confirmation. A new secret is scrolled
 * into view, focused and announced, and stays until the agent says they stored it. Fires
 * `svc-wh-secret-rotated` (detail: the API's {@link RotatedSecret}) and `svc-wh-secret-dismissed`;
 * neither is composed.
 *
 * @csspart card - the secret card
 */
export class EndpointSecretElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    config: { attribute: false },
    revealed: { attribute: false },
    text: { attribute: false },
    docsUrl: { attribute: false },
    confirming: { state: true },
    rotating: { state: true },
    rotateError: { state: true },
    status: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      .secret {
        display: block;
        padding: 8px;
        background: var(--_surface-alt);
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
        word-break: break-all;
        user-select: all;
      }
      .once {
        border: 2px solid var(--_warning);
        border-radius: var(--_radius);
        padding: var(--_space);
        margin-bottom: var(--_space);
        scroll-margin: var(--_space);
      }
      .once:focus,
      .confirm:focus {
        outline: 3px solid var(--_focus);
        outline-offset: 2px;
      }
      .confirm {
        border: 2px solid var(--_danger);
        border-radius: var(--_radius);
        padding: var(--_space);
        margin-top: var(--_space);
      }
      .once-actions {
        margin-top: var(--_space);
      }
      .current {
        margin-bottom: var(--_space);
      }
      .form {
        margin-bottom: var(--_space);
      }
      .form-label {
        font-weight: 600;
        margin-bottom: 4px;
      }
      .form button {
        margin-top: 8px;
      }
      .standard-hint {
        margin: 8px 0 0;
      }
      .mix-up {
        padding: 8px;
        border-left: 3px solid var(--_warning);
        background: var(--_surface-alt);
      }
      .snippet pre {
        margin: 0 0 8px;
        white-space: pre;
        overflow-x: auto;
      }
      a {
        color: var(--_accent);
      }
    `,
  ];

  declare api: PortalApi;
  declare config: WebhookConfig;
  /** The full secret to show until the agent confirms they stored it; null shows the masked secret. */
  declare revealed: RevealedSecret | null;
  declare text: PortalText;
  /** Where the link to the receiving guide goes. */
  declare docsUrl: string;
  declare private confirming: boolean;
  declare private rotating: boolean;
  declare private rotateError: string | null;
  /** Announced politely: a new secret, copy results, the confirmation. */
  declare private status: string;

  constructor() {
    super();
    this.revealed = null;
    this.text = ENGLISH;
    this.docsUrl = '';
    this.confirming = false;
    this.rotating = false;
    this.rotateError = null;
    this.status = '';
  }

  /** The secret already brought into view, so a re-render (a tab switch back) does not pull the page again. */
  private shown: RevealedSecret | null = null;

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!changed.has('revealed') || this.revealed === null || this.revealed === this.shown) return;
    this.status = this.text.t(
      this.revealed.kind === 'created' ? 'secret.createdAnnounce' : 'secret.rotatedAnnounce',
    );
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (!changed.has('revealed') || this.revealed === null || this.revealed === this.shown) return;
    this.shown = this.revealed;
    // Below the settings form the card starts under the fold: bring it up and give it the focus, so
    // neither a sighted nor a screen reader user misses the one chance to copy the secret.
    const card = this.renderRoot.querySelector<HTMLElement>('.once');
    card?.scrollIntoView({ block: 'start' });
    card?.focus({ preventScroll: true });
  }

  private async ask(): Promise<void> {
    this.confirming = true;
    this.rotateError = null;
    await this.updateComplete;
    // Focus goes to the question itself, so a screen reader reads the warning before the buttons.
    this.renderRoot.querySelector<HTMLElement>('.confirm')?.focus();
  }

  private async cancel(): Promise<void> {
    this.confirming = false;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLButtonElement>('#rotate')?.focus();
  }

  private onConfirmKey(event: KeyboardEvent): void {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    void this.cancel();
  }

  private async rotate(): Promise<void> {
    if (this.rotating) return;
    this.rotating = true;
    this.rotateError = null;
    try {
      const rotated = await this.api.rotateSecret();
      this.confirming = false;
      this.dispatchEvent(new CustomEvent<RotatedSecret>('svc-wh-secret-rotated', { detail: rotated }));
    } catch (error) {
      this.rotateError = errorMessage(error);
    } finally {
      this.rotating = false;
    }
  }

  /** Copies the hex secret, its `whsec_` form or the snippet; a refused clipboard selects the text instead. */
  private async copy(form: 'hex' | 'standard' | 'snippet'): Promise<void> {
    const revealed = this.revealed;
    if (revealed === null) return;
    const [value, selector] =
      form === 'hex'
        ? [revealed.value, '#secret-value']
        : form === 'standard'
          ? [revealed.standardValue, '#standard-secret-value']
          : [verifySnippet(this.config.signatureScheme), '#snippet'];
    if (value === undefined) return;
    const what = this.text.t(form === 'snippet' ? 'copy.what.code' : 'copy.what.secret');
    this.status = await copyText(value, this.renderRoot.querySelector(selector), what, this.text);
  }

  private dismiss(): void {
    this.status = this.text.t('secret.storedAnnounce');
    this.dispatchEvent(new CustomEvent('svc-wh-secret-dismissed'));
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLButtonElement>('#rotate')?.focus());
  }

  protected override render() {
    const t = this.text;
    const revealed = this.revealed;
    const scheme = this.config.signatureScheme;
    return html`
      <section class="card" part="card" aria-labelledby="secret-title">
        <h2 id="secret-title">${t.t('secret.title')}</h2>
        <p class="muted">
          ${t.t('secret.checks.before')}
          ${CHECKED_HEADERS[scheme].map((header, index) => html`${index > 0 ? ` ${t.t('secret.checks.or')} ` : ''}<code>${header}</code>`)}
          ${t.t('secret.checks.after')}
        </p>
        ${revealed === null ? this.renderMasked(scheme) : this.renderRevealed(revealed)}
        <p id="secret-status" role="status" aria-live="polite">${this.status}</p>
        ${
          this.confirming
            ? html`<div
              class="confirm"
              role="group"
              aria-labelledby="rotate-question"
              tabindex="-1"
              @keydown=${this.onConfirmKey}
            >
              <p id="rotate-question"><strong>${t.t('secret.rotateQuestion')}</strong> ${t.t('secret.rotateDetail')}</p>
              <div class="row">
                <button type="button" class="danger" ?disabled=${this.rotating} @click=${this.rotate}>
                  ${this.rotating ? t.t('secret.rotating') : t.t('secret.rotateConfirm')}
                </button>
                <button type="button" class="secondary" ?disabled=${this.rotating} @click=${this.cancel}>
                  ${t.t('secret.cancel')}
                </button>
              </div>
            </div>`
            : html`<button id="rotate" type="button" class="secondary" @click=${this.ask}>${t.t('secret.rotate')}</button>`
        }
        ${
          this.rotateError === null
            ? nothing
            : html`<p class="state error" role="alert">${t.t('secret.rotateError', { message: this.rotateError })}</p>`
        }
      </section>
    `;
  }

  private renderMasked(scheme: SignatureScheme) {
    return html`<div class="current">
      <p>${this.text.t('secret.masked')}</p>
      <code class="secret" data-secret="masked">${this.config.signingSecret}</code>
      ${
        includesStandard(scheme)
          ? html`<p class="muted standard-hint">${this.text.t('secret.maskedStandardHint')}</p>`
          : nothing
      }
    </div>`;
  }

  private renderRevealed(revealed: RevealedSecret) {
    const t = this.text;
    const standard = revealed.standardValue !== undefined;
    return html`<div class="once" role="group" aria-labelledby="once-title" aria-describedby="once-warning" tabindex="-1">
      <h3 id="once-title">${t.t(revealed.kind === 'created' ? 'secret.createdTitle' : 'secret.rotatedTitle')}</h3>
      <p id="once-warning"><strong>${t.t('secret.once')}</strong> ${t.t('secret.onceDetail')}</p>
      <div class="form">
        ${standard ? html`<p class="form-label">${t.t('secret.hexLabel')}</p>` : nothing}
        <code id="secret-value" class="secret" data-secret="full">${revealed.value}</code>
        <button id="copy" type="button" @click=${() => this.copy('hex')}>
          ${t.t(standard ? 'secret.copyHex' : 'secret.copy')}
        </button>
      </div>
      ${
        standard
          ? html`<div class="form">
              <p class="form-label">${t.t('secret.standardLabel')}</p>
              <code id="standard-secret-value" class="secret" data-secret="standard">${revealed.standardValue}</code>
              <button type="button" @click=${() => this.copy('standard')}>${t.t('secret.copyStandard')}</button>
            </div>
            <p class="mix-up">${t.t('secret.mixUp')}</p>`
          : nothing
      }
      <div class="snippet">
        <p class="form-label">${t.t('secret.snippetTitle')}</p>
        <p class="muted">${t.t('secret.snippetHint')}</p>
        <pre id="snippet" tabindex="0" role="region" aria-label=${t.t('secret.snippetTitle')}>${verifySnippet(this.config.signatureScheme)}</pre>
        <div class="row">
          <button type="button" class="secondary" @click=${() => this.copy('snippet')}>${t.t('secret.copySnippet')}</button>
          ${this.docsUrl === '' ? nothing : html`<a href=${this.docsUrl} target="_blank" rel="noopener noreferrer">${t.t('secret.docsLink')}</a>`}
        </div>
      </div>
      <div class="row once-actions">
        <button id="stored" type="button" class="secondary" @click=${this.dismiss}>${t.t('secret.stored')}</button>
      </div>
    </div>`;
  }
}

defineView('svc-wh-endpoint-secret', EndpointSecretElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-endpoint-secret': EndpointSecretElement;
  }
}
