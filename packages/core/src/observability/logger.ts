import type { DeliveryRecord } from '../delivery/delivery';
import { RECEIVER_GONE } from '../delivery/endpoint-health';
import type { WebhookAttemptEvent, WebhookHooks, WorkerErrorStage } from './hooks';

/**
 * The logger the service writes to: the subset of pino's API it uses, so a pino
 * logger (or any logger with `level(fields, message)` methods) fits as is.
 *
 * @remarks What is logged, and at which level: every recorded attempt at
 * `debug`, every delivery that ends `failed` at `warn`, every store or queue
 * failure inside a worker at `error`; an endpoint's health change at `info`, and
 * a configuration disabled automatically at `warn`, a retention round that deleted
 * old deliveries at `info`. Fields are ids, event type, attempt number,
 * status code, error kind and durations: never a signing secret, never a request
 * or response body. The attempt line also carries `errorDetail`, the raw network
 * error (which may name internal addresses and ports) that the agency is never shown.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * const webhooks = createWebhookService({ store, queue, logger: pino({ level: 'info' }) });
 * ```
 */
export interface WebhookLogger {
  /** Verbose, per-attempt detail. */
  debug(fields: Record<string, unknown>, message: string): void;
  /** Notable but expected events. */
  info(fields: Record<string, unknown>, message: string): void;
  /** Something a person may want to look at (a delivery gave up). */
  warn(fields: Record<string, unknown>, message: string): void;
  /** Something is broken (the store or the queue failed). */
  error(fields: Record<string, unknown>, message: string): void;
  /** When present, called once to tag every line with `{ component: 'webhooks' }`. */
  child?(bindings: Record<string, unknown>): WebhookLogger;
}

/**
 * Turns a logger into hooks. Each log line is built from an explicit list of
 * fields rather than by spreading records, so a secret or a body added to a
 * record later can never leak into the logs by accident.
 */
export function createLoggingHooks(logger: WebhookLogger): WebhookHooks {
  const log = logger.child ? logger.child({ component: 'webhooks' }) : logger;
  return {
    onAttempt: (event) => log.debug(attemptFields(event), 'webhook attempt recorded'),
    onFailed: (delivery) => log.warn(failedFields(delivery), 'webhook delivery failed'),
    onCircuitChange: ({ circuit, previous }) => {
      const fields = {
        agencyId: circuit.agencyId,
        status: circuit.status,
        previous,
        consecutiveFailures: circuit.consecutiveFailures,
        openUntil: circuit.openUntil,
      };
      if (circuit.status === 'open')
        log.warn(fields, 'webhook circuit opened: deliveries of the agency wait');
      else log.info(fields, `webhook circuit ${circuit.status === 'closed' ? 'closed' : 'probing'}`);
    },
    onEndpointHealthChange: ({ agencyId, previous, current, health }) =>
      log.info(
        {
          agencyId,
          state: current,
          previous,
          consecutiveFailures: health.consecutiveFailures,
          failingSince: health.failingSince,
        },
        `webhook endpoint ${current}`,
      ),
    onEndpointDisabled: (event) =>
      log.warn(
        {
          agencyId: event.agencyId,
          reason: event.reason,
          failingSince: event.failingSince,
          disabledAt: event.disabledAt,
        },
        event.reason === RECEIVER_GONE
          ? 'webhook endpoint disabled: the receiver answered 410 Gone; the agency must enable it again to resume'
          : 'webhook endpoint disabled: every attempt failed for too long; the agency must fix it and enable it again',
      ),
    onPurge: ({ success, failed, recoveries, batches, durationMs }) =>
      log.info(
        { success, failed, recoveries, batches, durationMs },
        'webhook retention deleted old deliveries',
      ),
    onError: (error, context) =>
      log.error(workerErrorFields(error, context), 'webhook worker: a store or queue call failed'),
  };
}

/** Fields of the `debug` line written after each recorded attempt. */
function attemptFields(event: WebhookAttemptEvent): Record<string, unknown> {
  const { delivery, outcome } = event;
  return {
    deliveryId: delivery.id,
    agencyId: delivery.agencyId,
    eventType: delivery.eventType,
    attempt: delivery.attempt,
    status: delivery.status,
    statusCode: outcome.statusCode,
    errorKind: outcome.errorKind,
    error: outcome.errorMessage,
    // The raw cause (addresses, ports, OpenSSL text) the agency never sees: this line is where it goes.
    errorDetail: outcome.errorDetail ?? null,
    durationMs: outcome.durationMs,
    queueLagMs: Math.max(0, event.claimedAt - event.runAt),
    nextRetryAt: delivery.nextRetryAt,
  };
}

/** Fields of the `warn` line written when a delivery ends `failed`. */
function failedFields(delivery: DeliveryRecord): Record<string, unknown> {
  return {
    deliveryId: delivery.id,
    agencyId: delivery.agencyId,
    eventType: delivery.eventType,
    attempt: delivery.attempt,
    lastResponseCode: delivery.lastResponseCode,
    lastError: delivery.lastErrorMessage,
  };
}

/** Fields of the `error` line written when a worker's store or queue call fails. */
function workerErrorFields(
  error: unknown,
  context: { stage: WorkerErrorStage; deliveryId?: string },
): Record<string, unknown> {
  // `err` is the key pino's standard serializer expands (name, message, stack).
  return { err: error, stage: context.stage, deliveryId: context.deliveryId ?? null };
}
