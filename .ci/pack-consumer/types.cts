// Type consumer (CJS resolution: the `require` condition's .d.cts files).
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  type WebhookService,
} from '@svc/webhooks-core';
import { createOpenTelemetryHooks } from '@svc/webhooks-core/otel';
import { createWebhooksRouter } from '@svc/webhooks-express';
import { createPgStore } from '@svc/webhooks-pg';
import { createRedisStore } from '@svc/webhooks-redis';
import { signWebhook, verifyWebhookSignature } from '@svc/webhooks-verify';
import { verifyWebhookMiddleware } from '@svc/webhooks-verify/express';
import { verifyWebhookRequest } from '@svc/webhooks-verify/fetch';
import { signWebhookAsync } from '@svc/webhooks-verify/web';

const webhooks: WebhookService = createWebhookService({
  store: createMemoryStore(),
  queue: createMemoryQueue(),
  hooks: createOpenTelemetryHooks(),
});
const router = createWebhooksRouter({ service: webhooks, authenticate: async () => null });
const verified: { timestamp: number } = verifyWebhookSignature('{}', signWebhook('{}', 's'), 's');
const middleware = verifyWebhookMiddleware({ secrets: ['a', 'b'] });
const edge: Promise<string> = signWebhookAsync('{}', 's');

export = { router, verified, middleware, edge, verifyWebhookRequest, createPgStore, createRedisStore };
