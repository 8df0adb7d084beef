import type {
  PutConfigBody,
  RecoverDeliveriesBody,
  RotateSigningKeyBody,
  SendTestBody,
  WebhookConfig,
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
  rotatedSigningKeySchema,
  rotateSigningKeyBodySchema,
  sendTestBodySchema,
  signingJwksSchema,
  testResultSchema,
  webhookConfigSchema,
} from '@svc/webhooks-core/schemas';
import type { Request } from 'express';
import { listEventTypeSchemas } from './event-type-schemas';
import { type ApiRoute, BODY_ERROR_CODES } from './route-contract';

/**
 * The configuration object: the spec's five fields, then the signature fields.
 * The service's result carries more (`created`); picking the fields keeps
 * anything else out of answers. `standardSigningSecret` is there only when the
 * service shows it (the full secret under a Standard Webhooks scheme).
 */
export function toConfigBody(config: WebhookConfig): WebhookConfig {
  const body: WebhookConfig = {
    id: config.id,
    webhookUrl: config.webhookUrl,
    signingSecret: config.signingSecret,
    enabled: config.enabled,
    subscribedEventTypes: config.subscribedEventTypes,
    signatureScheme: config.signatureScheme,
    asymmetricSignatures: config.asymmetricSignatures,
    signingPublicKeys: config.signingPublicKeys,
  };
  return config.standardSigningSecret === undefined
    ? body
    : { ...body, standardSigningSecret: config.standardSigningSecret };
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
    'Creates the agency’s webhook configuration (201, signing secret in full, shown this once) or replaces its URL, enabled flag and subscriptions (200, secret masked and unchanged). The URL must be https and resolve to public addresses only. `signatureScheme` chooses the signature headers (`service`, the default, `standard` for Standard Webhooks, or `both`); `asymmetricSignatures: true` (with `standard` or `both`) adds Ed25519 `v1a` signatures, whose public keys `GET /public-keys/{agencyId}` serves. Either field left out keeps its stored value (`service` and `false` on create).',
  body: putConfigBodySchema,
  responses: [
    {
      status: 201,
      description:
        'Created; `signingSecret` is the full secret, and `standardSigningSecret` its `whsec_` form under the `standard` and `both` schemes.',
      schema: webhookConfigSchema,
    },
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
    'Replaces the signing secret and returns the new one in full (shown this once), with its `whsec_` form under the `standard` and `both` schemes. The previous secret stops signing at once, also for deliveries already queued.',
  responses: [{ status: 200, description: 'The new secret.', schema: rotatedSecretSchema }],
  errors: ['config_not_found'],
  async handle(service, agencyId) {
    return { status: 200, body: await service.rotateSecret(agencyId) };
  },
};

const rotateSigningKey: ApiRoute = {
  method: 'post',
  path: '/config/rotate-signing-key',
  operationId: 'rotateWebhookSigningKey',
  summary: 'Generate a new Ed25519 signing key',
  description:
    'Makes a new active `v1a` (Ed25519) signing key. The previous key keeps signing beside it for `overlapMs` (default: the service’s `signingKeyOverlapMs`, one day; `0` stops it at once; at most 7 days), so receivers that cache the public keys have time to fetch the new one. The body is optional. Needs asymmetric signatures on (`400 validation_failed` otherwise). Answers the public keys published now, active first; the private keys never leave the service.',
  body: rotateSigningKeyBodySchema,
  bodyOptional: true,
  responses: [
    { status: 200, description: 'The public keys published now.', schema: rotatedSigningKeySchema },
  ],
  errors: ['config_not_found', 'validation_failed', ...BODY_ERROR_CODES],
  async handle(service, agencyId, req) {
    return {
      status: 200,
      body: await service.rotateSigningKey(agencyId, req.body as RotateSigningKeyBody | undefined),
    };
  },
};

/** How long receivers and proxies may cache the public keys: a rotation's overlap (a day by default) dwarfs it. */
export const PUBLIC_KEYS_CACHE_CONTROL = 'public, max-age=300';

const getPublicKeys: ApiRoute = {
  method: 'get',
  path: '/public-keys/:agencyId',
  operationId: 'getWebhookPublicKeys',
  access: 'public',
  optionalUnder: 'publicKeys',
  summary: 'Read an agency’s public signing keys (no token)',
  description:
    'The JWK Set (RFC 7517; Ed25519 keys as RFC 8037 `OKP`) receivers verify `v1a` signatures with: every key that still signs, active first, `kid` = `whkey_…`. `{ "keys": [] }` when the agency has asymmetric signatures off; 404 `config_not_found` when it has no configuration. Served without the management token, to anyone: public keys are not secrets. Cacheable for 5 minutes. A host can leave this endpoint out (router option `publicKeys: false`; it then answers 404 `not_found`) and publish the keys its own way.',
  parameterDescriptions: { agencyId: 'The agency whose keys to read.' },
  responses: [
    {
      status: 200,
      description: 'The agency’s public signing keys.',
      schema: signingJwksSchema,
      headers: { 'Cache-Control': PUBLIC_KEYS_CACHE_CONTROL },
    },
  ],
  // `not_found`: the host left the endpoint out (`publicKeys: false`), as for any unknown path.
  errors: ['config_not_found', 'not_found'],
  async handle(service, agencyId) {
    return { status: 200, body: await service.getPublicKeys(agencyId) };
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
    'Bulk recovery: gives every `failed` delivery created from `since` (inclusive) to `until` (exclusive; default now), of `eventTypes` when given, one more attempt, each as a replay does. With `dryRun: true`, only counts them (200). Otherwise stores the recovery and answers 202 with its id; workers replay its deliveries in pages, within the agency’s in-flight limit, and resume it after a crash. Follow it with `GET /recoveries/{id}`. One recovery runs at a time per agency (409 `recovery_in_progress`). `eventTypes` must be types of `GET /event-types`; any other is refused with 400 `validation_failed`, each named in `details.issues`, and nothing is counted or started. Dry runs and starts share a per-agency allowance (the service’s `recoveryLimit`, by default 5 in a burst, then one every 12 s); past it 429 `rate_limited` with `Retry-After`, and nothing is counted or started. A refused request (400) uses none of it.',
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
  errors: ['validation_failed', 'recovery_in_progress', 'rate_limited', ...BODY_ERROR_CODES],
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

/** The spec's seven endpoints, in its order, then the operations API's (design §5.3), then the signing keys' (§6.3). */
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
  listEventTypeSchemas,
  rotateSigningKey,
  getPublicKeys,
];
