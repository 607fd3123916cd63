// Finished answers (body, ETag, compressed forms) of repeated questions, keyed by the normalised
// request and the data version, so that a repeat costs what serving bytes costs. Bounded in bytes and
// entries, least recently used out first; emptied when the data changes.
import { LRUCache } from 'lru-cache';
import type { FinishedBody } from './layer.js';

export interface BodyCacheStats {
  entries: number;
  bytes: number;
  maxEntries: number;
  maxBytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

const sizeOf = (body: FinishedBody) => body.body.byteLength + (body.encoded.br?.byteLength ?? 0) + (body.encoded.gzip?.byteLength ?? 0) + 512;

export class BodyCache {
  private readonly entries: LRUCache<string, FinishedBody>;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(
    readonly maxBytes: number,
    readonly maxEntries: number,
  ) {
    this.entries = new LRUCache<string, FinishedBody>({
      max: maxEntries,
      maxSize: maxBytes,
      // one huge answer must not push out everything else
      maxEntrySize: Math.floor(maxBytes / 4),
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
    return { entries: this.entries.size, bytes: this.entries.calculatedSize, maxEntries: this.maxEntries, maxBytes: this.maxBytes, hits: this.hits, misses: this.misses, evictions: this.evictions };
  }
}

/**
 * The cache key of a GET, or null for answers that must not be reused: health (it reports the
 * present), the CSV export (streamed), GraphQL operations asking for health. Parameters are sorted and
 * empty ones dropped, so equal questions share an entry; answers that depend on the clock (freshness
 * in the last 24 hours, the meta summary, GraphQL) are reused for at most a minute.
 */
export function requestKey(pathAndQuery: string, acceptsHtml: boolean, version: number, now: number): string | null {
  let normal = normalised.get(pathAndQuery);
  if (normal === undefined) {
    normal = normalise(pathAndQuery);
    if (normalised.size >= 10_000) normalised.clear(); // bounded; repeats refill it at once
    normalised.set(pathAndQuery, normal);
  }
  if (normal === null) return null;
  const minute = normal.clockBound ? `|${Math.floor(now / 60_000)}` : '';
  return `${version}|${normal.graphql && acceptsHtml ? 'html|' : ''}${normal.key}${minute}`;
}

/** The normalised form of the URLs seen lately: parsing and sorting them again for every repeat costs. */
const normalised = new Map<string, { key: string; graphql: boolean; clockBound: boolean } | null>();

function normalise(pathAndQuery: string): { key: string; graphql: boolean; clockBound: boolean } | null {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const graphql = path === '/graphql';
  if (!graphql && !path.startsWith('/api/')) return null;
  if (path === '/api/health' || path === '/api/products/export' || path === '/api/metrics') return null;
  const params: [string, string][] = [];
  if (q >= 0) {
    for (const [name, value] of new URLSearchParams(pathAndQuery.slice(q + 1))) if (value !== '') params.push([name, value]);
    params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  }
  const query = new URLSearchParams(params).toString();
  if (graphql && /health/i.test(query)) return null;
  const clockBound = graphql || path === '/api/meta/last-updated' || /(^|&)freshness=24h(&|$)/i.test(query);
  return { key: `${path}?${query}`, graphql, clockBound };
}
