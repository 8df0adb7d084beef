import type { DeliveryQueue } from '../adapters/queue';
import type { TransactionOptions, WebhookStore } from '../adapters/store';
import {
  type PutConfigBody,
  putConfigBodySchema,
  type RotatedSecret,
  type RotatedSigningKey,
  type RotateSigningKeyBody,
  type SigningJwks,
  type TestResult,
  type WebhookConfig,
  type WebhookConfigRecord,
} from '../config/config';
import { generateSigningSecret } from '../config/secret';
import { createSecretCipher } from '../config/secret-encryption';
import type { AttemptOutcome } from '../delivery/attempt-outcome';
import type { AttemptList } from '../delivery/attempt-record';
import { resolveCircuitSettings } from '../delivery/circuit-breaker';
import {
  type DeliveryDetail,
  type DeliveryList,
  type ListDeliveriesQuery,
  listDeliveriesQuerySchema,
  newDeliveryRecord,
  type ReplayResult,
  toDeliverySummary,
  webhookIdOf,
} from '../delivery/delivery';
import { type EndpointHealth, resolveAutoDisable } from '../delivery/endpoint-health';
import { buildTestEnvelope } from '../delivery/envelope';
import { assertDeliverablePayload, DEFAULT_MAX_PAYLOAD_BYTES } from '../delivery/payload-limit';
import type {
  ListRecoveriesQuery,
  RecoverDeliveriesBody,
  Recovery,
  RecoveryDryRun,
  RecoveryList,
  RecoveryStarted,
} from '../delivery/recovery';
import { resolveRetryPolicy } from '../delivery/retry-policy';
import { ConfigNotFoundError } from '../errors';
import { createEventCatalogue, type EmitInput, type EventCatalogue } from '../events/event-catalogue';
import { buildExampleEnvelope } from '../events/event-example';
import { assertSubscribedForTest, chooseTestEvent, type SendTestBody } from '../events/test-send';
import { newId } from '../ids';
import { callHook, combineHooks } from '../observability/hooks';
import { createLoggingHooks } from '../observability/logger';
import type { TransportStats } from '../transport/pinned-pools';
import { buildSignedDelivery } from '../transport/signed-request';
import { createTransport } from '../transport/transport';
import { createUrlPolicy } from '../transport/url-policy';
import { parseWithSchema, positiveIntegerOption } from '../validation';
import { listAttempts } from './attempt-history';
import { cancelRecovery, getRecovery, listRecoveries, startRecovery } from './bulk-recovery';
import { closeAfterTestSend, deliveryDetailOf } from './circuit-access';
import { standardSecretShown, toConfigView } from './config-view';
import { replayDelivery, requireDelivery } from './delivery-access';
import { getEndpointHealth, upsertConfigResettingHealth } from './endpoint-health-access';
import { attachEngine, type Engine } from './engine';
import { decodeListCursor, toListPage } from './list-cursor';
import { createRecoveryLimiter } from './recovery-limit';
import { resolveRetention } from './retention';
import { sealSecretsAtRest } from './sealed-secret-store';
import {
  type ReencryptSecretsOptions,
  type ReencryptSecretsResult,
  reencryptSecrets,
} from './secret-reencryption';
import type { WebhookServiceOptions } from './service-options';
import {
  getPublicKeys,
  putSignatureFields,
  resolveSigningKeyOverlap,
  rotateSigningKey,
} from './signing-key-access';
import { createTestSendLimiter } from './test-send-limit';

export type { WebhookServiceOptions } from './service-options';

/** Result of {@link WebhookService.putConfig}: the configuration view and whether it was created. */
export type PutConfigResult = WebhookConfig & { created: boolean };

/** Options of {@link WebhookService.emit}. */
export type EmitOptions = TransactionOptions;

/** The embeddable webhook service: management operations and `emit`. */
export interface WebhookService<TEvents extends EventCatalogue = EventCatalogue> {
  /** The store as given: with `secretEncryption` it holds sealed secrets, which the service's calls open. */
  readonly store: WebhookStore;
  readonly queue: DeliveryQueue;
  readonly events: TEvents;
  /**
   * Records one delivery of the event for the agency and queues it; no network I/O.
   * Returns null when the agency has no configuration, it is disabled, or it does
   * not subscribe to the event type. With `eventId`, emitting the same event twice
   * returns the first delivery. With `{ transaction }` (adapters with transaction
   * support), the delivery is written in the host's transaction (outbox).
   * Nothing is stored when it throws.
   * @throws UnknownEventTypeError, WebhookValidationError (`validation_failed`: envelope fields, the
   * spec's event rules, metadata JSON cannot serialise; `invalid_metadata`), PayloadTooLargeError
   * (`payload_too_large`: the metadata is over `maxPayloadBytes`)
   */
  emit(input: EmitInput<TEvents>, options?: EmitOptions): Promise<{ deliveryId: string } | null>;
  /** The configuration with its secret masked. @throws ConfigNotFoundError */
  getConfig(agencyId: string): Promise<WebhookConfig>;
  /**
   * Creates (secret returned in full, once, with its `whsec_` form under a Standard Webhooks
   * scheme) or updates (secret masked, unchanged) the configuration. `signatureScheme` and
   * `asymmetricSignatures` are kept when omitted (`'service'` and `false` on create); turning
   * asymmetric signatures on makes an Ed25519 key pair, turning them off drops every key.
   * @throws WebhookValidationError (also `asymmetricSignatures` on under the `'service'` scheme;
   *   nothing is stored), UnknownEventTypeError, InvalidWebhookUrlError
   */
  putConfig(agencyId: string, body: PutConfigBody): Promise<PutConfigResult>;
  /**
   * Replaces the signing secret; the old one stops signing at once. The answer has the new
   * secret in full, and its `whsec_` form under the `'standard'` and `'both'` schemes.
   * @throws ConfigNotFoundError
   */
  rotateSecret(agencyId: string): Promise<RotatedSecret>;
  /**
   * Replaces the active `v1a` (Ed25519) signing key with a new one. The previous key keeps
   * signing beside it (its `v1a` after the new one's) for `overlapMs` (0 to 604_800_000;
   * default: the service's `signingKeyOverlapMs`, one day), then is dropped; 0 drops it at once.
   * Returns the public keys published now, active first.
   * @throws WebhookValidationError (a bad `overlapMs`, or asymmetric signatures off), ConfigNotFoundError
   * @example
   * ```ts
   * const { signingPublicKeys } = await webhooks.rotateSigningKey('agency-1', { overlapMs: 3_600_000 });
   * ```
   */
  rotateSigningKey(agencyId: string, body?: RotateSigningKeyBody): Promise<RotatedSigningKey>;
  /**
   * The agency's public signing keys as a JWK Set (Ed25519, `kid` = `whkey_…`): every key that
   * still signs, active first; `{ keys: [] }` when asymmetric signatures are off. Receivers
   * verify `v1a` signatures with it; the router serves it without the management token.
   * @throws ConfigNotFoundError
   */
  getPublicKeys(agencyId: string): Promise<SigningJwks>;
  /**
   * Sends one signed `webhook_test` event now, whether or not enabled, on a
   * connection closed after the answer; not logged. With `{ eventType }`, sends
   * that type's example envelope instead; the configuration must subscribe to it.
   * @throws ConfigNotFoundError, RateLimitedError (`rate_limited`: past `testSendLimit`; nothing sent),
   *   WebhookValidationError (a malformed body, an unsubscribed type or one without an example),
   *   UnknownEventTypeError
   */
  sendTest(agencyId: string, body?: SendTestBody): Promise<TestResult>;
  /**
   * The agency's deliveries, newest first, optionally filtered by `status`, `eventType`,
   * `entityId` and the creation window `since` (inclusive) to `until` (exclusive, epoch ms).
   * @throws WebhookValidationError (also when `since` is after `until`)
   */
  listDeliveries(agencyId: string, query?: ListDeliveriesQuery): Promise<DeliveryList>;
  /** One delivery in detail form. @throws DeliveryNotFoundError (also for another agency's id) */
  getDelivery(agencyId: string, deliveryId: string): Promise<DeliveryDetail>;
  /** Puts a failed delivery back on the queue for one more attempt. @throws DeliveryNotFoundError, DeliveryNotReplayableError */
  replay(agencyId: string, deliveryId: string): Promise<ReplayResult>;
  /**
   * The delivery's attempt history, oldest first: each attempt's trigger, time, duration and result.
   * @throws DeliveryNotFoundError (also for another agency's id)
   */
  listAttempts(agencyId: string, deliveryId: string): Promise<AttemptList>;
  /**
   * Bulk recovery: one more attempt for every `failed` delivery of the agency created in
   * `since` (inclusive) to `until` (exclusive, default now), of `eventTypes` when given.
   * A dry run only counts them. Otherwise the recovery is stored and this process's and
   * every other worker walks it (durable: a crashed worker's walk is taken over).
   * `eventTypes` must be types the service's catalogue has (built-in or registered), the
   * ones `putConfig` accepts as subscriptions. Dry runs and starts draw on the agency's
   * `recoveryLimit`; a request refused as invalid uses none of it. Nothing is stored when it throws.
   * @throws WebhookValidationError (`validation_failed`: a malformed body, or event types the
   *   catalogue does not have, each named in `details.issues`), RateLimitedError (`rate_limited`:
   *   past `recoveryLimit`), RecoveryInProgressError (`recovery_in_progress`: one runs per agency)
   */
  recoverDeliveries(
    agencyId: string,
    body: RecoverDeliveriesBody & { dryRun: true },
  ): Promise<RecoveryDryRun>;
  recoverDeliveries(
    agencyId: string,
    body: RecoverDeliveriesBody & { dryRun?: false },
  ): Promise<RecoveryStarted>;
  recoverDeliveries(agencyId: string, body: RecoverDeliveriesBody): Promise<RecoveryDryRun | RecoveryStarted>;
  /** A bulk recovery's progress. @throws RecoveryNotFoundError (also for another agency's id) */
  getRecovery(agencyId: string, recoveryId: string): Promise<Recovery>;
  /**
   * The agency's bulk recoveries of every status, newest first, a page at a time
   * (`limit` 1..100, default 20; pass `nextCursor` as `cursor`). @throws WebhookValidationError
   */
  listRecoveries(agencyId: string, query?: ListRecoveriesQuery): Promise<RecoveryList>;
  /**
   * Stops a running bulk recovery; replays made already stay. Idempotent for a cancelled one.
   * @throws RecoveryNotFoundError, RecoveryNotRunningError (`recovery_not_running`: it completed)
   */
  cancelRecovery(agencyId: string, recoveryId: string): Promise<Recovery>;
  /**
   * The endpoint's health: `healthy`, `failing` (every attempt since `failingSince` went
   * without a 2xx) or `disabled`, with its counters and times. @throws ConfigNotFoundError
   */
  getEndpointHealth(agencyId: string): Promise<EndpointHealth>;
  /** Deletes the configuration (deliveries still queued then fail without a request). */
  deleteConfig(agencyId: string): Promise<boolean>;
  /** Live keep-alive pools and sockets of the service's HTTP client, with their caps. */
  transportStats(): TransportStats;
  /**
   * Maintenance: re-seals under the primary key every stored secret that is plaintext or
   * under another key (compare-and-sets: a concurrent rotation wins). Idempotent.
   * @throws InvalidOptionError (no `secretEncryption`), SecretKeyUnavailableError, SecretUndecryptableError
   */
  reencryptSecrets(options?: ReencryptSecretsOptions): Promise<ReencryptSecretsResult>;
  /** Closes the HTTP connection pool. Stores and queues are closed by their owner. */
  close(): Promise<void>;
}

/**
 * Creates the webhook service. Pair it with {@link createWorker} in every process
 * that should send deliveries.
 *
 * @example
 * const webhooks = createWebhookService({ store: createMemoryStore(), queue: createMemoryQueue() });
 * await webhooks.putConfig('agency-1', { webhookUrl: 'https://example.com/hooks', enabled: true, subscribedEventTypes: ['job_created'] });
 */
export function createWebhookService<TEvents extends EventCatalogue = EventCatalogue>(
  options: WebhookServiceOptions<TEvents>,
): WebhookService<TEvents> {
  const urlPolicy = createUrlPolicy(options.urlPolicy);
  const secrets = createSecretCipher(options.secretEncryption);
  const circuit = resolveCircuitSettings(options.circuitBreaker);
  const engine: Engine = {
    store: sealSecretsAtRest(options.store, secrets),
    queue: options.queue,
    events: options.events ?? createEventCatalogue(),
    urlPolicy,
    transport: createTransport({ ...options.transport, urlPolicy }),
    retry: resolveRetryPolicy(options.retry),
    circuit,
    autoDisable: resolveAutoDisable(options.autoDisable, circuit),
    retention: resolveRetention(options.retention, options.store),
    signingKeyOverlapMs: resolveSigningKeyOverlap(options.signingKeyOverlapMs),
    maxPayloadBytes: positiveIntegerOption(
      'maxPayloadBytes',
      options.maxPayloadBytes,
      DEFAULT_MAX_PAYLOAD_BYTES,
    ),
    takeTestSend: createTestSendLimiter(options.testSendLimit),
    takeRecovery: createRecoveryLimiter(options.recoveryLimit),
    hooks: options.logger
      ? combineHooks(options.hooks, createLoggingHooks(options.logger))
      : (options.hooks ?? {}),
    recoveryListeners: new Set(),
    clock: options.clock ?? Date.now,
    random: options.random ?? Math.random,
  };
  const service: WebhookService<TEvents> = {
    store: options.store,
    queue: engine.queue,
    events: engine.events as TEvents,
    emit: (input, emitOptions) => emit(engine, input, emitOptions),
    getConfig: async (agencyId) => toConfigView(await requireConfig(engine, agencyId), false, engine.clock()),
    putConfig: (agencyId, body) => putConfig(engine, agencyId, body),
    rotateSecret: (agencyId) => rotateSecret(engine, agencyId),
    rotateSigningKey: (agencyId, body) => rotateSigningKey(engine, agencyId, body),
    getPublicKeys: (agencyId) => getPublicKeys(engine, agencyId),
    sendTest: (agencyId, body) => sendTest(engine, agencyId, body),
    listDeliveries: (agencyId, query) => listDeliveries(engine, agencyId, query),
    getDelivery: async (agencyId, id) =>
      deliveryDetailOf(engine, await requireDelivery(engine, agencyId, id)),
    replay: (agencyId, id) => replayDelivery(engine, agencyId, id),
    listAttempts: (agencyId, id) => listAttempts(engine, agencyId, id),
    recoverDeliveries: ((agencyId: string, body: RecoverDeliveriesBody) =>
      startRecovery(engine, agencyId, body)) as WebhookService['recoverDeliveries'],
    getRecovery: (agencyId, id) => getRecovery(engine, agencyId, id),
    listRecoveries: (agencyId, query) => listRecoveries(engine, agencyId, query),
    cancelRecovery: (agencyId, id) => cancelRecovery(engine, agencyId, id),
    getEndpointHealth: (agencyId) => getEndpointHealth(engine, agencyId),
    deleteConfig: (agencyId) => engine.store.deleteConfig(agencyId),
    transportStats: () => engine.transport.stats(),
    reencryptSecrets: (reencryptOptions) => reencryptSecrets(options.store, secrets, reencryptOptions),
    close: () => engine.transport.close(),
  };
  attachEngine(service, engine);
  // Problems the queue finds on its own (a wake-up channel that hears nothing) reach the host here.
  engine.queue.reportErrorsTo?.((error) => callHook(engine.hooks.onError, error, { stage: 'queue' }));
  return service;
}

async function emit(
  engine: Engine,
  input: unknown,
  options: EmitOptions | undefined,
): Promise<{ deliveryId: string } | null> {
  const event = engine.events.parseEvent(input);
  // Before the subscription check: an event no receiver could get is the host's bug either way.
  assertDeliverablePayload(event, engine.maxPayloadBytes);
  const config = await engine.store.getConfig(event.agencyId);
  if (!config?.enabled || !config.subscribedEventTypes.includes(event.eventType)) return null;
  const now = engine.clock();
  const record = newDeliveryRecord(event, { id: newId(), now, maxAttempts: engine.retry.maxAttempts });
  const { delivery, created } = await engine.store.insertDelivery(record, options);
  if (created) {
    await engine.queue.enqueue({ deliveryId: delivery.id, agencyId: delivery.agencyId, runAt: now }, options);
  }
  return { deliveryId: delivery.id };
}

async function putConfig(engine: Engine, agencyId: string, body: PutConfigBody): Promise<PutConfigResult> {
  const parsed = parseWithSchema(putConfigBodySchema, body, 'webhook configuration');
  const subscribedEventTypes = [...new Set(parsed.subscribedEventTypes)];
  engine.events.assertKnownTypes(subscribedEventTypes);
  const checked = await engine.urlPolicy.check(parsed.webhookUrl, { agencyId });
  const now = engine.clock();
  // Read only when the body sets a signature field: omitted ones keep what is stored as it is.
  const signing =
    parsed.signatureScheme === undefined && parsed.asymmetricSignatures === undefined
      ? {}
      : putSignatureFields(await engine.store.getConfig(agencyId), parsed, now);
  const { config, created } = await upsertConfigResettingHealth(engine, {
    agencyId,
    // The normalised URL, not the string as typed: what is shown is where deliveries go.
    webhookUrl: checked.url.href,
    enabled: parsed.enabled,
    subscribedEventTypes,
    now,
    newId: newId(),
    newSigningSecret: generateSigningSecret(),
    ...signing,
  });
  return { ...toConfigView(config, created, now), created };
}

async function rotateSecret(engine: Engine, agencyId: string): Promise<RotatedSecret> {
  const signingSecret = generateSigningSecret();
  const updated = await engine.store.setSigningSecret(agencyId, signingSecret, engine.clock());
  if (!updated) throw new ConfigNotFoundError(agencyId);
  const standardSigningSecret = standardSecretShown({ ...updated, signingSecret }, true);
  return standardSigningSecret === undefined ? { signingSecret } : { signingSecret, standardSigningSecret };
}

async function sendTest(engine: Engine, agencyId: string, body?: SendTestBody): Promise<TestResult> {
  // The request is checked first, so a bad body is a 400 in any state and spends no test send.
  const chosen = chooseTestEvent(engine.events, body);
  const config = await requireConfig(engine, agencyId);
  if (chosen !== null) assertSubscribedForTest(chosen, config.subscribedEventTypes);
  engine.takeTestSend(agencyId, engine.clock());
  const envelope =
    chosen === null
      ? buildTestEnvelope(agencyId, newId(), engine.clock())
      : buildExampleEnvelope(chosen, { webhookId: webhookIdOf(`test_${newId()}`), now: engine.clock() });
  const outcome = await engine.transport.send(buildSignedDelivery(config.webhookUrl, envelope, config), {
    agencyId,
    oneShot: true,
  });
  // The person's probe: a 2xx releases what the breaker holds; a failure leaves it as it is.
  if (outcome.ok) await closeAfterTestSend(engine, agencyId);
  return { success: outcome.ok, statusCode: outcome.statusCode ?? 0, message: describeTestOutcome(outcome) };
}

/**
 * The test result's `message`. It is built from the outcome's `errorMessage`, the
 * fixed text per error kind (naming the status of a non-2xx answer), never from
 * `errorDetail`: raw network errors would let an agency probe the host's network.
 */
function describeTestOutcome(outcome: AttemptOutcome): string {
  if (outcome.ok) return `Test event delivered: the receiver answered HTTP ${outcome.statusCode}.`;
  const reason = outcome.errorMessage ?? 'The attempt failed.';
  return outcome.statusCode === null
    ? `Test event not delivered. ${reason}`
    : `Test event not accepted. ${reason}`;
}

async function listDeliveries(
  engine: Engine,
  agencyId: string,
  query: ListDeliveriesQuery | undefined,
): Promise<DeliveryList> {
  const { status, eventType, entityId, since, until, limit, cursor } = parseWithSchema(
    listDeliveriesQuerySchema,
    query ?? {},
    'delivery list query',
  );
  const beforeId = cursor === undefined ? undefined : decodeListCursor(cursor);
  const rows = await engine.store.listDeliveries(agencyId, {
    status,
    eventType,
    entityId,
    createdSince: since,
    createdBefore: until,
    limit: limit + 1,
    beforeId,
  });
  const { items, nextCursor } = toListPage(rows, limit, toDeliverySummary);
  return { deliveries: items, nextCursor };
}

async function requireConfig(engine: Engine, agencyId: string): Promise<WebhookConfigRecord> {
  const config = await engine.store.getConfig(agencyId);
  if (!config) throw new ConfigNotFoundError(agencyId);
  return config;
}
