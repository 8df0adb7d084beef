/**
 * `@svc/webhooks-portal`: `<svc-webhooks-portal>`, the page where an agency manages its webhooks (endpoint
 * settings, secret, test send, health, delivery log with replay, bulk recovery), as one web component that
 * talks only to the management API of `@svc/webhooks-express`. Importing this module registers the element.
 *
 * @packageDocumentation
 * @module @svc/webhooks-portal
 */
import { defineWebhooksPortal } from './define';

export { defineWebhooksPortal } from './define';
export type { PortalView } from './portal-element';
export { SvcWebhooksPortal } from './portal-element';

defineWebhooksPortal();
