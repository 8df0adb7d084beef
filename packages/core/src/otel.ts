/**
 * `@svc/webhooks-core/otel`: OpenTelemetry spans and metrics for deliveries.
 * Needs `@opentelemetry/api` (an optional peer dependency of core, which is why
 * this lives in its own entry point: the main entry never loads it). Without an
 * OpenTelemetry SDK registered, the API is a no-op and so is all of this.
 *
 * @example
 * ```ts
 * import { createWebhookService, createWorker } from '@svc/webhooks-core';
 * import { createOpenTelemetryHooks, observeWorker } from '@svc/webhooks-core/otel';
 *
 * const webhooks = createWebhookService({ store, queue, hooks: createOpenTelemetryHooks() });
 * const worker = createWorker(webhooks);
 * observeWorker(worker);
 * ```
 *
 * @packageDocumentation
 * @module @svc/webhooks-core/otel
 */
import {
  type Attributes,
  type Meter,
  metrics,
  type ObservableResult,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { DeliveryRecord } from './delivery/delivery';
import type { WebhookAttemptEvent, WebhookHooks } from './observability/hooks';
import type { WebhookWorker } from './worker/worker';

/** Instrumentation scope name of every span and instrument made here. */
export const OTEL_SCOPE = '@svc/webhooks-core';

/** Names of the span and the instruments, for dashboards and tests. */
export const OTEL_NAMES = {
  /** One span per attempt, kind CLIENT, from request start to response end. */
  attemptSpan: 'webhook.attempt',
  /** Counter of attempts by `webhook.outcome` (`success`, `retry`, `failed`) and `webhook.event_type`. */
  attempts: 'webhook.attempts',
  /** Histogram of attempt wall time in seconds. */
  attemptDuration: 'webhook.attempt.duration',
  /** Histogram of queue lag in seconds: claim time minus the time the entry was due. */
  queueLag: 'webhook.queue.lag',
  /** Counter of deliveries reaching a final state, by `webhook.status` (`success`, `failed`). */
  deliveriesCompleted: 'webhook.deliveries.completed',
  /** Gauge of pending deliveries, reported only when `countPending` is given. */
  pending: 'webhook.deliveries.pending',
  /** Gauge of attempts in flight in a worker (see {@link observeWorker}). */
  inFlight: 'webhook.worker.in_flight',
  /**
   * Counter of endpoint health changes, by `webhook.health.state` (the new state:
   * `healthy`, `failing`, `disabled`) and `webhook.health.previous`.
   */
  endpointHealthChanges: 'webhook.endpoint.health_changes',
  /** Counter of configurations disabled automatically, by `webhook.disabled_reason`. */
  endpointsDisabled: 'webhook.endpoint.disabled',
} as const;

/** Options of {@link createOpenTelemetryHooks}. */
export interface OpenTelemetryHooksOptions {
  /**
   * Tracer for the attempt spans.
   * @default trace.getTracer('@svc/webhooks-core'): the globally registered provider
   */
  tracer?: Tracer;
  /**
   * Meter for the instruments.
   * @default metrics.getMeter('@svc/webhooks-core'): the globally registered provider
   */
  meter?: Meter;
  /**
   * How many deliveries are pending right now, read at each metric collection and
   * reported as the `webhook.deliveries.pending` gauge. The store contract has no
   * count (on PostgreSQL it is one indexed query, on Redis a set size), so the
   * host supplies it; without it the gauge is not registered.
   * @default none
   * @example
   * countPending: async () => Number((await pool.query(pendingCountSql)).rows[0].count)
   */
  countPending?: () => number | Promise<number>;
}

/*
 * Buckets in seconds. Attempts are bounded by the 10 s transport budget; queue
 * lag is normally well under a second but grows to minutes when workers fall
 * behind, which is exactly what the upper buckets are there to show.
 */
const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LAG_BUCKETS_S = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

/** The outcome of one recorded attempt, as a low-cardinality label. */
function outcomeOf(delivery: DeliveryRecord): 'success' | 'retry' | 'failed' {
  if (delivery.status === 'success') return 'success';
  return delivery.status === 'failed' ? 'failed' : 'retry';
}

/** Span attributes: ids belong on spans (one per attempt), never on metrics. */
function spanAttributes(event: WebhookAttemptEvent): Attributes {
  const { delivery, outcome } = event;
  const attributes: Attributes = {
    'webhook.agency_id': delivery.agencyId,
    'webhook.delivery_id': delivery.id,
    'webhook.event_type': delivery.eventType,
    'webhook.attempt': delivery.attempt,
    'webhook.outcome': outcomeOf(delivery),
    'http.request.method': 'POST',
  };
  if (outcome.statusCode !== null) attributes['http.response.status_code'] = outcome.statusCode;
  if (outcome.errorKind !== null) attributes['error.type'] = outcome.errorKind;
  return attributes;
}

/** Metric attributes: only bounded sets of values, so series counts stay small. */
function metricAttributes(event: WebhookAttemptEvent): Attributes {
  const attributes: Attributes = {
    'webhook.event_type': event.delivery.eventType,
    'webhook.outcome': outcomeOf(event.delivery),
  };
  if (event.outcome.errorKind !== null) attributes['error.type'] = event.outcome.errorKind;
  return attributes;
}

/**
 * Records the attempt as a span after the fact, with its real start and end
 * times: the hook runs once the attempt is stored, and a span begun there would
 * measure the bookkeeping instead of the request.
 */
function recordAttemptSpan(tracer: Tracer, event: WebhookAttemptEvent): void {
  const span = tracer.startSpan(OTEL_NAMES.attemptSpan, {
    kind: SpanKind.CLIENT,
    startTime: new Date(event.startedAt),
    attributes: spanAttributes(event),
  });
  if (!event.outcome.ok) {
    // Spans are the operator's, like logs: they get the raw cause where there is one.
    const { errorDetail, errorMessage } = event.outcome;
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorDetail ?? errorMessage ?? 'attempt failed' });
  }
  span.end(new Date(event.startedAt + event.outcome.durationMs));
}

/**
 * Hooks that turn every attempt into a span and metrics. Pass them as the
 * service's `hooks` (merge with your own through `combineHooks`).
 *
 * @example
 * ```ts
 * const webhooks = createWebhookService({
 *   store,
 *   queue,
 *   hooks: createOpenTelemetryHooks({ countPending: () => countPendingDeliveries() }),
 * });
 * ```
 */
export function createOpenTelemetryHooks(options: OpenTelemetryHooksOptions = {}): WebhookHooks {
  const tracer = options.tracer ?? trace.getTracer(OTEL_SCOPE);
  const meter = options.meter ?? metrics.getMeter(OTEL_SCOPE);
  const attempts = meter.createCounter(OTEL_NAMES.attempts, {
    description: 'Delivery attempts, by outcome',
    unit: '{attempt}',
  });
  const duration = meter.createHistogram(OTEL_NAMES.attemptDuration, {
    description: 'Wall time of one delivery attempt',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
  });
  const lag = meter.createHistogram(OTEL_NAMES.queueLag, {
    description: 'Time from when a delivery was due to when a worker claimed it',
    unit: 's',
    advice: { explicitBucketBoundaries: LAG_BUCKETS_S },
  });
  const completed = meter.createCounter(OTEL_NAMES.deliveriesCompleted, {
    description: 'Deliveries that reached success or failed',
    unit: '{delivery}',
  });
  const healthChanges = meter.createCounter(OTEL_NAMES.endpointHealthChanges, {
    description: 'Agencies whose endpoint health moved between healthy, failing and disabled',
    unit: '{change}',
  });
  const disabled = meter.createCounter(OTEL_NAMES.endpointsDisabled, {
    description:
      'Configurations disabled by the service (every attempt failed for too long, or the receiver answered 410 Gone)',
    unit: '{configuration}',
  });
  if (options.countPending) observePending(meter, options.countPending);
  return {
    onAttempt(event) {
      recordAttemptSpan(tracer, event);
      const attributes = metricAttributes(event);
      attempts.add(1, attributes);
      duration.record(event.outcome.durationMs / 1000, attributes);
      lag.record(Math.max(0, event.claimedAt - event.runAt) / 1000, {
        'webhook.event_type': event.delivery.eventType,
      });
    },
    onDelivered: () => completed.add(1, { 'webhook.status': 'success' }),
    onFailed: () => completed.add(1, { 'webhook.status': 'failed' }),
    // Agency ids stay off metrics (unbounded series): the logger and the hook carry them.
    onEndpointHealthChange: ({ previous, current }) =>
      healthChanges.add(1, { 'webhook.health.state': current, 'webhook.health.previous': previous }),
    onEndpointDisabled: ({ reason }) => disabled.add(1, { 'webhook.disabled_reason': reason }),
  };
}

function observePending(meter: Meter, countPending: () => number | Promise<number>): void {
  const gauge = meter.createObservableGauge(OTEL_NAMES.pending, {
    description: 'Deliveries waiting for an attempt (due now or retrying later)',
    unit: '{delivery}',
  });
  gauge.addCallback(async (result: ObservableResult) => {
    try {
      result.observe(await countPending());
    } catch {
      // A failed count skips one data point; it must not break the collection.
    }
  });
}

/** Options of {@link observeWorker}. */
export interface ObserveWorkerOptions {
  /**
   * Meter for the gauge.
   * @default metrics.getMeter('@svc/webhooks-core')
   */
  meter?: Meter;
  /**
   * Attributes of this worker's data points: give each worker in one process its
   * own (e.g. `{ 'webhook.worker': 'a' }`), or their points overwrite each other.
   * @default {}
   */
  attributes?: Attributes;
}

/**
 * Reports the worker's attempts in flight as the `webhook.worker.in_flight`
 * gauge. Returns a function that stops reporting.
 *
 * @example
 * ```ts
 * const worker = createWorker(webhooks);
 * const stopObserving = observeWorker(worker);
 * ```
 */
export function observeWorker(worker: WebhookWorker, options: ObserveWorkerOptions = {}): () => void {
  const meter = options.meter ?? metrics.getMeter(OTEL_SCOPE);
  const gauge = meter.createObservableGauge(OTEL_NAMES.inFlight, {
    description: 'Delivery attempts in flight in a worker',
    unit: '{attempt}',
  });
  const attributes = options.attributes ?? {};
  const callback = (result: ObservableResult) => result.observe(worker.inFlight, attributes);
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
