import { createMemoryQueue, createMemoryStore, WebhookError } from '@svc/webhooks-core';
import { pollUntil } from '../lib/poll';
import type { IsolationReceivers } from './receivers';
import { configureAgencies, createIsolationService } from './service-setup';
import { type PeakStats, startStatsSampler, type TransportStats, transportStatsOf } from './transport-stats';

/** What the test-send run saw. */
export interface TestSendResult {
  agencies: number;
  /** Sends that got a 2xx from the receiver. */
  answered: number;
  /** The other results, by message (or error code when `sendTest` threw). */
  others: Map<string, number>;
  seconds: number;
  peak: PeakStats;
  /**
   * Pools and sockets once every send has returned and the connections had up
   * to 2 s to close: test sends use connections closed after use.
   */
  after: TransportStats | null;
  /** How long after the last send returned the sockets took to close (the wait ends at 2 s). */
  closedAfterMs: number;
}

const CLOSE_WAIT_MS = 2000;

/** Waits until the transport has no socket open, or 2 s; returns the last stats read and the time waited. */
async function waitForSocketsClosed(read: (() => TransportStats) | null) {
  const { value, waitedMs } = await pollUntil(
    () => read?.() ?? null,
    (stats) => !stats || stats.sockets === 0,
    CLOSE_WAIT_MS,
  );
  return { after: value, closedAfterMs: waitedMs };
}

/**
 * `agencies` agencies, each with a configuration pointing at its own origin
 * that no send has used before (`t<i>.hooks.test` on the answering receiver),
 * each calling `sendTest` once, all at once: the most new origins a burst of
 * test sends can ask the transport for. Runs on the memory backend, since
 * `sendTest` reads one configuration and records nothing.
 */
export async function measureTestSends(
  receivers: IsolationReceivers,
  agencies: number,
  secret: string,
): Promise<TestSendResult> {
  const store = createMemoryStore();
  const configs = Array.from({ length: agencies }, (_, index) => ({
    agencyId: `t${index}`,
    webhookUrl: `https://t${index}.hooks.test:${receivers.ports.ok}/ok/test-sends/t${index}`,
  }));
  await configureAgencies(store, configs, secret);
  const webhooks = createIsolationService({ store, queue: createMemoryQueue() }, receivers.ca, {});
  const sampler = startStatsSampler(webhooks, () => 0);
  const started = performance.now();
  const results = await Promise.allSettled(configs.map(({ agencyId }) => webhooks.sendTest(agencyId)));
  const seconds = (performance.now() - started) / 1000;
  const peak = sampler.stop();
  const { after, closedAfterMs } = await waitForSocketsClosed(transportStatsOf(webhooks));
  await webhooks.close();
  const others = new Map<string, number>();
  let answered = 0;
  for (const result of results) {
    if (result.status === 'fulfilled' && result.value.success) answered += 1;
    else {
      const key =
        result.status === 'fulfilled'
          ? result.value.message
          : result.reason instanceof WebhookError
            ? `threw ${result.reason.code}`
            : `threw ${String(result.reason)}`;
      others.set(key, (others.get(key) ?? 0) + 1);
    }
  }
  return { agencies, answered, others, seconds, peak, after, closedAfterMs };
}
