import { SvcWebhooksPortal } from './portal-element';

const DEFAULT_TAG = 'svc-webhooks-portal';

/**
 * Registers the portal element under `tagName` unless the page already has that tag (two copies of the
 * bundle on one page). A custom name registers a subclass, since one class can hold one name only.
 */
export function defineWebhooksPortal(tagName: string = DEFAULT_TAG): void {
  if (customElements.get(tagName)) return;
  customElements.define(
    tagName,
    tagName === DEFAULT_TAG ? SvcWebhooksPortal : class extends SvcWebhooksPortal {},
  );
}
