// Type consumer (ESM resolution: the `import` condition's .d.ts files).
import {
  combineHooks,
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  createWorker,
  type DeliveryStatus,
  type WebhookLogger,
  type WebhookService,
  type WebhookWorker,
} from '@svc/webhooks-core';
import { type DeadlineResult, withinDeadline } from '@svc/webhooks-core/adapter-kit';
import { createOpenTelemetryHooks, observeWorker } from '@svc/webhooks-core/otel';
import { putConfigBodySchema } from '@svc/webhooks-core/schemas';
import { type Authenticate, createWebhooksRouter } from '@svc/webhooks-express';
import { createPgQueue, createPgStore, migrate } from '@svc/webhooks-pg';
import { createRedisQueue, createRedisStore } from '@svc/webhooks-redis';
import { signWebhook, verifyWebhook, type WebhookEnvelope } from '@svc/webhooks-verify';
import { verifyWebhookMiddleware } from '@svc/webhooks-verify/express';
import { webhookHandler } from '@svc/webhooks-verify/fetch';
import { verifyWebhookAsync } from '@svc/webhooks-verify/web';
import express from 'express';

const logger: WebhookLogger = { debug() {}, info() {}, warn() {}, error() {} };
const webhooks: WebhookService = createWebhookService({
  store: createMemoryStore(),
  queue: createMemoryQueue(),
  hooks: combineHooks(createOpenTelemetryHooks(), { onFailed: (delivery) => delivery.id }),
  logger,
});
const worker: WebhookWorker = createWorker(webhooks, { concurrency: 4 });
const stopObserving: () => void = observeWorker(worker);

const authenticate: Authenticate = async (token) =>
  token === 'x' ? { agentId: 'a', agencyId: 'b', role: 'owner', agencyActive: true } : null;
const app = express();
app.use('/v1/agency/webhooks', createWebhooksRouter({ service: webhooks, authenticate }));
app.post('/hooks', express.raw({ type: 'application/json' }), verifyWebhookMiddleware({ secret: 'x' }));

const envelope: WebhookEnvelope = verifyWebhook('{}', signWebhook('{}', 's'), 's');
const status: DeliveryStatus = 'pending';
const fromEdge: Promise<WebhookEnvelope> = verifyWebhookAsync('{}', undefined, 's');
const handler: (request: Request) => Promise<Response> = webhookHandler('s', async () => new Response());
const factories = [createPgStore, createPgQueue, migrate, createRedisStore, createRedisQueue] as const;

const body: { webhookUrl: string } = putConfigBodySchema.parse({
  webhookUrl: 'https://example.com/hooks',
  enabled: true,
  subscribedEventTypes: [],
});
const raced: Promise<DeadlineResult<number>> = withinDeadline(Promise.resolve(1), 10);

export { body, envelope, factories, fromEdge, handler, raced, status, stopObserving };
