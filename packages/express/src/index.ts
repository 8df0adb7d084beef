/**
 * `@svc/webhooks-express`: an Express 5 router serving the webhook management
 * API (configuration, secret rotation, test event, delivery log, replay), with
 * an authentication hook, JSON errors, and the API's OpenAPI 3.1 document.
 *
 * @packageDocumentation
 * @module @svc/webhooks-express
 */
export { WebhooksApiError } from './api-error';
export type { AgentRole, Authenticate, AuthenticatedAgent } from './authentication';
export { readAgentToken } from './authentication';
export type { WebhooksApiErrorCode } from './error-codes';
export { webhooksApiErrors } from './error-codes';
export type { WebhooksErrorBody } from './error-response';
export type { OpenApiDocument, OpenApiDocumentOptions } from './openapi';
export { createOpenApiDocument, openApiDocument, WEBHOOKS_BASE_PATH } from './openapi';
export type { WebhooksRouterOptions } from './router';
export { createWebhooksRouter } from './router';
