import { hostResolver } from '@svc/test-support';
import {
  createEventCatalogue,
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  type DeliveryQueue,
  type DeliveryRecord,
  defineEvent,
  type PutConfigBody,
  type QueueEntry,
  type WebhookService,
  type WebhookServiceOptions,
} from '@svc/webhooks-core';
import { makeDeliveryRecord } from '@svc/webhooks-core/testing';
import express, { type Express } from 'express';
import { z } from 'zod';
import { type AuthenticatedAgent, createWebhooksRouter, type WebhooksRouterOptions } from '../src/index';

export const BASE = '/v1/agency/webhooks';

/** Tokens of the test `authenticate`, one per authorization case. */
export const TOKENS = {
  owner: 'tok-owner-1',
  admin: 'tok-admin-1',
  agent: 'tok-agent-1',
  otherOwner: 'tok-owner-2',
  inactiveOwner: 'tok-owner-3-inactive',
} as const;

const AGENTS: Record<string, AuthenticatedAgent> = {
  [TOKENS.owner]: { agentId: 'agent-o1', agencyId: 'agency-1', role: 'owner', agencyActive: true },
  [TOKENS.admin]: { agentId: 'agent-a1', agencyId: 'agency-1', role: 'admin', agencyActive: true },
  [TOKENS.agent]: { agentId: 'agent-g1', agencyId: 'agency-1', role: 'agent', agencyActive: true },
  [TOKENS.otherOwner]: { agentId: 'agent-o2', agencyId: 'agency-2', role: 'owner', agencyActive: true },
  [TOKENS.inactiveOwner]: { agentId: 'agent-o3', agencyId: 'agency-3', role: 'owner', agencyActive: false },
};

/** A hostname the fake resolver maps to a public address: PUT accepts it and nothing ever connects to it. */
export const PUBLIC_URL = 'https://hooks.example.test/webhooks';
/** Resolves to a private address: refused with `private_address`. */
export const PRIVATE_URL = 'https://internal.example.test/webhooks';

/** Fake DNS for the URL policy (no real lookups in tests). */
export const fakeResolve = hostResolver({
  'hooks.example.test': '93.184.216.34',
  'other.example.test': '93.184.216.35',
  'internal.example.test': '10.0.0.5',
});

/** A response the router sent, as the test app saw it leave. */
export interface RecordedResponse {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/** A queue that remembers what was enqueued, so tests can prove a refused request enqueued nothing. */
export interface RecordingQueue extends DeliveryQueue {
  readonly enqueued: QueueEntry[];
}

function recordingQueue(inner: DeliveryQueue): RecordingQueue {
  const enqueued: QueueEntry[] = [];
  return {
    capabilities: inner.capabilities,
    enqueued,
    enqueue: async (entry, options) => {
      await inner.enqueue(entry, options);
      enqueued.push(entry);
    },
    claim: (options) => inner.claim(options),
    renew: (claim, leaseMs, now) => inner.renew(claim, leaseMs, now),
    ack: (claim) => inner.ack(claim),
    reschedule: (claim, runAt) => inner.reschedule(claim, runAt),
    waitForWork: (options) => inner.waitForWork(options),
  };
}

/** The app under test: a host app with the router mounted, a host route after it, and a response recorder. */
export interface Harness {
  app: Express;
  service: WebhookService;
  queue: RecordingQueue;
  responses: RecordedResponse[];
  /** Errors the router reported to `onError`. */
  reported: unknown[];
  /** Seeds a delivery straight into the store (any status), for the delivery endpoints. */
  seedDelivery(overrides: Partial<DeliveryRecord>): Promise<DeliveryRecord>;
  /** Everything a request could change: configs (secret included) and deliveries of every agency, and the queue. */
  snapshot(): Promise<string>;
}

export interface HarnessOptions {
  service?: Omit<WebhookServiceOptions, 'store' | 'queue'>;
  router?: Partial<WebhooksRouterOptions>;
}

export function createHarness(options: HarnessOptions = {}): Harness {
  const queue = recordingQueue(createMemoryQueue());
  const service = createWebhookService({
    urlPolicy: { resolve: fakeResolve },
    ...options.service,
    store: createMemoryStore(),
    queue,
  });
  const responses: RecordedResponse[] = [];
  const reported: unknown[] = [];
  const app = express();
  app.use((req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      responses.push({
        method: req.method,
        path: req.originalUrl.split('?')[0] ?? '',
        status: res.statusCode,
        body,
      });
      return json(body);
    };
    next();
  });
  app.use(
    BASE,
    createWebhooksRouter({
      service,
      authenticate: async (token) => AGENTS[token] ?? null,
      onError: (error) => reported.push(error),
      ...options.router,
    }),
  );
  // Anything reaching the host after the router proves a fall-through.
  app.use((_req, res) => {
    res.status(418).send('host fallback');
  });
  return {
    app,
    service,
    queue,
    responses,
    reported,
    async seedDelivery(overrides) {
      const { delivery } = await service.store.insertDelivery(makeDeliveryRecord(overrides));
      return delivery;
    },
    async snapshot() {
      const agencies = ['agency-1', 'agency-2', 'agency-3'];
      const state = await Promise.all(
        agencies.map(async (agencyId) => ({
          config: await service.store.getConfig(agencyId),
          deliveries: await service.store.listDeliveries(agencyId, { limit: 1000 }),
        })),
      );
      return JSON.stringify({ state, enqueued: queue.enqueued });
    },
  };
}

/**
 * A valid PUT /config body for the public test URL, with `overrides` applied.
 * Typed as valid even when an override breaks it on purpose (the invalid-body tests).
 */
export function configBody(overrides: Record<string, unknown> = {}): PutConfigBody {
  return {
    webhookUrl: PUBLIC_URL,
    enabled: true,
    subscribedEventTypes: ['job_created', 'job_cancelled'],
    ...overrides,
  } as PutConfigBody;
}

/** Metadata of a valid job_cancelled event for `agencyId`. */
export function jobCancelledInput(agencyId: string, jobNumber = 7) {
  return {
    agencyId,
    eventType: 'job_cancelled' as const,
    entityId: `job-${jobNumber}`,
    metadata: { jobId: `job-${jobNumber}`, agencyId, jobNumber, reason: 'Duplicate request' },
  };
}

/** A host's catalogue of one event type of its own (`invoice_paid`, no description, no example), no built-ins. */
export function invoicePaidOnlyCatalogue() {
  return createEventCatalogue(
    [
      defineEvent({
        type: 'invoice_paid',
        entityType: 'invoice',
        metadata: z.object({ invoiceId: z.string() }),
      }),
    ],
    { includeBuiltIns: false },
  );
}
