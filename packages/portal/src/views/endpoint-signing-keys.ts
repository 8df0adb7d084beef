import type { RotatedSigningKey, SigningPublicKey, WebhookConfig } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { errorMessage, type PortalApi } from '../api-client';
import { copyText } from '../copy';
import { defineView } from '../define-view';
import { ENGLISH, type PortalText } from '../portal-text';
import { baseStyles } from '../theme';

/** Detail of `svc-wh-signing-key-rotated`: the API's answer, every key still published after the rotation. */
export type SigningKeyRotatedDetail = RotatedSigningKey;

/** How long the old key keeps signing after a rotation, as offered. */
const OVERLAPS = {
  day: { ms: 86_400_000, label: 'Keeps signing for 24 hours (recommended)' },
  none: { ms: 0, label: 'Stops at once' },
} as const;
type Overlap = keyof typeof OVERLAPS;

/** Stands for the agency's id in the JWKS address when the host did not give it to the portal. */
const AGENCY_PLACEHOLDER = '<your agency id>';

/**
 * `<svc-wh-endpoint-signing-keys>`: the agency's Ed25519 public keys (the `v1a` signatures of Standard
 * Webhooks) with the JWKS address receivers fetch them from, and key rotation with a choice of overlap
 * after an inline confirmation. Fires `svc-wh-signing-key-rotated` (not composed) with
 * {@link SigningKeyRotatedDetail}.
 *
 * @csspart card - the keys card
 * @csspart badge - each key's state
 */
export class EndpointSigningKeysElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    config: { attribute: false },
    agencyId: { attribute: false },
    confirming: { state: true },
    overlap: { state: true },
    rotating: { state: true },
    rotateError: { state: true },
    status: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      .value {
        display: block;
        padding: 8px;
        background: var(--_surface-alt);
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
        word-break: break-all;
      }
      .block {
        margin-bottom: var(--_space);
      }
      .block > button {
        margin-top: 8px;
      }
      .label {
        font-weight: 600;
        margin-bottom: 4px;
      }
      ul.keys {
        list-style: none;
        margin: 0 0 var(--_space);
        padding: 0;
        display: grid;
        gap: var(--_space);
      }
      ul.keys > li {
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
        padding: var(--_space);
        min-width: 0;
      }
      .key-head {
        display: flex;
        flex-wrap: wrap;
        gap: 8px;
        align-items: center;
        justify-content: space-between;
        margin-bottom: 8px;
      }
      .key-head code {
        font-weight: 600;
        overflow-wrap: anywhere;
      }
      .key-foot {
        display: flex;
        flex-wrap: wrap;
        gap: 8px;
        align-items: center;
        justify-content: space-between;
        margin-top: 8px;
      }
      .key-foot p {
        margin: 0;
      }
      .badge.retiring {
        color: var(--_warning);
      }
      .confirm {
        border: 2px solid var(--_danger);
        border-radius: var(--_radius);
        padding: var(--_space);
        margin-top: var(--_space);
      }
      .confirm:focus {
        outline: 3px solid var(--_focus);
        outline-offset: 2px;
      }
      fieldset {
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
        padding: var(--_space);
        margin: 0 0 var(--_space);
        min-width: 0;
      }
      legend {
        font-weight: 600;
        padding: 0 4px;
      }
      fieldset label {
        gap: 8px;
      }
      fieldset label + label {
        margin-top: 8px;
      }
    `,
  ];

  declare api: PortalApi;
  /** The portal's words and date format. */
  declare text: PortalText;
  declare config: WebhookConfig;
  /** The agency's id, for the JWKS address; null shows a placeholder in its place. */
  declare agencyId: string | null;
  declare private confirming: boolean;
  declare private overlap: Overlap;
  declare private rotating: boolean;
  declare private rotateError: string | null;
  /** Announced politely: copy results and a rotation's outcome. */
  declare private status: string;
  /** Set by a rotation, so the new key's Copy button takes focus once the parent shows the new list. */
  private focusActive = false;

  constructor() {
    super();
    this.text = ENGLISH;
    this.agencyId = null;
    this.confirming = false;
    this.overlap = 'day';
    this.rotating = false;
    this.rotateError = null;
    this.status = '';
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('config') && this.focusActive) {
      this.focusActive = false;
      this.renderRoot.querySelector<HTMLButtonElement>('[data-active] button')?.focus();
    }
  }

  /** The JWKS address receivers fetch; with a placeholder for the agency when the host did not say it. */
  private get jwksUrl(): string {
    if (this.agencyId) return this.api.publicKeysUrl(this.agencyId);
    return `${this.api.publicKeysUrl('')}${AGENCY_PLACEHOLDER}`;
  }

  private async copy(value: string, selector: string, what: string): Promise<void> {
    this.status = await copyText(value, this.renderRoot.querySelector(selector), what, this.text);
  }

  private async ask(): Promise<void> {
    this.confirming = true;
    this.overlap = 'day';
    this.rotateError = null;
    await this.updateComplete;
    // As for the secret: the question takes the focus, so a screen reader reads it before the choices.
    this.renderRoot.querySelector<HTMLElement>('.confirm')?.focus();
  }

  private async cancel(): Promise<void> {
    this.confirming = false;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLButtonElement>('#rotate-key')?.focus();
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
      // The overlap is always sent, so that what the choice said is what happens whatever the host's default.
      const overlapMs = OVERLAPS[this.overlap].ms;
      const { signingPublicKeys } = await this.api.rotateSigningKey(overlapMs);
      this.confirming = false;
      this.status = rotatedMessage(signingPublicKeys, overlapMs, this.text);
      this.focusActive = true;
      this.dispatchEvent(
        new CustomEvent<SigningKeyRotatedDetail>('svc-wh-signing-key-rotated', {
          detail: { signingPublicKeys },
        }),
      );
    } catch (error) {
      this.rotateError = errorMessage(error);
    } finally {
      this.rotating = false;
    }
  }

  protected override render() {
    const keys = this.config.signingPublicKeys;
    return html`
      <section class="card" part="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Public keys (Ed25519)</h2>
        <p class="muted">
          Receivers check the <code>v1a</code> signatures in <code>webhook-signature</code> with these public keys:
          no shared secret needed. While a key retires, deliveries carry its signature beside the new one.
        </p>
        <div class="block">
          <p class="label">Public keys as JWKS, fetched without a token</p>
          <code id="jwks-url" class="value">${this.jwksUrl}</code>
          ${
            this.agencyId
              ? nothing
              : html`<p class="muted">Put your agency's id in place of <code>${AGENCY_PLACEHOLDER}</code>.</p>`
          }
          <button type="button" class="secondary" @click=${() => this.copy(this.jwksUrl, '#jwks-url', 'address')}>
            Copy JWKS URL
          </button>
        </div>
        <ul class="keys" aria-label="Public keys">
          ${keys.map((key, index) => this.renderKey(key, index))}
        </ul>
        <p role="status" aria-live="polite">${this.status}</p>
        ${this.confirming ? this.renderConfirm() : html`<button id="rotate-key" type="button" class="secondary" @click=${this.ask}>Rotate signing key</button>`}
        ${
          this.rotateError === null
            ? nothing
            : html`<p class="state error" role="alert">The signing key could not be rotated: ${this.rotateError}</p>`
        }
      </section>
    `;
  }

  private renderKey(key: SigningPublicKey, index: number) {
    const active = key.expiresAt === null;
    return html`<li data-kid=${key.kid} ?data-active=${active}>
      <div class="key-head">
        <code>${key.kid}</code>
        <span class=${`badge ${active ? 'healthy' : 'retiring'}`} part="badge">
          ${active ? 'Active' : `Retiring until ${this.text.formatTime(key.expiresAt)}`}
        </span>
      </div>
      <code id=${`key-${index}`} class="value" data-public-key>${key.publicKey}</code>
      <div class="key-foot">
        <p class="muted">Created ${this.text.formatTime(key.createdAt)}</p>
        <button type="button" class="secondary" @click=${() => this.copy(key.publicKey, `#key-${index}`, 'public key')}>
          Copy public key<span class="visually-hidden"> ${key.kid}</span>
        </button>
      </div>
    </li>`;
  }

  private renderConfirm() {
    return html`<div
      class="confirm"
      role="group"
      aria-labelledby="rotate-key-question"
      tabindex="-1"
      @keydown=${this.onConfirmKey}
    >
      <p id="rotate-key-question">
        <strong>Rotate the signing key?</strong> A new key signs every delivery from now on. Receivers that keep
        the public keys must fetch them again.
      </p>
      <fieldset>
        <legend>The current key</legend>
        ${(Object.keys(OVERLAPS) as Overlap[]).map(
          (overlap) => html`<label class="inline">
            <input
              type="radio"
              name="overlap"
              .value=${overlap}
              .checked=${this.overlap === overlap}
              @change=${() => {
                this.overlap = overlap;
              }}
            />
            ${OVERLAPS[overlap].label}
          </label>`,
        )}
      </fieldset>
      <div class="row">
        <button type="button" class="danger" ?disabled=${this.rotating} @click=${this.rotate}>
          ${this.rotating ? 'Rotating…' : 'Confirm key rotation'}
        </button>
        <button type="button" class="secondary" ?disabled=${this.rotating} @click=${this.cancel}>Cancel</button>
      </div>
    </div>`;
  }
}

/**
 * What a rotation did, in words: the new key, and until when the previous one still signs (the latest
 * retirement in the list, since the key just retired is the last to go).
 */
function rotatedMessage(keys: readonly SigningPublicKey[], overlapMs: number, text: PortalText): string {
  const retiring = keys.flatMap((key) => (key.expiresAt === null ? [] : [key.expiresAt]));
  if (overlapMs === 0 || retiring.length === 0)
    return 'A new signing key is active. The previous key no longer signs.';
  return `A new signing key is active. The previous key keeps signing until ${text.formatTime(Math.max(...retiring))}.`;
}

defineView('svc-wh-endpoint-signing-keys', EndpointSigningKeysElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-endpoint-signing-keys': EndpointSigningKeysElement;
  }
}
