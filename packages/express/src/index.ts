/**
 * `@svc/webhooks-express`: an Express 5 router serving the webhook management
 * API (configuration, secret rotation, test event, delivery log, replay), with
 * an authentication hook, JSON errors, and the API's OpenAPI 3.1 document.
 *
 * @packageDocumentation
 * @module @svc/webhooks-express
 */
export type { AgentRole, Authenticate, AuthenticatedAgent, ReadToken } from './authentication';
export { readAgentToken, readAuthorizationToken } from './authentication';
export type { WebhookApiErrorBody } from './error-response';
export type { WebhookApiErrorCode } from './errors';
export { apiErrorCodes, InvalidAgentError, WebhookApiError } from './errors';
export type { OpenApiDocument, OpenApiDocumentOptions } from './openapi';
export { buildOpenApiDocument, openApiDocument, WEBHOOK_API_BASE_PATH } from './openapi';
export type { WebhooksRouterOptions } from './router';
export { createWebhooksRouter } from './router';
