import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type HrTime, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  type DataPoint,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { combineHooks } from '../src/index';
import { createOpenTelemetryHooks, OTEL_NAMES, observeWorker } from '../src/otel';

/** A reader that collects only when asked: the test decides when to look. */
class OnDemandMetricReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

function findMetric(resourceMetrics: ResourceMetrics, name: string) {
  const metric = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((candidate) => candidate.descriptor.name === name);
  if (!metric) throw new Error(`metric ${name} was not collected`);
  return metric.dataPoints as DataPoint<unknown>[];
}

const toMs = ([seconds, nanos]: HrTime) => seconds * 1000 + nanos / 1e6;

let harness: ServiceHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('createOpenTelemetryHooks through a real HTTPS delivery', () => {
  it('records a span per attempt and the attempt, duration, lag, completion and gauge metrics', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const reader = new OnDemandMetricReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const meter = meterProvider.getMeter('test');
    const hooks = createOpenTelemetryHooks({
      tracer: tracerProvider.getTracer('test'),
      meter,
      countPending: () => 3,
    });
    harness = await startServiceHarness({ service: { hooks: combineHooks(hooks) } });
    const stopObserving = observeWorker(harness.worker, { meter, attributes: { 'webhook.worker': 'w1' } });
    await harness.configure('agency-otel');
    let calls = 0;
    harness.receiver.respond(() => (++calls === 1 ? { status: 503 } : { status: 200 }));

    const emitted = await harness.webhooks.emit(jobCancelled('agency-otel'));
    const delivery = await harness.waitForStatus('agency-otel', emitted!.deliveryId, 'success');

    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual([OTEL_NAMES.attemptSpan, OTEL_NAMES.attemptSpan]);
    const [first, second] = spans;
    expect(first!.kind).toBe(SpanKind.CLIENT);
    expect(first!.attributes).toMatchObject({
      'webhook.agency_id': 'agency-otel',
      'webhook.delivery_id': emitted!.deliveryId,
      'webhook.event_type': 'job_cancelled',
      'webhook.attempt': 1,
      'webhook.outcome': 'retry',
      'http.response.status_code': 503,
      'error.type': 'http_status',
    });
    expect(first!.status.code).toBe(SpanStatusCode.ERROR);
    expect(second!.attributes).toMatchObject({ 'webhook.attempt': 2, 'webhook.outcome': 'success' });
    expect(second!.status.code).not.toBe(SpanStatusCode.ERROR);
    // The span starts when the request started, which the record keeps as lastAttemptAt.
    expect(toMs(second!.startTime)).toBe(delivery.lastAttemptAt);
    expect(toMs(second!.endTime)).toBeGreaterThanOrEqual(toMs(second!.startTime));

    const { resourceMetrics } = await reader.collect();
    const attempts = findMetric(resourceMetrics, OTEL_NAMES.attempts);
    expect(attempts.map((point) => [point.attributes['webhook.outcome'], point.value]).sort()).toEqual([
      ['retry', 1],
      ['success', 1],
    ]);
    const durations = findMetric(resourceMetrics, OTEL_NAMES.attemptDuration);
    expect(durations.reduce((sum, point) => sum + (point.value as { count: number }).count, 0)).toBe(2);
    const lag = findMetric(resourceMetrics, OTEL_NAMES.queueLag);
    expect(lag.reduce((sum, point) => sum + (point.value as { count: number }).count, 0)).toBe(2);
    const completed = findMetric(resourceMetrics, OTEL_NAMES.deliveriesCompleted);
    expect(completed.map((point) => [point.attributes['webhook.status'], point.value])).toEqual([
      ['success', 1],
    ]);
    expect(findMetric(resourceMetrics, OTEL_NAMES.pending).map((point) => point.value)).toEqual([3]);
    const inFlight = findMetric(resourceMetrics, OTEL_NAMES.inFlight);
    expect(inFlight).toHaveLength(1);
    expect(inFlight[0]!.attributes).toEqual({ 'webhook.worker': 'w1' });

    stopObserving();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });

  it('counts a delivery that exhausts its attempts as failed', async () => {
    const reader = new OnDemandMetricReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    harness = await startServiceHarness({
      service: {
        retry: { maxAttempts: 2, schedule: [10], jitterRatio: 0 },
        hooks: createOpenTelemetryHooks({
          tracer: tracerProvider.getTracer('test'),
          meter: meterProvider.getMeter('test'),
        }),
      },
    });
    await harness.configure('agency-down');
    harness.receiver.respond(() => ({ status: 500 }));

    const emitted = await harness.webhooks.emit(jobCancelled('agency-down'));
    await harness.waitForStatus('agency-down', emitted!.deliveryId, 'failed');

    const { resourceMetrics } = await reader.collect();
    const attempts = findMetric(resourceMetrics, OTEL_NAMES.attempts);
    expect(attempts.map((point) => [point.attributes['webhook.outcome'], point.value]).sort()).toEqual([
      ['failed', 1],
      ['retry', 1],
    ]);
    expect(
      findMetric(resourceMetrics, OTEL_NAMES.deliveriesCompleted).map((point) => [
        point.attributes['webhook.status'],
        point.value,
      ]),
    ).toEqual([['failed', 1]]);
    expect(exporter.getFinishedSpans().map((span) => span.attributes['webhook.outcome'])).toEqual([
      'retry',
      'failed',
    ]);
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });
});

describe('the optional peer dependency', () => {
  it('is imported by the otel entry only, never by a module the main entry can reach', () => {
    const srcDir = fileURLToPath(new URL('../src/', import.meta.url));
    const importers = readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => readFileSync(`${srcDir}${file}`, 'utf8').includes("from '@opentelemetry/api'"));
    expect(importers).toEqual(['otel.ts']);
  });
});
