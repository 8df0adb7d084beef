import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { type EventTypeSchema, errorMessage, type PortalApi } from '../api-client';
import { copyText } from '../copy';
import { defineView } from '../define-view';
import { ENGLISH, type PortalText } from '../portal-text';
import { schemaFields } from '../schema-fields';
import { baseStyles } from '../theme';

/**
 * `<svc-wh-event-catalogue>`: the "Event types" tab. Every event type of the catalogue, the ones the
 * endpoint subscribes to marked, each with its description, the fields of its delivery body (type,
 * required, description, from its JSON Schema), an example body and the schema itself, each copyable.
 *
 * @csspart card - the catalogue
 */
export class EventCatalogueElement extends LitElement {
  static override properties = {
    api: { attribute: false },
    text: { attribute: false },
    types: { state: true },
    subscribed: { state: true },
    error: { state: true },
    status: { state: true },
  };

  static override styles = [
    baseStyles,
    css`
      ul.types {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        gap: var(--_space);
      }
      /* A grid item grows to its content unless told otherwise: the tables scroll in their box instead. */
      ul.types > li {
        min-width: 0;
      }
      details {
        border: 1px solid var(--_border);
        border-radius: var(--_radius);
        padding: 8px var(--_space);
        min-width: 0;
      }
      summary {
        cursor: pointer;
        display: flex;
        flex-wrap: wrap;
        gap: 4px 8px;
        align-items: baseline;
        overflow-wrap: anywhere;
      }
      summary code {
        font-weight: 600;
      }
      /* A flex summary loses the browser's marker: draw it, hidden from screen readers (they hear the state). */
      summary {
        list-style: none;
      }
      summary::-webkit-details-marker {
        display: none;
      }
      summary::before {
        content: '▸' / '';
        color: var(--_muted);
      }
      details[open] > summary::before {
        content: '▾' / '';
      }
      .body {
        margin-top: var(--_space);
        min-width: 0;
      }
      .table-wrap {
        overflow-x: auto;
        margin-bottom: var(--_space);
      }
      td:first-child code {
        white-space: nowrap;
      }
      h3 {
        margin: 0 0 6px;
      }
      /* On a phone each field is a block: its name, then its type, whether required and what it means. */
      @media (max-width: 640px) {
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
          padding: 6px 0;
          border-bottom: 1px solid var(--_border);
        }
        td {
          border: none;
          padding: 1px 0;
          overflow-wrap: anywhere;
        }
        td:first-child code {
          white-space: normal;
          font-weight: 600;
        }
        td[data-label]::before {
          content: attr(data-label) ': ';
          color: var(--_muted);
        }
      }
      pre {
        margin: 0 0 8px;
      }
      .copy-row {
        margin-bottom: var(--_space);
      }
    `,
  ];

  declare api: PortalApi;
  declare text: PortalText;
  declare private types: EventTypeSchema[] | null;
  /** The endpoint's subscriptions; empty when the agency has no endpoint yet or they could not be read. */
  declare private subscribed: ReadonlySet<string>;
  declare private error: string | null;
  declare private status: string;
  private loadedFor: PortalApi | null = null;

  constructor() {
    super();
    this.text = ENGLISH;
    this.types = null;
    this.subscribed = new Set();
    this.error = null;
    this.status = '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('api') && this.api !== undefined && this.api !== this.loadedFor) void this.load();
  }

  private async load(): Promise<void> {
    const api = this.api;
    this.loadedFor = api;
    this.types = null;
    this.error = null;
    try {
      const [list, config] = await Promise.all([
        api.listEventTypeSchemas(),
        // The marks are a help, not the point: the catalogue shows without them.
        api.getConfig().catch(() => null),
      ]);
      if (this.loadedFor !== api) return;
      this.types = list.eventTypes;
      this.subscribed = new Set(config?.subscribedEventTypes ?? []);
    } catch (error) {
      if (this.loadedFor !== api) return;
      this.error = errorMessage(error);
    }
  }

  private async copy(value: unknown, selector: string): Promise<void> {
    this.status = await copyText(
      JSON.stringify(value, null, 2),
      this.renderRoot.querySelector(selector),
      this.text.t('copy.what.code'),
      this.text,
    );
  }

  protected override render() {
    const t = this.text;
    return html`<section class="card" part="card" aria-labelledby="catalogue-title">
      <h2 id="catalogue-title">${t.t('events.title')}</h2>
      <p class="muted">${t.t('events.intro')}</p>
      ${this.renderBody()}
      <p class="visually-hidden" role="status" aria-live="polite">${this.status}</p>
    </section>`;
  }

  private renderBody() {
    const t = this.text;
    if (this.error !== null)
      return html`<div class="state error" role="alert">
        <p>${t.t('events.loadError', { message: this.error })}</p>
        <button type="button" class="secondary" @click=${() => void this.load()}>${t.t('common.tryAgain')}</button>
      </div>`;
    if (this.types === null) return html`<p class="state" role="status">${t.t('events.loading')}</p>`;
    if (this.types.length === 0) return html`<p class="state">${t.t('events.empty')}</p>`;
    return html`<ul class="types">
      ${this.types.map((type, index) => html`<li data-event-type=${type.eventType}>${this.renderType(type, index)}</li>`)}
    </ul>`;
  }

  private renderType(type: EventTypeSchema, index: number) {
    const t = this.text;
    const subscribed = this.subscribed.has(type.eventType);
    const fields = schemaFields(type.schema);
    return html`<details>
      <summary>
        <code>${type.eventType}</code>
        ${subscribed ? html`<span class="badge success" part="badge">${t.t('events.subscribed')}</span>` : nothing}
        <span>${type.description ?? t.t('events.noDescription')}</span>
      </summary>
      <div class="body">
        <p class="muted">
          ${type.entityType === null ? t.t('events.entityVaries') : t.t('events.entity', { entityType: type.entityType })}
        </p>
        <h3>${t.t('events.fields')}</h3>
        <div
          class="table-wrap"
          tabindex="0"
          role="region"
          aria-label=${t.t('events.fieldsOf', { eventType: type.eventType })}
        >
          <table>
            <thead>
              <tr>
                <th scope="col">${t.t('events.field')}</th>
                <th scope="col">${t.t('events.type')}</th>
                <th scope="col">${t.t('events.required')}</th>
                <th scope="col">${t.t('events.description')}</th>
              </tr>
            </thead>
            <tbody>
              ${fields.map(
                (field) => html`<tr data-field=${field.path}>
                  <td><code>${field.path}</code></td>
                  <td data-label=${t.t('events.type')}><code>${field.type}</code></td>
                  <td data-label=${t.t('events.required')}>${field.required ? t.t('events.yes') : t.t('events.no')}</td>
                  <td>${field.description ?? ''}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <h3>${t.t('events.example')}</h3>
        ${
          type.example === null
            ? html`<p class="muted">${t.t('events.noExample')}</p>`
            : html`<pre id=${`example-body-${index}`} tabindex="0" role="region" aria-label=${t.t('events.exampleOf', { eventType: type.eventType })}>${JSON.stringify(type.example, null, 2)}</pre>
              <div class="row copy-row">
                <button type="button" class="secondary" @click=${() => this.copy(type.example, `#example-body-${index}`)}>
                  ${t.t('events.copyExample')}
                </button>
              </div>`
        }
        <details>
          <summary>${t.t('events.schema')}</summary>
          <pre id=${`schema-${index}`} tabindex="0" role="region" aria-label=${t.t('events.schemaOf', { eventType: type.eventType })}>${JSON.stringify(type.schema, null, 2)}</pre>
          <button type="button" class="secondary" @click=${() => this.copy(type.schema, `#schema-${index}`)}>
            ${t.t('events.copySchema')}
          </button>
        </details>
      </div>
    </details>`;
  }
}

defineView('svc-wh-event-catalogue', EventCatalogueElement);

declare global {
  interface HTMLElementTagNameMap {
    'svc-wh-event-catalogue': EventCatalogueElement;
  }
}
