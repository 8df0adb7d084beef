import type { TestResult, WebhookConfig } from '@svc/webhooks-core';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { type PortalApi, PortalApiError } from '../api-client';
import { defineView } from '../define-view';
import { focusWhenRendered } from '../focus';
import { ENGLISH, type PortalText } from '../portal-text';
import { baseStyles } from '../theme';

/** The select's value for the built-in `webhook_test` event: the API sends it when no event type is given. */
const BUILT_IN_TEST = '';

/**
 * `<svc-wh-endpoint-test-send>`: sends one signed test event to the configured URL now and shows what the
 * receiver answered. Disabled while there is no configuration. Fires `svc-wh-test-sent` (not composed)
 * after each send that reached the API.
 *
 * @csspart card - the test send card
 * @csspart badge - the success / failure badge
 */
export class EndpointTestSendElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    config: { attribute: false },
    eventType: { state: true },
    sending: { state: true },
    result: { state: true },
    error: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      .result {
        margin-top: var(--_space);
      }
      .result p {
        margin: 6px 0 0;
        overflow-wrap: anywhere;
      }
      select {
        max-width: 100%;
      }
      .error {
        margin-top: var(--_space);
      }
    `,
  ];

  declare api: PortalApi;
  /** The portal's words and date format. */
  declare text: PortalText;
  /** The stored configuration; null disables the form. */
  declare config: WebhookConfig | null;
  declare private eventType: string;
  declare private sending: boolean;
  declare private result: (TestResult & { eventType: string }) | null;
  declare private error: string | null;

  constructor() {
    super();
    this.text = ENGLISH;
    this.config = null;
    this.eventType = BUILT_IN_TEST;
    this.sending = false;
    this.result = null;
    this.error = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // An unsubscribed type would be refused by the API, so fall back to the built-in test event.
    if (changed.has('config') && !this.config?.subscribedEventTypes.includes(this.eventType))
      this.eventType = BUILT_IN_TEST;
  }

  private async send(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (this.sending || this.config === null) return;
    const eventType = this.eventType;
    this.sending = true;
    this.error = null;
    this.result = null;
    try {
      const result = await this.api.sendTest(eventType === BUILT_IN_TEST ? undefined : eventType);
      this.result = { ...result, eventType: eventType === BUILT_IN_TEST ? 'webhook_test' : eventType };
      this.dispatchEvent(new CustomEvent('svc-wh-test-sent'));
    } catch (error) {
      this.error = describeError(error, this.text);
    } finally {
      this.sending = false;
    }
    // The Send button was disabled while sending, which dropped the focus: the answer (or the error) takes it.
    await focusWhenRendered(this, this.error === null ? '.result' : '#test-error');
  }

  protected override render() {
    const disabled = this.config === null;
    const t = this.text;
    return html`
      <section class="card" part="card" aria-labelledby="test-title">
        <h2 id="test-title">${t.t('test.title')}</h2>
        <p class="muted">
          ${disabled ? t.t('test.createFirst') : t.t('test.intro')}
        </p>
        <form class="row" @submit=${this.send}>
          <label>
            ${t.t('test.eventToSend')}
            <select
              ?disabled=${disabled}
              .value=${this.eventType}
              @change=${(e: Event) => {
                this.eventType = (e.target as HTMLSelectElement).value;
              }}
            >
              <option value=${BUILT_IN_TEST} ?selected=${this.eventType === BUILT_IN_TEST}>${t.t('test.builtIn')}</option>
              ${(this.config?.subscribedEventTypes ?? []).map(
                (type) => html`<option value=${type} ?selected=${this.eventType === type}>${type}</option>`,
              )}
            </select>
          </label>
          <button type="submit" ?disabled=${disabled || this.sending}>${t.t(this.sending ? 'test.sending' : 'test.send')}</button>
        </form>
        <div class="result" role="status" aria-live="polite" tabindex="-1">${this.renderResult()}</div>
        ${this.error === null ? nothing : html`<p class="state error" id="test-error" role="alert" tabindex="-1">${this.error}</p>`}
      </section>
    `;
  }

  private renderResult() {
    const t = this.text;
    if (this.sending) return html`<p class="muted">${t.t('test.sending')}</p>`;
    const result = this.result;
    if (result === null) return nothing;
    return html`
      <h3>${t.t('test.answerTo')} <code>${result.eventType}</code></h3>
      <p>
        <span class=${`badge ${result.success ? 'success' : 'failed'}`} part="badge"
          >${t.t(result.success ? 'status.success' : 'status.failed')}</span
        >
        <span data-status-code=${result.statusCode}>
          ${result.statusCode === 0 ? t.t('test.noResponse') : t.t('test.httpStatus', { status: result.statusCode })}
        </span>
      </p>
      ${result.message === '' ? nothing : html`<p>${result.message}</p>`}
    `;
  }
}

function describeError(error: unknown, text: PortalText): string {
  if (!(error instanceof PortalApiError)) return text.t('test.error', { message: String(error) });
  switch (error.code) {
    case 'rate_limited':
      return text.t('test.rateLimited', { message: error.message });
    case 'config_not_found':
      return text.t('test.noEndpoint');
    default:
      return text.t('test.error', { message: error.message });
  }
}

defineView('svc-wh-endpoint-test-send', EndpointTestSendElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-endpoint-test-send': EndpointTestSendElement;
  }
}
