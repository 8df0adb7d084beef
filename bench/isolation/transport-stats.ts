import type { WebhookService } from '@svc/webhooks-core';

/**
 * What `webhooks.transportStats()` reports: live pools and sockets of the
 * service's transport, and their caps. Declared here with the agreed shape so
 * the benchmark works with a core that has the method and with one that does
 * not have it yet (then pools and sockets are reported as not measured).
 */
export interface TransportStats {
  pools: number;
  sockets: number;
  maxPools: number;
  maxSockets: number;
  /** The most sockets open at once so far, where the transport keeps it (exact, where sampling may miss a spike). */
  peakSockets?: number;
}

/** Peaks seen by a {@link StatsSampler}; `transport` is null when the service has no `transportStats()`. */
export interface PeakStats {
  transport: TransportStats | null;
  /** Most attempts in flight in the worker at once. */
  inFlight: number;
}

/** Samples a service's transport stats and its worker's in-flight count until stopped. */
export interface StatsSampler {
  /** Stops sampling (after a last sample) and returns the peaks. */
  stop(): PeakStats;
}

const SAMPLE_EVERY_MS = 10;

type MaybeStats = { transportStats?: unknown };

/** `webhooks.transportStats`, bound, when the service has it. */
export function transportStatsOf(webhooks: WebhookService): (() => TransportStats) | null {
  const method = (webhooks as MaybeStats).transportStats;
  return typeof method === 'function' ? () => method.call(webhooks) as TransportStats : null;
}

/**
 * Starts sampling every 10 ms. Timer-driven rather than per attempt, so the
 * sampling costs the measured run the same whatever `transportStats()` costs.
 * Pools only grow within a run and hanging sockets stay open for seconds, so a
 * 10 ms sample sees them; a short spike of sockets could fall between two
 * samples, so the transport's own `peakSockets` is taken too where it has one.
 */
export function startStatsSampler(webhooks: WebhookService, inFlight: () => number): StatsSampler {
  const read = transportStatsOf(webhooks);
  let transport: TransportStats | null = null;
  let peakInFlight = 0;
  const sample = () => {
    peakInFlight = Math.max(peakInFlight, inFlight());
    if (!read) return;
    const now = read();
    transport = {
      pools: Math.max(transport?.pools ?? 0, now.pools),
      sockets: Math.max(transport?.sockets ?? 0, now.sockets, now.peakSockets ?? 0),
      maxPools: now.maxPools,
      maxSockets: now.maxSockets,
    };
  };
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  return {
    stop() {
      sample();
      clearInterval(timer);
      return { transport, inFlight: peakInFlight };
    },
  };
}

/** True when every peak is within its cap; null when the caps could not be read. */
export function withinCaps(peak: TransportStats | null): boolean | null {
  if (!peak) return null;
  return peak.pools <= peak.maxPools && peak.sockets <= peak.maxSockets;
}
