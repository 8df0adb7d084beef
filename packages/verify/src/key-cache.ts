/**
 * A small insertion-ordered cache of derived HMAC keys, keyed by secret. Receivers verify with the same
 * one or two secrets all day, so importing the key once saves work on every delivery; the bound keeps a
 * multi-tenant receiver with many secrets from growing it without limit.
 */
export class KeyCache<TKey> {
  readonly #entries = new Map<string, TKey>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Returns the cached key for `secret`, deriving and storing it on a miss. */
  get(secret: string, derive: (secret: string) => TKey): TKey {
    const cached = this.#entries.get(secret);
    if (cached !== undefined) return cached;
    const key = derive(secret);
    if (this.#entries.size >= this.#limit) {
      // Map iterates in insertion order, so the first key is the oldest entry.
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(secret, key);
    return key;
  }

  /** Drops one entry, e.g. a key whose derivation failed. */
  delete(secret: string): void {
    this.#entries.delete(secret);
  }
}
