// Database loads kept per key (history, events, sources, the market view), bounded, least recently
// used out first.
import { LRUCache } from 'lru-cache';

/** Loads kept per key: concurrent callers share one load; a load that fails is forgotten. */
export class LoadMemo<V> {
  private readonly lru: LRUCache<string, Promise<V>>;
  constructor(max: number) {
    this.lru = new LRUCache({ max });
  }

  /** Forgets a failed load, unless a newer load has replaced it meanwhile. */
  private drop(key: string, entry: Promise<V>): void {
    if (this.lru.peek(key) === entry) this.lru.delete(key);
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    let entry = this.lru.get(key);
    if (!entry) {
      const loading = load();
      entry = loading;
      this.lru.set(key, loading);
      loading.catch(() => this.drop(key, loading));
    }
    return entry;
  }

  /** For a batch: one load for every key not kept yet, each key then read from its result. */
  many<K>(
    keys: readonly K[],
    keyOf: (k: K) => string,
    load: (missing: K[]) => Promise<Map<string, V>>,
    fallback: V,
  ): Promise<V[]> {
    const kept = keys.map((k) => this.lru.get(keyOf(k)));
    const missing = keys.filter((_, i) => kept[i] === undefined);
    if (missing.length === 0) return Promise.all(kept as Promise<V>[]);
    const batch = load(missing);
    const fromBatch = (k: K) => batch.then((found) => found.get(keyOf(k)) ?? fallback);
    for (const k of missing) {
      const entry = fromBatch(k);
      this.lru.set(keyOf(k), entry);
      entry.catch(() => this.drop(keyOf(k), entry));
    }
    // Read from the batch, not the LRU: a batch larger than the LRU would evict its own keys.
    return Promise.all(keys.map((k, i) => kept[i] ?? fromBatch(k)));
  }

  get size(): number {
    return this.lru.size;
  }
}
