import { describe, expect, it } from 'vitest';
import {
  createMemoryQueue,
  createMemoryStore,
  createWebhookService,
  type DeliveryQueue,
  WebhookError,
} from '../src/index';

/** A memory queue that keeps what the service hands to reportErrorsTo. */
function reportingQueue(): { queue: DeliveryQueue; reporters: Array<(error: unknown) => void> } {
  const reporters: Array<(error: unknown) => void> = [];
  const queue: DeliveryQueue = Object.assign(createMemoryQueue(), {
    reportErrorsTo: (report: (error: unknown) => void) => reporters.push(report),
  });
  return { queue, reporters };
}

describe('a queue reporting problems it found on its own', () => {
  it('reaches hooks.onError with stage "queue" and the logger, once per service', () => {
    const { queue, reporters } = reportingQueue();
    const hooked: Array<[unknown, unknown]> = [];
    const logged: unknown[] = [];
    createWebhookService({
      store: createMemoryStore(),
      queue,
      hooks: { onError: (error, context) => hooked.push([error, context]) },
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: (fields: unknown) => logged.push(fields),
      },
    });
    expect(reporters).toHaveLength(1);
    const error = new WebhookError('listen_silent', 'LISTEN hears nothing');
    reporters[0]!(error);
    expect(hooked).toEqual([[error, { stage: 'queue' }]]);
    expect(logged).toEqual([expect.objectContaining({ err: error, stage: 'queue' })]);
  });

  it('a hook that throws does not reach the queue', () => {
    const { queue, reporters } = reportingQueue();
    createWebhookService({
      store: createMemoryStore(),
      queue,
      hooks: {
        onError: () => {
          throw new Error('broken observer');
        },
      },
    });
    expect(() => reporters[0]!(new Error('x'))).not.toThrow();
  });
});
