import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import type { EndpointHealth, WebhookEndpointDisabledEvent, WebhookEndpointHealthEvent } from '../src/index';
import { combineHooks } from '../src/index';
import { createLoggingHooks, type WebhookLogger } from '../src/observability/logger';
import { createOpenTelemetryHooks, OTEL_NAMES } from '../src/otel';

const NOW = 1_700_000_000_000;

const HEALTH: EndpointHealth = {
  state: 'disabled',
  consecutiveFailures: 12,
  lastSuccessAt: null,
  lastFailureAt: NOW,
  failingSince: NOW - 432_000_000,
  disabledAt: NOW,
  pausedUntil: null,
  disabledReason: 'auto_disabled_failing',
};

const CHANGE: WebhookEndpointHealthEvent = {
  agencyId: 'agency-a',
  previous: 'failing',
  current: 'disabled',
  health: HEALTH,
};

const DISABLED: WebhookEndpointDisabledEvent = {
  agencyId: 'agency-a',
  reason: 'auto_disabled_failing',
  webhookUrl: 'https://hooks.example.com/a?token=private',
  failingSince: NOW - 432_000_000,
  disabledAt: NOW,
};

function recordingLogger(): {
  logger: WebhookLogger;
  lines: Array<[string, Record<string, unknown>, string]>;
} {
  const lines: Array<[string, Record<string, unknown>, string]> = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push([level, fields, message]);
    };
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

class OnDemandMetricReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

describe('endpoint health hooks', () => {
  it('the logger writes a health change at info and a disable at warn, without the URL', () => {
    const { logger, lines } = recordingLogger();
    const hooks = createLoggingHooks(logger);
    hooks.onEndpointHealthChange?.(CHANGE);
    hooks.onEndpointDisabled?.(DISABLED);
    expect(lines).toEqual([
      [
        'info',
        {
          agencyId: 'agency-a',
          state: 'disabled',
          previous: 'failing',
          consecutiveFailures: 12,
          failingSince: NOW - 432_000_000,
        },
        'webhook endpoint disabled',
      ],
      [
        'warn',
        {
          agencyId: 'agency-a',
          reason: 'auto_disabled_failing',
          failingSince: NOW - 432_000_000,
          disabledAt: NOW,
        },
        expect.stringContaining('webhook endpoint disabled: every attempt failed'),
      ],
    ]);
    expect(JSON.stringify(lines)).not.toContain('token=private');
  });

  it('combineHooks calls every set’s health hooks, past one that throws', () => {
    const seen: string[] = [];
    const hooks = combineHooks(
      {
        onEndpointHealthChange: () => {
          throw new Error('broken observer');
        },
        onEndpointDisabled: () => {
          throw new Error('broken observer');
        },
      },
      {
        onEndpointHealthChange: (event) => seen.push(`change ${event.current}`),
        onEndpointDisabled: (event) => seen.push(`disabled ${event.reason}`),
      },
    );
    hooks.onEndpointHealthChange?.(CHANGE);
    hooks.onEndpointDisabled?.(DISABLED);
    expect(seen).toEqual(['change disabled', 'disabled auto_disabled_failing']);
  });

  it('the OpenTelemetry hooks count health changes by state and disables by reason, without agency ids', async () => {
    const reader = new OnDemandMetricReader();
    const meter = new MeterProvider({ readers: [reader] }).getMeter('test');
    const hooks = createOpenTelemetryHooks({ meter });
    hooks.onEndpointHealthChange?.(CHANGE);
    hooks.onEndpointHealthChange?.({ ...CHANGE, previous: 'disabled', current: 'healthy' });
    hooks.onEndpointDisabled?.(DISABLED);
    const { resourceMetrics } = await reader.collect();
    const points = (name: string) =>
      (resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name)
        ?.dataPoints ?? []) as DataPoint<number>[];
    expect(points(OTEL_NAMES.endpointHealthChanges).map((point) => [point.attributes, point.value])).toEqual([
      [{ 'webhook.health.state': 'disabled', 'webhook.health.previous': 'failing' }, 1],
      [{ 'webhook.health.state': 'healthy', 'webhook.health.previous': 'disabled' }, 1],
    ]);
    expect(points(OTEL_NAMES.endpointsDisabled).map((point) => [point.attributes, point.value])).toEqual([
      [{ 'webhook.disabled_reason': 'auto_disabled_failing' }, 1],
    ]);
  });
});
