import {
  combineHooks,
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  createWorker,
  type DeliveryQueue,
  type WebhookService,
  type WebhookServiceOptions,
  type WebhookStore,
  type WebhookWorker,
  type WorkerOptions,
} from '@svc/webhooks-core';
import {
  type Authenticate,
  createWebhooksRouter,
  openApiDocument,
  WEBHOOK_API_BASE_PATH,
} from '@svc/webhooks-express';
import { createWebhooksPortal, type WebhooksPortalOptions } from '@svc/webhooks-express/portal';
import express, { type Express } from 'express';
import { createDemoEmitRouter } from './demo-emit';
import {
  createEndpointDisabledNotifier,
  type EndpointDisabledNotifierOptions,
} from './endpoint-disabled-email';
import { createStaticAuthenticate, DEFAULT_DEMO_TOKENS, parseStaticTokens } from './static-tokens';

/** Where the example host serves the agency portal. */
export const PORTAL_PATH = '/portal';

/** Options of {@link createHostApp}. */
export interface HostAppOptions {
  /** @default createMemoryStore() */
  store?: WebhookStore;
  /** @default createMemoryQueue() */
  queue?: DeliveryQueue;
  /** @default static tokens from `DEMO_TOKENS`, else {@link DEFAULT_DEMO_TOKENS} */
  authenticate?: Authenticate;
  /** Service options besides store and queue (URL policy, retry schedule, TLS for a local receiver). */
  service?: Omit<WebhookServiceOptions, 'store' | 'queue'>;
  /** Worker options. @default {} (the worker's defaults) */
  worker?: WorkerOptions;
  /**
   * Serve `POST /demo/emit` so events can be triggered over HTTP (demos only).
   * @default false
   */
  demoEmit?: boolean;
  /** Where unexpected API errors are logged. @default console.error */
  onError?: (error: unknown) => void;
  /**
   * Serve the agency portal (`<svc-webhooks-portal>`) at `/portal`. The example host takes the agent's
   * token from the page's address (`/portal/#token=tok_owner`); a real host signs agents in with its
   * session cookie (the router's `readToken`) instead.
   * @default false
   */
  portal?: boolean | WebhooksPortalOptions;
  /** E-mail the agency when its endpoint is disabled for failing too long. @default none */
  endpointDisabledNotifier?: EndpointDisabledNotifierOptions;
}

/** A host application: the Express app, its webhook service and its worker. */
export interface HostApp {
  app: Express;
  service: WebhookService;
  worker: WebhookWorker;
  /** Stops the worker (in-flight attempts finish) and closes the service's connection pool. */
  close(): Promise<void>;
}

/**
 * Builds the example host: the management API at `/v1/agency/webhooks`, the
 * OpenAPI document at `/openapi.json`, and a worker (started here) that sends
 * the deliveries. Listening is left to the caller.
 *
 * @example
 * ```ts
 * const host = await createHostApp({ demoEmit: true });
 * const server = host.app.listen(3000);
 * ```
 */
export async function createHostApp(options: HostAppOptions = {}): Promise<HostApp> {
  const notifier = options.endpointDisabledNotifier;
  const service = createWebhookService({
    ...options.service,
    hooks: notifier
      ? combineHooks(options.service?.hooks, createEndpointDisabledNotifier(notifier))
      : options.service?.hooks,
    store: options.store ?? createMemoryStore(),
    queue: options.queue ?? createMemoryQueue(),
  });
  const authenticate =
    options.authenticate ??
    createStaticAuthenticate(parseStaticTokens(process.env.DEMO_TOKENS ?? DEFAULT_DEMO_TOKENS));
  const app = express();
  app.disable('x-powered-by');
  app.use(
    WEBHOOK_API_BASE_PATH,
    createWebhooksRouter({
      service,
      authenticate,
      onError: options.onError ?? ((error) => console.error(error)),
    }),
  );
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  if (options.portal) {
    const portalOptions = options.portal === true ? {} : options.portal;
    app.use(PORTAL_PATH, createWebhooksPortal({ tokenFromFragment: true, ...portalOptions }));
  }
  if (options.demoEmit) app.use(createDemoEmitRouter(service, authenticate));
  const worker = createWorker(service, options.worker);
  await worker.start();
  return {
    app,
    service,
    worker,
    async close() {
      await worker.stop();
      await service.close();
    },
  };
}
