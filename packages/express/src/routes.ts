import type {
  PutConfigBody,
  RecoverDeliveriesBody,
  SendTestBody,
  WebhookConfig,
  WebhookService,
} from '@svc/webhooks-core';
import { listEventTypes } from '@svc/webhooks-core';
import {
  attemptListSchema,
  deliveryDetailSchema,
  deliveryListSchema,
  endpointHealthSchema,
  eventTypeListSchema,
  listDeliveriesQuerySchema,
  listRecoveriesQuerySchema,
  putConfigBodySchema,
  recoverDeliveriesBodySchema,
  recoveryDryRunSchema,
  recoveryListSchema,
  recoverySchema,
  recoveryStartedSchema,
  replayResultSchema,
  rotatedSecretSchema,
  sendTestBodySchema,
  testResultSchema,
  webhookConfigSchema,
} from '@svc/webhooks-core/schemas';
import type { Request } from 'express';
import type { WebhookApiErrorCode } from './errors';

/**
 * A schema that can describe itself as JSON Schema: what the OpenAPI document
 * needs from core's zod schemas (kept structural so this package needs no zod import).
 */
export interface JsonSchemaSource {
  toJSONSchema(params?: { target?: 'draft-2020-12'; io?: 'input' | 'output' }): object;
}

/** What a handler answers: a status and a JSON body. */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

/** One success response of a route, for the OpenAPI document. */
export interface RouteResponse {
  status: number;
  description: string;
  schema: JsonSchemaSource;
}

/**
 * One endpoint of the management API. The router mounts exactly these and the
 * OpenAPI document describes exactly these, so the two cannot drift apart.
 */
export interface ApiRoute {
  method: 'get' | 'put' | 'post';
  /** Express path under the mount point, such as `/deliveries/:id`. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  /** JSON request body; the router requires `application/json` and parses it. */
  body?: JsonSchemaSource;
  /**
   * The body may be left out: a request without one (no `Content-Length` or 0, no `Transfer-Encoding`)
   * reaches the handler with `req.body` undefined; one with a body is parsed as above.
   */
  bodyOptional?: boolean;
  /** Query parameters (the service validates them with this same schema). */
  query?: JsonSchemaSource;
  /** Descriptions of parameters for the document, by name (the schemas describe values, not their use). */
  parameterDescriptions?: Readonly<Record<string, string>>;
  responses: readonly RouteResponse[];
  /** Error codes this route can answer besides the ones every route can (401, 403, 500). */
  errors: readonly WebhookApiErrorCode[];
  /** Serves the request for the authenticated agency; the service validates the input. */
  handle(service: WebhookService, agencyId: string, req: Request): Promise<RouteAnswer>;
}

/** Error codes every route can answer: a repeated `authorization` header, authentication, role, and the generic 500. */
export const COMMON_ERROR_CODES: readonly WebhookApiErrorCode[] = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'agency_inactive',
  'internal_error',
];

/** Error codes of reading a JSON body, added to every route that takes one. */
export const BODY_ERROR_CODES: readonly WebhookApiErrorCode[] = [
  'invalid_json',
  'invalid_request',
  'payload_too_large',
  'unsupported_media_type',
];

/**
 * The configuration object exactly as the spec lists it. The service's result
 * carries more (`created`); picking the fields keeps anything else out of answers.
 */
export function toConfigBody(config: WebhookConfig): WebhookConfig {
  return {
    id: config.id,
    webhookUrl: config.webhookUrl,
    signingSecret: config.signingSecret,
    enabled: config.enabled,
    subscribedEventTypes: config.subscribedEventTypes,
  };
}

/** The path parameter `id`; Express always sets it on the routes that declare it. */
function idParam(req: Request): string {
  return String(req.params.id);
}

const putConfig: ApiRoute = {
  method: 'put',
  path: '/config',
  operationId: 'putWebhookConfig',
  summary: 'Create or update the configuration',
  description:
    'Creates the agency’s webhook configuration (201, signing secret in full, shown this once) or replaces its URL, enabled flag and subscriptions (200, secret masked and unchanged). The URL must be https and resolve to public addresses only.',
  body: putConfigBodySchema,
  responses: [
    { status: 201, description: 'Created; `signingSecret` is the full secret.', schema: webhookConfigSchema },
    { status: 200, description: 'Updated; `signingSecret` is masked.', schema: webhookConfigSchema },
  ],
  errors: ['validation_failed', 'invalid_webhook_url', 'unknown_event_type', ...BODY_ERROR_CODES],
  async handle(service, agencyId, req) {
    const { created, ...config } = await service.putConfig(agencyId, req.body as PutConfigBody);
    return { status: created ? 201 : 200, body: toConfigBody(config) };
  },
};

const getConfig: ApiRoute = {
  method: 'get',
  path: '/config',
  operationId: 'getWebhookConfig',
  summary: 'Read the configuration',
  description: 'The agency’s webhook configuration, with `signingSecret` masked.',
  responses: [{ status: 200, description: 'The configuration.', schema: webhookConfigSchema }],
  errors: ['config_not_found'],
  async handle(service, agencyId) {
    return { status: 200, body: toConfigBody(await service.getConfig(agencyId)) };
  },
};

const rotateSecret: ApiRoute = {
  method: 'post',
  path: '/config/rotate-secret',
  operationId: 'rotateWebhookSecret',
  summary: 'Generate a new signing secret',
  description:
    'Replaces the signing secret and returns the new one in full (shown this once). The previous secret stops signing at once, also for deliveries already queued.',
  responses: [{ status: 200, description: 'The new secret.', schema: rotatedSecretSchema }],
  errors: ['config_not_found'],
  async handle(service, agencyId) {
    return { status: 200, body: await service.rotateSecret(agencyId) };
  },
};

const sendTest: ApiRoute = {
  method: 'post',
  path: '/config/test',
  operationId: 'sendWebhookTest',
  summary: 'Send a test event',
  description:
    'Sends one signed `webhook_test` event to the configured URL now, enabled or not, and reports what the receiver answered. With a body `{ "eventType": "…" }`, sends that event type’s example envelope instead (the configuration must subscribe to it; see the `webhooks` of this document); without a body, or with `webhook_test`, the `webhook_test` event. The URL is checked against the URL policy again before sending. No retry; not added to the delivery log. A receiver that refuses it is still a 200 answer with `success: false`.',
  body: sendTestBodySchema,
  bodyOptional: true,
  responses: [{ status: 200, description: 'What the receiver answered.', schema: testResultSchema }],
  errors: [
    'config_not_found',
    'rate_limited',
    'validation_failed',
    'unknown_event_type',
    ...BODY_ERROR_CODES,
  ],
  async handle(service, agencyId, req) {
    return { status: 200, body: await service.sendTest(agencyId, req.body as SendTestBody | undefined) };
  },
};

const listDeliveries: ApiRoute = {
  method: 'get',
  path: '/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: 'List deliveries',
  description:
    'The agency’s deliveries in summary form, newest first. Filters combine (all must match): `status`, `eventType`, `entityId`, and the creation window `since` (inclusive) to `until` (exclusive). Pass `nextCursor` as `cursor` for the next page, with the same filters; it is null on the last page.',
  query: listDeliveriesQuerySchema,
  parameterDescriptions: {
    status: 'Only deliveries in this state: `pending`, `success` or `failed`.',
    eventType:
      'Only deliveries of this event type, such as `job_created`. Any well-formed type, subscribed or not (the deliveries of a type no longer subscribed are still listed).',
    entityId: 'Only deliveries about this entity (the event’s `entityId`, exact match).',
    since:
      'Only deliveries created at or after this time (inclusive): epoch milliseconds, in plain decimal digits.',
    until:
      'Only deliveries created before this time (exclusive): epoch milliseconds, in plain decimal digits. Must not be earlier than `since`; equal to it, the window is empty.',
    limit: 'Most deliveries to return, 1 to 100.',
    cursor: 'The `nextCursor` of the previous page.',
  },
  responses: [{ status: 200, description: 'One page of deliveries.', schema: deliveryListSchema }],
  errors: ['validation_failed'],
  async handle(service, agencyId, req) {
    return { status: 200, body: await service.listDeliveries(agencyId, req.query) };
  },
};

const getDelivery: ApiRoute = {
  method: 'get',
  path: '/deliveries/:id',
  operationId: 'getWebhookDelivery',
  summary: 'Read one delivery',
  description: 'One delivery in detail form. Another agency’s delivery id answers 404, like an unknown one.',
  responses: [{ status: 200, description: 'The delivery.', schema: deliveryDetailSchema }],
  parameterDescriptions: { id: 'Delivery identifier.' },
  errors: ['delivery_not_found'],
  async handle(service, agencyId, req) {
    return { status: 200, body: await service.getDelivery(agencyId, idParam(req)) };
  },
};

const replayDelivery: ApiRoute = {
  method: 'post',
  path: '/deliveries/:id/replay',
  operationId: 'replayWebhookDelivery',
  summary: 'Re-enqueue a failed delivery',
  description:
    'Puts a `failed` delivery back on the queue for one more attempt: its status becomes `pending` and the attempt counter continues (attempt 6 after 5). Answered 202 because the attempt happens later, on a worker.',
  responses: [{ status: 202, description: 'Re-enqueued.', schema: replayResultSchema }],
  parameterDescriptions: { id: 'Identifier of a `failed` delivery.' },
  errors: ['delivery_not_found', 'delivery_not_replayable'],
  async handle(service, agencyId, req) {
    return { status: 202, body: await service.replay(agencyId, idParam(req)) };
  },
};

const listDeliveryAttempts: ApiRoute = {
  method: 'get',
  path: '/deliveries/:id/attempts',
  operationId: 'listWebhookDeliveryAttempts',
  summary: 'List a delivery’s attempts',
  description:
    'Every attempt of one delivery, oldest first: why it was made (`automatic`, `replay` or `recovery`), when, how long it took, the status code, the error kind and message, and the first bytes of the answer (written by the receiver: show it as text). Kept as long as the delivery. Another agency’s delivery id answers 404, like an unknown one.',
  responses: [{ status: 200, description: 'The delivery’s attempts.', schema: attemptListSchema }],
  parameterDescriptions: { id: 'Delivery identifier.' },
  errors: ['delivery_not_found'],
  async handle(service, agencyId, req) {
    return { status: 200, body: await service.listAttempts(agencyId, idParam(req)) };
  },
};

const recoverDeliveries: ApiRoute = {
  method: 'post',
  path: '/deliveries/recover',
  operationId: 'recoverWebhookDeliveries',
  summary: 'Replay the failed deliveries of a time window',
  description:
    'Bulk recovery: gives every `failed` delivery created from `since` (inclusive) to `until` (exclusive; default now), of `eventTypes` when given, one more attempt, each as a replay does. With `dryRun: true`, only counts them (200). Otherwise stores the recovery and answers 202 with its id; workers replay its deliveries in pages, within the agency’s in-flight limit, and resume it after a crash. Follow it with `GET /recoveries/{id}`. One recovery runs at a time per agency (409 `recovery_in_progress`).',
  body: recoverDeliveriesBodySchema,
  responses: [
    {
      status: 202,
      description: 'Started; follow it with `GET /recoveries/{id}`.',
      schema: recoveryStartedSchema,
    },
    {
      status: 200,
      description: 'Dry run: how many failed deliveries match now.',
      schema: recoveryDryRunSchema,
    },
  ],
  errors: ['validation_failed', 'recovery_in_progress', ...BODY_ERROR_CODES],
  async handle(service, agencyId, req) {
    const result = await service.recoverDeliveries(agencyId, req.body as RecoverDeliveriesBody);
    return { status: 'recoveryId' in result ? 202 : 200, body: result };
  },
};

const getRecovery: ApiRoute = {
  method: 'get',
  path: '/recoveries/:id',
  operationId: 'getWebhookRecovery',
  summary: 'Read a bulk recovery’s progress',
  description:
    'A bulk recovery: `running`, `completed` or `cancelled`, how many failed deliveries it matched when it started and how many it has replayed. Another agency’s recovery id answers 404, like an unknown one.',
  responses: [{ status: 200, description: 'The recovery.', schema: recoverySchema }],
  parameterDescriptions: { id: 'Recovery identifier (`recoveryId` of the start answer).' },
  errors: ['recovery_not_found'],
  async handle(service, agencyId, req) {
    return { status: 200, body: await service.getRecovery(agencyId, idParam(req)) };
  },
};

const listRecoveries: ApiRoute = {
  method: 'get',
  path: '/recoveries',
  operationId: 'listWebhookRecoveries',
  summary: 'List bulk recoveries',
  description:
    'The agency’s bulk recoveries of every status (`running`, `completed`, `cancelled`), newest first, each as `GET /recoveries/{id}` answers it: the history of what was replayed after past outages. Pass `nextCursor` as `cursor` for the next page; it is null on the last page.',
  query: listRecoveriesQuerySchema,
  parameterDescriptions: {
    limit: 'Most recoveries to return, 1 to 100.',
    cursor: 'The `nextCursor` of the previous page.',
  },
  responses: [{ status: 200, description: 'One page of recoveries.', schema: recoveryListSchema }],
  errors: ['validation_failed'],
  async handle(service, agencyId, req) {
    return { status: 200, body: await service.listRecoveries(agencyId, req.query) };
  },
};

const cancelRecovery: ApiRoute = {
  method: 'post',
  path: '/recoveries/:id/cancel',
  operationId: 'cancelWebhookRecovery',
  summary: 'Cancel a running bulk recovery',
  description:
    'Stops a running recovery: no further deliveries are replayed (the page a worker is replaying finishes); replays made already stay queued. Cancelling a cancelled recovery answers it unchanged; a completed one answers 409 `recovery_not_running`.',
  responses: [{ status: 200, description: 'The recovery, cancelled.', schema: recoverySchema }],
  parameterDescriptions: { id: 'Recovery identifier.' },
  errors: ['recovery_not_found', 'recovery_not_running'],
  async handle(service, agencyId, req) {
    return { status: 200, body: await service.cancelRecovery(agencyId, idParam(req)) };
  },
};

const getEndpointHealth: ApiRoute = {
  method: 'get',
  path: '/config/health',
  operationId: 'getWebhookEndpointHealth',
  summary: 'Read the endpoint’s health',
  description:
    'Whether deliveries to the configured URL get through: `healthy`, `failing` (every attempt since `failingSince` went without a 2xx: a timeout, a connection, DNS or TLS error, any other status, or a URL the policy refused) or `disabled`. A configuration whose attempts all failed for the service’s `autoDisable.afterMs` (5 days by default) is disabled with `disabledReason: auto_disabled_failing`; a PUT of the configuration with `enabled: true` enables it again and clears its health.',
  responses: [{ status: 200, description: 'The endpoint’s health.', schema: endpointHealthSchema }],
  errors: ['config_not_found'],
  async handle(service, agencyId) {
    return { status: 200, body: await service.getEndpointHealth(agencyId) };
  },
};

const listSubscribableEventTypes: ApiRoute = {
  method: 'get',
  path: '/event-types',
  operationId: 'listWebhookEventTypes',
  summary: 'List the event types',
  description:
    'Every event type a configuration can subscribe to, in the catalogue’s order, with what it means: what a settings page offers as subscriptions. The same for every agency.',
  responses: [{ status: 200, description: 'The event types.', schema: eventTypeListSchema }],
  errors: [],
  async handle(service) {
    return { status: 200, body: listEventTypes(service.events) };
  },
};

/** The spec's seven endpoints, in its order, then the operations API's (design §5.3). */
export const apiRoutes: readonly ApiRoute[] = [
  putConfig,
  getConfig,
  rotateSecret,
  sendTest,
  listDeliveries,
  getDelivery,
  replayDelivery,
  listDeliveryAttempts,
  recoverDeliveries,
  listRecoveries,
  getRecovery,
  cancelRecovery,
  getEndpointHealth,
  listSubscribableEventTypes,
];
