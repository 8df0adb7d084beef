import type { WebhookConfigRecord } from '@svc/webhooks-core';
import { setNewest } from '@svc/webhooks-core/adapter-kit';

/** What a read must show to be cached: the cache's state when the read began. */
export interface ConfigTicket {
  generation: number;
  version: number;
}

/** Longest a cached configuration is trusted even without an invalidation, in ms: a safety net. */
const MAX_AGE_MS = 60_000;
const CAPACITY = 10_000;

/**
 * Configurations read by a linked store, kept in the process while its
 * subscription is live, so `emit` (which reads the configuration before it
 * inserts) costs one round trip instead of two.
 *
 * Coherent by invalidation: every configuration write, by any store in any
 * process, publishes the agency id in the same script, and the message drops
 * the entry here; a dropped subscription clears everything and stops caching
 * until it is live again. A read caches its answer only if no invalidation for
 * that agency (and no reconnect) happened while it was in flight, so a slow
 * reply can never put back what a message removed. A configuration changed in
 * another process is therefore seen here after about one pub/sub delivery,
 * exactly as if the read had started a moment earlier; writes made through
 * this process are seen at once. Misses, and every read while the subscription
 * is not live, go to Redis.
 */
export class ConfigCache {
  readonly #entries = new Map<string, { config: WebhookConfigRecord | null; at: number }>();
  readonly #versions = new Map<string, number>();
  #generation = 0;

  constructor(private readonly isLive: () => boolean) {}

  /** A copy of the cached configuration (null: the agency has none); undefined on a miss. */
  get(agencyId: string): WebhookConfigRecord | null | undefined {
    if (!this.isLive()) return undefined;
    const entry = this.#entries.get(agencyId);
    if (!entry || performance.now() - entry.at > MAX_AGE_MS) return undefined;
    return entry.config && copyConfig(entry.config);
  }

  /** Take before reading Redis; pass to {@link fill} with the answer. */
  ticket(agencyId: string): ConfigTicket {
    return { generation: this.#generation, version: this.#versions.get(agencyId) ?? 0 };
  }

  fill(agencyId: string, config: WebhookConfigRecord | null, ticket: ConfigTicket): void {
    if (!this.isLive() || ticket.generation !== this.#generation) return;
    if (ticket.version !== (this.#versions.get(agencyId) ?? 0)) return;
    const copy = config && copyConfig(config);
    setNewest(this.#entries, agencyId, { config: copy, at: performance.now() }, CAPACITY);
  }

  /** The agency's configuration changed (here or in another process). */
  invalidate(agencyId: string): void {
    this.#entries.delete(agencyId);
    this.#versions.set(agencyId, (this.#versions.get(agencyId) ?? 0) + 1);
  }

  /** The subscription dropped: messages may have been missed. */
  clear(): void {
    this.#entries.clear();
    this.#versions.clear();
    this.#generation += 1;
  }
}

/** A copy sharing nothing mutable with `config`, so a caller's edits never reach the cache. */
function copyConfig(config: WebhookConfigRecord): WebhookConfigRecord {
  return {
    ...config,
    subscribedEventTypes: [...config.subscribedEventTypes],
    signingKeys: config.signingKeys.map((key) => ({ ...key })),
  };
}
