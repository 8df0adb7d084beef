import type { RotatedSecret, SignatureScheme, WebhookConfig } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi } from '../api-client';
import { copyText } from '../copy';
import { defineView } from '../define-view';
import { includesStandard } from '../signature-scheme';
import { baseStyles } from '../theme';

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
 * the API gave it, or else the masked secret of the configuration; rotates the secret after an inline
 * confirmation. Fires `svc-wh-secret-rotated` (detail: the API's {@link RotatedSecret}) and
 * `svc-wh-secret-dismissed`; neither is composed.
 *
 * @csspart card - the secret card
 */
export class EndpointSecretElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    config: { attribute: false },
    revealed: { attribute: false },
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
      }
      .confirm {
        border: 2px solid var(--_danger);
        border-radius: var(--_radius);
        padding: var(--_space);
        margin-top: var(--_space);
      }
      .confirm:focus {
        outline: 3px solid var(--svc-wh-color-focus, #1a73e8);
        outline-offset: 2px;
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
    `,
  ];

  declare api: PortalApi;
  declare config: WebhookConfig;
  /** The full secret to show this once; null shows the configuration's masked secret. */
  declare revealed: RevealedSecret | null;
  declare private confirming: boolean;
  declare private rotating: boolean;
  declare private rotateError: string | null;
  /** Announced politely: copy results and a new secret. */
  declare private status: string;

  constructor() {
    super();
    this.revealed = null;
    this.confirming = false;
    this.rotating = false;
    this.rotateError = null;
    this.status = '';
  }

  /** Set by a rotation, so the Copy button of the new secret takes focus once the parent shows it. */
  private focusCopy = false;

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!changed.has('revealed')) return;
    if (this.revealed === null) this.status = '';
    else if (this.revealed.kind === 'rotated')
      this.status = 'A new signing secret was generated. Copy it now: it will not be shown again.';
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('revealed') && this.revealed !== null && this.focusCopy) {
      this.focusCopy = false;
      this.renderRoot.querySelector<HTMLButtonElement>('#copy')?.focus();
    }
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
      this.focusCopy = true;
      this.dispatchEvent(new CustomEvent<RotatedSecret>('svc-wh-secret-rotated', { detail: rotated }));
    } catch (error) {
      this.rotateError = errorMessage(error);
    } finally {
      this.rotating = false;
    }
  }

  /** Copies the hex secret, or its `whsec_` form; a refused clipboard selects the text instead. */
  private async copy(form: 'hex' | 'standard'): Promise<void> {
    const value = form === 'hex' ? this.revealed?.value : this.revealed?.standardValue;
    if (value === undefined) return;
    const node = this.renderRoot.querySelector(form === 'hex' ? '#secret-value' : '#standard-secret-value');
    this.status = await copyText(value, node, 'secret');
  }

  private dismiss(): void {
    this.dispatchEvent(new CustomEvent('svc-wh-secret-dismissed'));
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLButtonElement>('#rotate')?.focus());
  }

  protected override render() {
    const revealed = this.revealed;
    const scheme = this.config.signatureScheme;
    return html`
      <section class="card" part="card" aria-labelledby="secret-title">
        <h2 id="secret-title">Signing secret</h2>
        <p class="muted">
          Your receiver checks the
          ${CHECKED_HEADERS[scheme].map((header, index) => html`${index > 0 ? ' or ' : ''}<code>${header}</code>`)}
          header of every delivery with this secret.
        </p>
        ${revealed === null ? this.renderMasked(scheme) : this.renderRevealed(revealed)}
        <p role="status" aria-live="polite">${this.status}</p>
        ${
          this.confirming
            ? html`<div
              class="confirm"
              role="group"
              aria-labelledby="rotate-question"
              tabindex="-1"
              @keydown=${this.onConfirmKey}
            >
              <p id="rotate-question">
                <strong>Rotate the secret?</strong> The current secret stops signing at once, also for deliveries
                already queued. Update your receiver with the new secret right away.
              </p>
              <div class="row">
                <button type="button" class="danger" ?disabled=${this.rotating} @click=${this.rotate}>
                  ${this.rotating ? 'Rotating…' : 'Confirm rotation'}
                </button>
                <button type="button" class="secondary" ?disabled=${this.rotating} @click=${this.cancel}>Cancel</button>
              </div>
            </div>`
            : html`<button id="rotate" type="button" class="secondary" @click=${this.ask}>Rotate secret</button>`
        }
        ${
          this.rotateError === null
            ? nothing
            : html`<p class="state error" role="alert">The secret could not be rotated: ${this.rotateError}</p>`
        }
      </section>
    `;
  }

  private renderMasked(scheme: SignatureScheme) {
    return html`<div class="current">
      <p>Current secret (masked):</p>
      <code class="secret" data-secret="masked">${this.config.signingSecret}</code>
      ${
        includesStandard(scheme)
          ? html`<p class="muted standard-hint">
            Standard Webhooks libraries take the secret's <code>whsec_</code> form, shown beside it when the
            secret is created or rotated. From the hex secret you stored, <code>toStandardSecret()</code> of
            <code>@svc/webhooks-verify</code> gives it.
          </p>`
          : nothing
      }
    </div>`;
  }

  private renderRevealed(revealed: RevealedSecret) {
    const title = revealed.kind === 'created' ? 'Your signing secret' : 'Your new signing secret';
    const once = html`<p>
      <strong>Copy it now: it won't be shown again.</strong> Store it where your receiver can read it.
    </p>`;
    const dismiss = html`<button type="button" class="secondary" @click=${this.dismiss}>I have stored it</button>`;
    if (revealed.standardValue === undefined)
      return html`<div class="once" role="group" aria-labelledby="once-title">
        <h3 id="once-title">${title}</h3>
        ${once}
        <code id="secret-value" class="secret" data-secret="full">${revealed.value}</code>
        <div class="row once-actions">
          <button id="copy" type="button" @click=${() => this.copy('hex')}>Copy secret</button>
          ${dismiss}
        </div>
      </div>`;
    return html`<div class="once" role="group" aria-labelledby="once-title">
      <h3 id="once-title">${title}</h3>
      ${once}
      <div class="form">
        <p class="form-label">Hex, for <code>X-Service-Signature</code> and <code>@svc/webhooks-verify</code></p>
        <code id="secret-value" class="secret" data-secret="full">${revealed.value}</code>
        <button id="copy" type="button" @click=${() => this.copy('hex')}>Copy hex secret</button>
      </div>
      <div class="form">
        <p class="form-label">The same secret for Standard Webhooks libraries</p>
        <code id="standard-secret-value" class="secret" data-secret="standard">${revealed.standardValue}</code>
        <button type="button" @click=${() => this.copy('standard')}>Copy whsec_ secret</button>
      </div>
      <p class="mix-up">
        Never paste the hex form into a Standard Webhooks library: it would read it as another key, and no
        signature would match.
      </p>
      <div class="row once-actions">${dismiss}</div>
    </div>`;
  }
}

defineView('svc-wh-endpoint-secret', EndpointSecretElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-endpoint-secret': EndpointSecretElement;
  }
}
