import type { SignatureScheme, WebhookConfig } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { type PortalApi, PortalApiError } from '../api-client';
import { defineView } from '../define-view';
import type { EventTypeOption } from '../event-type-option';
import { focusWhenRendered } from '../focus';
import { ENGLISH, type PortalText } from '../portal-text';
import { includesStandard } from '../signature-scheme';
import { baseStyles } from '../theme';

/** Detail of `svc-wh-config-saved`: the API's answer, and whether it created the configuration. */
export interface ConfigSavedDetail {
  config: WebhookConfig;
  /**
   * True on the first save: `config.signingSecret` is then the full secret, shown this once (and
   * `config.standardSigningSecret` its `whsec_` form, when the scheme includes Standard Webhooks).
   */
  created: boolean;
}

/** The signature schemes in the order the form offers them, with what each means for a receiver. */
const SCHEMES: readonly { value: SignatureScheme; label: string; hint: string }[] = [
  {
    value: 'service',
    label: 'Service signature (X-Service-Signature)',
    hint: 'The default: an HMAC-SHA256 in one header (t=…,v1=…), checked with @svc/webhooks-verify or a few lines of code.',
  },
  {
    value: 'standard',
    label: 'Standard Webhooks',
    hint: 'The webhook-id, webhook-timestamp and webhook-signature headers: a receiver verifies with an off-the-shelf Standard Webhooks library in any language.',
  },
  {
    value: 'both',
    label: 'Both',
    hint: 'Every delivery carries both signatures: for moving receivers from one to the other without a gap.',
  },
];

/** Codes of a save the user can fix in the form; any other error is shown as a failure to save. */
const FORM_ERRORS = new Set(['invalid_webhook_url', 'validation_failed', 'unknown_event_type']);

/**
 * Why an enabled endpoint needs an event type. The API accepts none, but the endpoint then silently
 * receives nothing, so the form asks for one, or for the endpoint to be disabled.
 */
const NO_EVENT_TYPES =
  'Choose at least one event to receive: an enabled endpoint with none gets no deliveries. To save it without any, untick Enabled.';

interface SaveError {
  /** Whether the user can fix it in the form (so it is tied to the fields), or the save just failed. */
  fixable: boolean;
  /**
   * The field it is about, which it is shown beside and describes: the URL (marked invalid) or the
   * event types' group; null for the form as a whole.
   */
  field: 'url' | 'events' | null;
  message: string;
  /** Per-field messages of `validation_failed`. */
  issues: string[];
}

/**
 * `<svc-wh-endpoint-settings>`: the form that creates or updates the agency's webhook configuration
 * (URL, enabled, subscriptions, signature scheme, Ed25519 signatures). With no configuration yet it is
 * the "no endpoint yet" empty state.
 * Fires `svc-wh-config-saved` (not composed) with {@link ConfigSavedDetail} after a save.
 *
 * @csspart card - the settings card
 */
export class EndpointSettingsElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    eventTypes: { attribute: false },
    config: { attribute: false },
    url: { state: true },
    enabled: { state: true },
    subscribed: { state: true },
    scheme: { state: true },
    asymmetric: { state: true },
    saving: { state: true },
    error: { state: true },
    savedNotice: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      form {
        display: grid;
        gap: var(--_space);
      }
      .url-field input {
        width: 100%;
      }
      .url-field p {
        margin: 4px 0 0;
      }
      fieldset {
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
        padding: var(--_space);
        margin: 0;
        min-width: 0;
      }
      legend {
        font-weight: 600;
        padding: 0 4px;
      }
      ul.events {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        gap: 8px;
      }
      ul.events label {
        align-items: flex-start;
        gap: 8px;
      }
      ul.events input {
        flex: none;
        margin-top: 2px;
      }
      .event-text {
        display: flex;
        flex-direction: column;
        min-width: 0;
        overflow-wrap: anywhere;
      }
      .event-text code {
        font-weight: 600;
      }
      .error p:last-child {
        margin-bottom: 0;
      }
      .url-field .error {
        margin-top: 6px;
      }
      fieldset > .error {
        margin: 0 0 8px;
      }
      .error ul {
        margin: 4px 0 0;
        padding-left: 1.2em;
      }
      .actions {
        align-items: center;
      }
      fieldset > .muted {
        margin: 0 0 8px;
      }
      ul.choices {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        gap: 8px;
      }
      .choices label {
        gap: 8px;
        align-items: flex-start;
      }
      /* Level with the first line of a label that wraps on a phone. */
      .choices input {
        flex: none;
        margin: 2px 0 0;
      }
      .choices label:has(input:disabled) {
        color: var(--_muted);
      }
      /* Under the label's text, past the 18 px control and the 8 px gap. */
      .choices .hint {
        margin: 2px 0 0 26px;
      }
      .note {
        margin: 8px 0 0;
        padding: 8px;
        border-left: 3px solid var(--_warning);
        background: var(--_surface-alt);
      }
    `,
  ];

  declare api: PortalApi;
  /** The portal's words and date format. */
  declare text: PortalText;
  declare eventTypes: readonly EventTypeOption[];
  /** The stored configuration; null when the agency has none yet (the form then creates it). */
  declare config: WebhookConfig | null;
  declare private url: string;
  declare private enabled: boolean;
  declare private subscribed: ReadonlySet<string>;
  declare private scheme: SignatureScheme;
  /** The Ed25519 box as ticked; it only counts while the scheme includes Standard Webhooks. */
  declare private asymmetric: boolean;
  declare private saving: boolean;
  declare private error: SaveError | null;
  declare private savedNotice: string;

  constructor() {
    super();
    this.text = ENGLISH;
    this.eventTypes = [];
    this.config = null;
    this.url = '';
    this.enabled = true;
    this.subscribed = new Set();
    this.scheme = 'service';
    this.asymmetric = false;
    this.saving = false;
    this.error = null;
    this.savedNotice = '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // New stored settings (loaded, or the answer to a save) reset the draft; a new secret alone keeps edits.
    if (
      changed.has('config') &&
      !sameSettings(changed.get('config') as WebhookConfig | null | undefined, this.config)
    ) {
      this.url = this.config?.webhookUrl ?? '';
      this.enabled = this.config?.enabled ?? true;
      this.subscribed = new Set(this.config?.subscribedEventTypes ?? []);
      this.scheme = this.config?.signatureScheme ?? 'service';
      this.asymmetric = this.config?.asymmetricSignatures ?? false;
    }
  }

  /** The catalogue, plus any stored subscription it no longer lists, so a save never drops one silently. */
  private get options(): EventTypeOption[] {
    const options = [...this.eventTypes];
    for (const eventType of this.config?.subscribedEventTypes ?? []) {
      if (!options.some((option) => option.eventType === eventType))
        options.push({ eventType, description: 'Not in the event catalogue any more.', entityType: null });
    }
    return options;
  }

  private toggle(eventType: string, checked: boolean): void {
    const next = new Set(this.subscribed);
    if (checked) next.add(eventType);
    else next.delete(eventType);
    this.subscribed = next;
    this.savedNotice = '';
    if (this.error?.field === 'events' && next.size > 0) this.error = null;
  }

  private async save(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const webhookUrl = this.url.trim();
    this.savedNotice = '';
    if (webhookUrl === '') {
      this.error = { fixable: true, field: 'url', message: 'Enter the webhook URL (https://…).', issues: [] };
      await this.focusUrl();
      return;
    }
    if (this.enabled && this.subscribed.size === 0) {
      this.error = { fixable: true, field: 'events', message: NO_EVENT_TYPES, issues: [] };
      await this.focusEvents();
      return;
    }
    this.saving = true;
    this.error = null;
    const created = this.config === null;
    try {
      // Keep the catalogue's order so the stored list reads the same way as the form.
      const order = this.options.map((option) => option.eventType);
      const subscribedEventTypes = [...this.subscribed].sort((a, b) => order.indexOf(a) - order.indexOf(b));
      const config = await this.api.putConfig({
        webhookUrl,
        enabled: this.enabled,
        subscribedEventTypes,
        signatureScheme: this.scheme,
        // Sent as false with the service scheme: the API refuses v1a without the Standard Webhooks headers.
        asymmetricSignatures: this.signsAsymmetric,
      });
      this.savedNotice = created ? 'Endpoint created.' : 'Changes saved.';
      // The Save button was disabled while saving, which dropped the focus: the notice takes it, unless
      // this created the endpoint, whose one-time secret card takes it instead.
      if (!created) void focusWhenRendered(this, '#saved-notice');
      this.dispatchEvent(
        new CustomEvent<ConfigSavedDetail>('svc-wh-config-saved', { detail: { config, created } }),
      );
    } catch (error) {
      this.error = toSaveError(error);
      if (this.error.field === 'url') void this.focusUrl();
      else if (this.error.field === 'events') void this.focusEvents();
      else void focusWhenRendered(this, '#save-error');
    } finally {
      this.saving = false;
    }
  }

  /** Whether the draft signs with Ed25519: the box is ticked and the scheme can carry v1a. */
  private get signsAsymmetric(): boolean {
    return this.asymmetric && includesStandard(this.scheme);
  }

  private focusUrl(): Promise<void> {
    return focusWhenRendered(this, '#webhook-url');
  }

  /** The first event type's checkbox, inside the group the error describes; the error without one. */
  private focusEvents(): Promise<void> {
    return focusWhenRendered(this, this.options.length === 0 ? '#save-error' : 'input[name="eventType"]');
  }

  protected override render() {
    const creating = this.config === null;
    const error = this.error;
    const urlInvalid = error?.field === 'url';
    const eventsInvalid = error?.field === 'events';
    return html`
      <section class="card" part="card" aria-labelledby="settings-title">
        <h2 id="settings-title">${creating ? 'No endpoint yet' : 'Endpoint settings'}</h2>
        ${
          creating
            ? html`<p class="muted">
              Enter the https URL where deliveries should go and choose the events to receive. Saving creates the
              endpoint and its signing secret.
            </p>`
            : nothing
        }
        <form novalidate @submit=${this.save}>
          <div class="url-field">
            <label>
              Webhook URL
              <input
                id="webhook-url"
                type="url"
                inputmode="url"
                autocomplete="url"
                placeholder="https://example.com/webhooks"
                .value=${this.url}
                aria-invalid=${urlInvalid ? 'true' : 'false'}
                aria-describedby=${urlInvalid ? 'save-error url-hint' : 'url-hint'}
                @input=${(e: Event) => {
                  this.url = (e.target as HTMLInputElement).value;
                  this.savedNotice = '';
                }}
              />
            </label>
            <p id="url-hint" class="muted">Must be https and reachable from the internet.</p>
            ${urlInvalid ? this.renderError(error) : nothing}
          </div>
          <label class="inline">
            <input
              type="checkbox"
              .checked=${this.enabled}
              @change=${(e: Event) => {
                this.enabled = (e.target as HTMLInputElement).checked;
                this.savedNotice = '';
                if (!this.enabled && this.error?.field === 'events') this.error = null;
              }}
            />
            Enabled: send deliveries to this URL
          </label>
          <fieldset aria-describedby=${eventsInvalid ? 'save-error' : nothing}>
            <legend>Events to receive</legend>
            ${eventsInvalid ? this.renderError(error) : nothing}
            ${
              this.options.length === 0
                ? html`<p class="muted">No event types to choose from yet.</p>`
                : html`<ul class="events">
                  ${this.options.map(
                    (option) => html`<li>
                      <label class="inline">
                        <input
                          type="checkbox"
                          name="eventType"
                          .value=${option.eventType}
                          .checked=${this.subscribed.has(option.eventType)}
                          @change=${(e: Event) => this.toggle(option.eventType, (e.target as HTMLInputElement).checked)}
                        />
                        <span class="event-text">
                          <code>${option.eventType}</code>
                          <span>${option.description}</span>
                        </span>
                      </label>
                    </li>`,
                  )}
                </ul>`
            }
          </fieldset>
          ${this.renderSchemes()} ${this.renderAsymmetric()}
          ${error !== null && error.field === null ? this.renderError(error) : nothing}
          <div class="row actions">
            <button type="submit" ?disabled=${this.saving}>
              ${this.saving ? 'Saving…' : creating ? 'Create endpoint' : 'Save changes'}
            </button>
            <span id="saved-notice" role="status" aria-live="polite" tabindex="-1">${this.savedNotice}</span>
          </div>
        </form>
      </section>
    `;
  }

  /** The signature scheme radios, with what each means for a receiver. */
  private renderSchemes() {
    return html`<fieldset aria-describedby="scheme-hint">
        <legend>Signature scheme</legend>
        <p id="scheme-hint" class="muted">
          How each delivery is signed; every scheme uses the same secret. With Standard Webhooks, a receiver that
          answers <code>410 Gone</code> disables the endpoint.
        </p>
        <ul class="choices">
          ${SCHEMES.map(
            (scheme) => html`<li>
              <label class="inline">
                <input
                  type="radio"
                  name="signatureScheme"
                  .value=${scheme.value}
                  .checked=${this.scheme === scheme.value}
                  aria-describedby=${`scheme-${scheme.value}-hint`}
                  @change=${() => {
                    this.scheme = scheme.value;
                    this.savedNotice = '';
                  }}
                />
                ${scheme.label}
              </label>
              <p id=${`scheme-${scheme.value}-hint`} class="muted hint">${scheme.hint}</p>
            </li>`,
          )}
        </ul>
      </fieldset>`;
  }

  /** The Ed25519 box, usable only with a scheme that sends the Standard Webhooks headers. */
  private renderAsymmetric() {
    const standard = includesStandard(this.scheme);
    // Turning v1a off drops every key at once: say so before the save, not after.
    const dropsKeys = this.config?.asymmetricSignatures === true && !this.signsAsymmetric;
    return html`<div class="choices">
        <label class="inline">
          <input
            id="asymmetric"
            type="checkbox"
            .checked=${this.signsAsymmetric}
            ?disabled=${!standard}
            aria-describedby="asymmetric-hint"
            @change=${(e: Event) => {
              this.asymmetric = (e.target as HTMLInputElement).checked;
              this.savedNotice = '';
            }}
          />
          Ed25519 signatures (v1a)
        </label>
        <p id="asymmetric-hint" class="muted hint">
          ${
            standard
              ? 'Each delivery is also signed with a private key: receivers verify with a public key, no shared secret needed.'
              : 'Needs Standard Webhooks or Both: the v1a signature travels in their webhook-signature header.'
          }
        </p>
        ${
          dropsKeys
            ? html`<p class="note">
              Saving turns Ed25519 signatures off: every public key is withdrawn at once, and receivers that check
              v1a signatures stop accepting deliveries.
            </p>`
            : nothing
        }
      </div>`;
  }

  /** Next to the field it is about (the URL, the event types), else above the Save button. */
  private renderError(error: SaveError) {
    return html`<div id="save-error" class="state error" role="alert" tabindex="-1">
      <p>${error.fixable ? error.message : `The settings could not be saved: ${error.message}`}</p>
      ${error.issues.length === 0 ? nothing : html`<ul>${error.issues.map((issue) => html`<li>${issue}</li>`)}</ul>`}
    </div>`;
  }
}

function sameSettings(a: WebhookConfig | null | undefined, b: WebhookConfig | null): boolean {
  if (a == null || b === null) return false;
  return (
    a.webhookUrl === b.webhookUrl &&
    a.enabled === b.enabled &&
    a.subscribedEventTypes.join('\n') === b.subscribedEventTypes.join('\n') &&
    a.signatureScheme === b.signatureScheme &&
    a.asymmetricSignatures === b.asymmetricSignatures
  );
}

function toSaveError(error: unknown): SaveError {
  if (!(error instanceof PortalApiError))
    return { fixable: false, field: null, message: String(error), issues: [] };
  const fixable = FORM_ERRORS.has(error.code);
  const issues = error.code === 'validation_failed' ? readIssues(error.details) : [];
  const aboutUrl =
    error.code === 'invalid_webhook_url' ||
    (error.code === 'validation_failed' && issues.some((issue) => issue.startsWith('webhookUrl')));
  const field = aboutUrl ? 'url' : error.code === 'unknown_event_type' ? 'events' : null;
  return { fixable, field, message: error.message, issues };
}

/** `details.issues` of `validation_failed` as `field: message` lines. */
function readIssues(details: unknown): string[] {
  const issues = (details as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.flatMap((issue: { path?: unknown; message?: unknown }) => {
    if (typeof issue?.message !== 'string') return [];
    const path = Array.isArray(issue.path)
      ? issue.path.join('.')
      : typeof issue.path === 'string'
        ? issue.path
        : '';
    return [path === '' ? issue.message : `${path}: ${issue.message}`];
  });
}

defineView('svc-wh-endpoint-settings', EndpointSettingsElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-endpoint-settings': EndpointSettingsElement;
  }
}
