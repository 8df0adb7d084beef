import { createServer } from 'node:net';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { hostResolver, jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { combineHooks, type WebhookAttemptEvent, type WebhookLogger } from '../src/index';
import { createOpenTelemetryHooks } from '../src/otel';
import { tenantMessage } from '../src/transport/attempt-error';

/*
 * What the agency sees of a failed attempt (lastErrorMessage, the excerpt, a test
 * send's message) against what the host's operators see (logs, hooks, spans),
 * through real deliveries to the local HTTPS receiver.
 */

let harness: ServiceHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Points the agency at a closed port of the loopback (`hooks.test` resolves to 127.0.0.1 in the harness). */
async function configureClosedPort(h: ServiceHarness, agencyId: string): Promise<number> {
  const port = await closedPort();
  await h.webhooks.putConfig(agencyId, {
    webhookUrl: `https://hooks.test:${port}/hooks`,
    enabled: true,
    subscribedEventTypes: ['job_cancelled'],
  });
  return port;
}

const ONE_ATTEMPT = { retry: { maxAttempts: 1 } };

describe('lastErrorMessage and the excerpt', () => {
  it('a refused connection is stored as the fixed connect text; address and port reach the logs only', async () => {
    const debugLines: Record<string, unknown>[] = [];
    const logger: WebhookLogger = {
      debug: (fields) => debugLines.push(fields),
      info: () => {},
      warn: () => {},
      error: () => {},
    };
    const attempts: WebhookAttemptEvent[] = [];
    harness = await startServiceHarness({
      service: { ...ONE_ATTEMPT, logger, hooks: { onAttempt: (event) => attempts.push(event) } },
    });
    const port = await configureClosedPort(harness, 'agency-a');
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');

    expect(failed.lastErrorMessage).toBe(tenantMessage('connect'));
    expect(JSON.stringify(failed)).not.toContain(String(port));
    expect(JSON.stringify(failed)).not.toContain('ECONNREFUSED');
    const raw = `ECONNREFUSED 127.0.0.1:${port}`;
    expect(attempts[0]?.outcome.errorDetail).toContain(raw);
    expect(debugLines[0]).toMatchObject({ errorKind: 'connect', error: tenantMessage('connect') });
    expect(String(debugLines[0]?.errorDetail)).toContain(raw);
  });

  it('the OpenTelemetry span of a failed attempt carries the raw detail as its status message', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const hooks = createOpenTelemetryHooks({ tracer: tracerProvider.getTracer('test') });
    harness = await startServiceHarness({ service: { ...ONE_ATTEMPT, hooks: combineHooks(hooks) } });
    const port = await configureClosedPort(harness, 'agency-a');
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.message).toContain(`127.0.0.1:${port}`);
    await tracerProvider.shutdown();
  });

  it('a TLS failure is stored as the fixed tls text', async () => {
    harness = await startServiceHarness({ service: { ...ONE_ATTEMPT, transport: { tls: undefined } } });
    await harness.configure('agency-a');
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(failed.lastErrorMessage).toBe(tenantMessage('tls'));
    expect(harness.receiver.requests).toHaveLength(0);
  });

  it('a response body’s control characters are not stored; its text, tabs and line feeds are', async () => {
    harness = await startServiceHarness({ service: ONE_ATTEMPT });
    await harness.configure('agency-a');
    harness.receiver.respond(() => ({
      status: 500,
      body: '{\r\n\t"error": "\u001b[2Jdown\u0000"\u202e\r\n}\u007f\u0085',
    }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(failed.lastResponseExcerpt).toBe('{\n\t"error": "[2Jdown"\n}');
    expect(failed.lastErrorMessage).toBe(
      'The receiver answered HTTP 500; only a 2xx status counts as delivered.',
    );
  });

  it('a redirect names its Location without the control characters the receiver put in it', async () => {
    harness = await startServiceHarness({ service: ONE_ATTEMPT });
    await harness.configure('agency-a');
    // Node lets a server send a tab and bytes 0x80–0xFF in a header value (C1 controls, read as Latin-1).
    harness.receiver.respond(() => ({
      status: 301,
      headers: { location: 'https://moved.example/new\tpath\u0085\u009b/in' },
    }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    const failed = await harness.waitForStatus('agency-a', emitted!.deliveryId, 'failed');
    expect(failed.lastErrorMessage).toContain('HTTP 301, a redirect to https://moved.example/newpath');
    expect(failed.lastErrorMessage).not.toMatch(/\p{Cc}/u);
  });
});

describe('sendTest messages', () => {
  it('a refused connection: the fixed connect text, no address, port or error code', async () => {
    harness = await startServiceHarness();
    const port = await configureClosedPort(harness, 'agency-a');
    const result = await harness.webhooks.sendTest('agency-a');
    expect(result).toEqual({
      success: false,
      statusCode: 0,
      message: `Test event not delivered. ${tenantMessage('connect')}`,
    });
    expect(result.message).not.toContain(String(port));
  });

  it('a hostname that no longer resolves: the fixed dns text, without the resolver’s error', async () => {
    // Resolves when the configuration is saved, then the name is gone (an empty answer).
    const resolve = hostResolver({ 'fading.hooks.test': (call) => (call === 1 ? '127.0.0.1' : []) });
    harness = await startServiceHarness({ service: { urlPolicy: { allowPrivateNetworks: true, resolve } } });
    await harness.webhooks.putConfig('agency-a', {
      webhookUrl: `https://fading.hooks.test:${harness.receiver.port}/hooks`,
      enabled: true,
      subscribedEventTypes: ['job_cancelled'],
    });
    const result = await harness.webhooks.sendTest('agency-a');
    expect(result.message).toBe(`Test event not delivered. ${tenantMessage('dns')}`);
    expect(result.message).not.toMatch(/fading|A or AAAA|ENODATA/);
    expect(harness.receiver.requests).toHaveLength(0);
  });

  it('a non-2xx answer states the received status', async () => {
    harness = await startServiceHarness();
    await harness.configure('agency-a');
    harness.receiver.respond(() => ({ status: 503, body: 'busy' }));
    expect(await harness.webhooks.sendTest('agency-a')).toEqual({
      success: false,
      statusCode: 503,
      message:
        'Test event not accepted. The receiver answered HTTP 503; only a 2xx status counts as delivered.',
    });
  });
});
