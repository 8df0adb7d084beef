import { jobCancelled, type ServiceHarness, startServiceHarness } from '@svc/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryQueue, type DeliveryQueue, type WebhookLogger } from '../src/index';

interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
  /** The line as a JSON log shipper would write it (errors expanded like pino does). */
  text: string;
}

function expandErrors(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
}

/** A pino-shaped logger that keeps every line, with a child that carries its bindings. */
function createCapturingLogger(lines: LogLine[], bindings: Record<string, unknown> = {}): WebhookLogger {
  const write =
    (level: LogLine['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      const all = { ...bindings, ...fields };
      lines.push({
        level,
        message,
        fields: all,
        text: JSON.stringify({ level, msg: message, ...all }, expandErrors),
      });
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => createCapturingLogger(lines, { ...bindings, ...more }),
  };
}

/** A memory queue whose first claim fails, as a database outage would. */
function queueFailingFirstClaim(): DeliveryQueue {
  const queue = createMemoryQueue();
  let failed = false;
  const claim: DeliveryQueue['claim'] = (options) => {
    if (failed) return queue.claim(options);
    failed = true;
    return Promise.reject(new Error('queue unavailable'));
  };
  return new Proxy(queue, {
    get(target, property) {
      if (property === 'claim') return claim;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const BODY_MARKER = 'receiver-private-body-7f3a';
const REASON_MARKER = 'metadata-reason-91c2';

let harness: ServiceHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.restoreAllMocks();
});

describe('logger option', () => {
  it('logs attempts at debug, a failed delivery at warn and a worker error at error, never a secret or a body', async () => {
    const lines: LogLine[] = [];
    harness = await startServiceHarness({
      queue: queueFailingFirstClaim,
      service: {
        logger: createCapturingLogger(lines),
        retry: { maxAttempts: 2, schedule: [10], jitterRatio: 0 },
      },
    });
    const secret = await harness.configure('agency-log');
    harness.receiver.respond(() => ({ status: 500, body: BODY_MARKER }));

    const emitted = await harness.webhooks.emit(jobCancelled('agency-log', 7, {}));
    await harness.webhooks.emit({
      ...jobCancelled('agency-log', 8),
      metadata: { jobId: 'job-8', agencyId: 'agency-log', jobNumber: 8, reason: REASON_MARKER },
    });
    await harness.waitForStatus('agency-log', emitted!.deliveryId, 'failed');
    const rotated = await harness.webhooks.rotateSecret('agency-log');

    const attemptLines = lines.filter((line) => line.message === 'webhook attempt recorded');
    expect(attemptLines.length).toBeGreaterThanOrEqual(2);
    expect(attemptLines.every((line) => line.level === 'debug')).toBe(true);
    expect(attemptLines.find((line) => line.fields.deliveryId === emitted!.deliveryId)?.fields).toMatchObject(
      {
        component: 'webhooks',
        agencyId: 'agency-log',
        eventType: 'job_cancelled',
        statusCode: 500,
        errorKind: 'http_status',
      },
    );
    const failedLine = lines.find(
      (line) => line.level === 'warn' && line.fields.deliveryId === emitted!.deliveryId,
    );
    expect(failedLine?.fields).toMatchObject({ attempt: 2, lastResponseCode: 500 });
    const errorLine = lines.find((line) => line.level === 'error');
    expect(errorLine?.fields).toMatchObject({ stage: 'claim' });
    expect(errorLine?.text).toContain('queue unavailable');

    for (const line of lines) {
      expect(line.text).not.toContain(secret);
      expect(line.text).not.toContain(rotated.signingSecret);
      expect(line.text).not.toContain(BODY_MARKER);
      expect(line.text).not.toContain(REASON_MARKER);
    }
  });

  it('keeps a logger that throws from breaking delivery', async () => {
    const broken: WebhookLogger = {
      debug: () => {
        throw new Error('log sink down');
      },
      info: () => {},
      warn: () => {},
      error: () => {},
    };
    harness = await startServiceHarness({ service: { logger: broken } });
    await harness.configure('agency-a');
    const emitted = await harness.webhooks.emit(jobCancelled('agency-a'));
    await expect(harness.waitForStatus('agency-a', emitted!.deliveryId, 'success')).resolves.toMatchObject({
      attempt: 1,
    });
  });

  it('is silent by default: nothing reaches the console', async () => {
    const consoleCalls = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method),
    );
    harness = await startServiceHarness({ service: { retry: { maxAttempts: 1 } } });
    await harness.configure('agency-quiet');
    harness.receiver.respond(() => ({ status: 500 }));
    const emitted = await harness.webhooks.emit(jobCancelled('agency-quiet'));
    await harness.waitForStatus('agency-quiet', emitted!.deliveryId, 'failed');
    for (const spy of consoleCalls) expect(spy).not.toHaveBeenCalled();
  });
});
