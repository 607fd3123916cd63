// Database loads kept per key (history, events, sources, the market view), bounded by bytes, least
// recently used out first. A load's size is known once it has arrived: until then it counts as a
// small placeholder, then as an estimate from its JSON (an object graph in V8 takes about twice its
// JSON text). Its key counts too: keys come from requests (a change filter, an offer id) and an empty
// answer's estimate is a tenth of a long key's.
import { LRUCache } from 'lru-cache';

const PENDING_BYTES = 1024;
const estimate = (value: unknown): number => (value === undefined ? 16 : JSON.stringify(value).length * 2 + 128);
/** The key as UTF-16, and the LRU's slot and the promise around the value. */
const keyBytes = (key: string) => 2 * key.length + 96;

/** One byte bound shared by several memos (each its own keys): what is used most stays, whichever memo it is in. */
export class MemoPool {
  readonly lru: LRUCache<string, Promise<unknown>>;
  constructor(readonly maxBytes: number) {
    this.lru = new LRUCache({
      maxSize: Math.max(PENDING_BYTES, maxBytes),
      sizeCalculation: (_pending, key) => PENDING_BYTES + keyBytes(key),
    });
  }

  get entries(): number {
    return this.lru.size;
  }

  get bytes(): number {
    return this.lru.calculatedSize;
  }
}

/** Loads kept per key: concurrent callers share one load; a load that fails is forgotten. */
export class LoadMemo<V> {
  private readonly pool: MemoPool;
  private readonly maxBytes: number;
  /** The memo's keys within a shared pool. */
  private readonly prefix: string;

  constructor(bound: number | MemoPool, name = '') {
    this.pool = typeof bound === 'number' ? new MemoPool(bound) : bound;
    this.maxBytes = this.pool.maxBytes;
    this.prefix = name ? `${name}\u0000` : '';
  }

  private get lru(): LRUCache<string, Promise<V>> {
    return this.pool.lru as LRUCache<string, Promise<V>>;
  }

  /** Forgets a failed load, unless a newer load has replaced it meanwhile. */
  private drop(key: string, entry: Promise<V>): void {
    if (this.lru.peek(key) === entry) this.lru.delete(key);
  }

  /** Measures an arrived load (which may evict others, or itself when it alone is beyond the bound). */
  private measure(key: string, entry: Promise<V>, value: V): void {
    if (this.lru.peek(key) !== entry) return;
    this.lru.delete(key); // set() of the very same value keeps its old size
    const size = estimate(value) + keyBytes(key);
    if (size <= this.maxBytes) this.lru.set(key, entry, { size });
  }

  private keep(key: string, entry: Promise<V>, pick: (v: unknown) => V = (v) => v as V): void {
    this.lru.set(key, entry);
    entry.then(
      (value) => this.measure(key, entry, pick(value)),
      () => this.drop(key, entry),
    );
  }

  get(name: string, load: () => Promise<V>): Promise<V> {
    const key = this.prefix + name;
    let entry = this.lru.get(key);
    if (!entry) {
      entry = load();
      this.keep(key, entry);
    }
    return entry;
  }

  /** For a batch: one load for every key not kept yet, each key then read from its result. */
  many<K>(
    keys: readonly K[],
    nameOf: (k: K) => string,
    load: (missing: K[]) => Promise<Map<string, V>>,
    fallback: V,
  ): Promise<V[]> {
    const keyOf = (k: K) => this.prefix + nameOf(k);
    const kept = keys.map((k) => this.lru.get(keyOf(k)));
    const missing = keys.filter((_, i) => kept[i] === undefined);
    if (missing.length === 0) return Promise.all(kept as Promise<V>[]);
    const batch = load(missing);
    const fromBatch = (k: K) => batch.then((found) => found.get(nameOf(k)) ?? fallback);
    for (const k of missing) this.keep(keyOf(k), fromBatch(k));
    // Read from the batch, not the LRU: a batch larger than the LRU would evict its own keys.
    return Promise.all(keys.map((k, i) => kept[i] ?? fromBatch(k)));
  }

  /** Bytes held in its pool (all of its memos), by the estimate. */
  get bytes(): number {
    return this.pool.bytes;
  }
}
