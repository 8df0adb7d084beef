/**
 * `@svc/webhooks-portal`: `<svc-webhooks-portal>`, the page where an agency manages its webhooks (endpoint
 * settings, secret, test send, health, delivery log with replay, bulk recovery, event catalogue), as one web component that
 * talks only to the management API of `@svc/webhooks-express`. Importing this module registers the element.
 *
 * @packageDocumentation
 * @module @svc/webhooks-portal
 */
import { defineWebhooksPortal } from './define';

export { defineWebhooksPortal } from './define';
export type { PortalView, UnauthorizedDetail } from './portal-element';
export { SvcWebhooksPortal } from './portal-element';
export type { PortalStringKey, PortalStrings } from './strings';
export { DEFAULT_STRINGS } from './strings';

defineWebhooksPortal();
