import { setNewest } from '@svc/webhooks-core/adapter-kit';

/** Raw record fields (`r`, `u`) of a delivery, read in the claim's script. */
export interface RecordSnapshot {
  inserted: string;
  update: string | null;
}

interface Timed<T> {
  value: T;
  at: number;
}

/** How long a snapshot may stand in for a fresh read: the worker reads right after claiming. */
const FRESH_MS = 1_000;
const CAPACITY = 10_000;

/**
 * What a linked claim read along with its entries (see queue/queue-scripts.ts): each
 * claimed delivery's record and each agency's configuration. The worker's next
 * `getDelivery` and `getConfig` take them from here instead of two more round
 * trips. Each snapshot serves one read (a configuration, one read per claimed
 * delivery of its agency) and only while fresh; after that the store reads Redis.
 *
 * Why this is safe: the snapshot is what a read right after the claim would
 * have returned, at most a moment older. The worker's compare-and-set uses the
 * snapshot's attempt and status, so a change made in that moment (a replay,
 * another worker's write) makes the write fail and the worker reconcile with a
 * fresh read, exactly as when the change lands just after an ordinary read.
 */
export class ClaimSnapshots {
  readonly #records = new Map<string, Timed<RecordSnapshot>>();
  readonly #configs = new Map<string, Timed<{ pairs: unknown[]; uses: number }>>();

  /** Keeps a claim batch's records (in claim order) and configurations. */
  keep(
    deliveryIds: readonly string[],
    agencyIds: readonly string[],
    records: unknown[],
    configs: unknown[],
  ): void {
    const at = performance.now();
    deliveryIds.forEach((id, index) => {
      const inserted = String(records[index * 2] ?? '');
      if (inserted === '') return;
      const update = String(records[index * 2 + 1] ?? '');
      setNewest(
        this.#records,
        id,
        { value: { inserted, update: update === '' ? null : update }, at },
        CAPACITY,
      );
    });
    for (let index = 0; index + 1 < configs.length; index += 2) {
      const agencyId = String(configs[index]);
      const pairs = configs[index + 1];
      if (!Array.isArray(pairs) || pairs.length === 0) continue;
      const uses = agencyIds.filter((id) => id === agencyId).length;
      setNewest(this.#configs, agencyId, { value: { pairs, uses }, at }, CAPACITY);
    }
  }

  /** The record snapshot of a just-claimed delivery, once; undefined when none is fresh. */
  takeRecord(deliveryId: string): RecordSnapshot | undefined {
    const entry = this.#records.get(deliveryId);
    if (!entry) return undefined;
    this.#records.delete(deliveryId);
    return performance.now() - entry.at <= FRESH_MS ? entry.value : undefined;
  }

  /** The configuration snapshot (HGETALL pairs) of an agency with just-claimed deliveries; undefined when none is fresh. */
  takeConfig(agencyId: string): unknown[] | undefined {
    const entry = this.#configs.get(agencyId);
    if (!entry) return undefined;
    entry.value.uses -= 1;
    if (entry.value.uses <= 0) this.#configs.delete(agencyId);
    return performance.now() - entry.at <= FRESH_MS ? entry.value.pairs : undefined;
  }
}
