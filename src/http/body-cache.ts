// Finished answers (body, ETag, compressed forms) of repeated questions, keyed by the normalised
// request and the data version, so that a repeat costs what serving bytes costs. Bounded in bytes (its
// part of MEMORY_BUDGET_MB), keys and the per-entry bookkeeping counted, least recently used out first;
// emptied when the data changes. Keys are made from what clients send (up to 8 KB of URL, an Accept
// header): uncounted, 10,000 distinct URLs with answers of a few hundred bytes once held 80 MB of keys
// in an entry bound of 27 MB.
import { LRUCache } from 'lru-cache';
import type { FinishedBody } from './layer.js';

export interface BodyCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

/**
 * What an entry holds besides its bodies: the FinishedBody and its headers, the LRU's slots, and the
 * handler's fixed headers for it (two records of a dozen headers, src/http/handler.ts). Measured with
 * test/cache-bounds.test.ts: about 1.5 KB.
 */
export const ENTRY_BYTES = 2048;
/** Longest request URL whose Link header the handler keeps with an entry (longer ones are made per request). */
export const MAX_KEPT_LINK_URL = 256;
/** That URL and its four links (first, prev, next, last), as UTF-16. */
const LINK_BYTES = 2 * (MAX_KEPT_LINK_URL + 4 * (MAX_KEPT_LINK_URL + 32));

const sizeOf = (entry: FinishedBody, key: string) =>
  entry.body.byteLength +
  (entry.encoded.br?.byteLength ?? 0) +
  (entry.encoded.gzip?.byteLength ?? 0) +
  2 * key.length + // a key is a string in the heap: two bytes a character at most
  (entry.paging ? LINK_BYTES : 0) +
  ENTRY_BYTES;

export class BodyCache {
  private readonly entries: LRUCache<string, FinishedBody>;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(readonly maxBytes: number) {
    this.entries = new LRUCache<string, FinishedBody>({
      maxSize: Math.max(1, maxBytes),
      // one huge answer must not push out everything else
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 4)),
      sizeCalculation: sizeOf,
      dispose: (_entry, _key, reason) => {
        if (reason === 'evict') this.evictions++;
      },
    });
  }

  get(key: string): FinishedBody | undefined {
    const entry = this.lookup(key);
    if (!entry) this.misses++;
    return entry;
  }

  /** Like get, but a miss is not counted (the caller will ask again through get). */
  lookup(key: string): FinishedBody | undefined {
    const entry = this.entries.get(key);
    if (entry) this.hits++;
    return entry;
  }

  set(key: string, entry: FinishedBody): void {
    this.entries.set(key, entry);
  }

  /** An entry grew a compressed form after it was stored: measured again (which may evict others). */
  grew(key: string): void {
    const entry = this.entries.peek(key);
    if (!entry) return;
    this.entries.delete(key); // set() of the very same value keeps its old size
    this.entries.set(key, entry);
  }

  clear(): void {
    this.entries.clear();
  }

  stats(): BodyCacheStats {
    return {
      entries: this.entries.size,
      bytes: this.entries.calculatedSize,
      maxBytes: this.maxBytes,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
    };
  }
}
