/**
 * The example fetch-handler receiver, importable by tests.
 *
 * @packageDocumentation
 */
export type { FetchHandler } from './node-fetch-server';
export { createFetchServer } from './node-fetch-server';
export type { WebhookFetchHandlerOptions } from './webhook-handler';
export { createWebhookFetchHandler } from './webhook-handler';
