// Finished answers (body, ETag, compressed forms) of repeated questions, keyed by the normalised
// request and the data version, so that a repeat costs what serving bytes costs. Bounded in bytes (its
// part of MEMORY_BUDGET_MB), least recently used out first; emptied when the data changes.
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

const sizeOf = (body: FinishedBody) =>
  body.body.byteLength + (body.encoded.br?.byteLength ?? 0) + (body.encoded.gzip?.byteLength ?? 0) + 512;

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
