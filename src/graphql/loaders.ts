// Per-request batching of everything that reaches the database per offer: the details of 50 offers
// cost three queries, not 150. Under the per-request loaders sits a cache shared by all requests of
// one data version (history, events and sources change only with the data): a detail asked again,
// for another amount, does not go to the database at all.
import DataLoader from 'dataloader';
import { eventsOfOffers, plansOfOffers, sourcesByIds, type EventItem, type PlanItem } from '../catalog/history.js';
import type { CatalogSource } from '../catalog/types.js';
import type { PrismaClient } from '../db/client.js';
import type { DatabaseStatus } from '../db/status.js';

/** The detail shows at most this many plans and events (newest first). */
export const DETAIL_LIMIT = 100;

export interface Loaders {
  plans: DataLoader<string, PlanItem[]>;
  events: DataLoader<{ id: string; institutionId: string }, EventItem[], string>;
  sources: DataLoader<string, CatalogSource | null>;
}

/** Least recently used entries out first, beyond `max`. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
  get size(): number {
    return this.map.size;
  }
}

/** What the database said, per data version; a new version starts empty. */
export class HistoryCache {
  private version = -1;
  plans!: Lru<PlanItem[]>;
  events!: Lru<EventItem[]>;
  sources!: Lru<CatalogSource | null>;

  constructor(private readonly maxOffers = 2_000) {
    this.reset(-1);
  }

  at(version: number): this {
    if (version !== this.version) this.reset(version);
    return this;
  }

  stats() {
    return { version: this.version, plans: this.plans.size, events: this.events.size, sources: this.sources.size, maxOffers: this.maxOffers };
  }

  private reset(version: number) {
    this.version = version;
    this.plans = new Lru(this.maxOffers);
    this.events = new Lru(this.maxOffers);
    this.sources = new Lru(this.maxOffers);
  }
}

/** Answers from the cache where it can; one database call for all the rest. */
async function through<K, V>(keys: readonly K[], keyOf: (k: K) => string, cache: Lru<V>, load: (missing: K[]) => Promise<Map<string, V>>, fallback: V): Promise<V[]> {
  const missing = keys.filter((k) => cache.get(keyOf(k)) === undefined);
  if (missing.length > 0) {
    const loaded = await load(missing);
    for (const k of missing) cache.set(keyOf(k), loaded.get(keyOf(k)) ?? fallback);
  }
  return keys.map((k) => cache.get(keyOf(k)) ?? fallback);
}

export function createLoaders(prisma: PrismaClient, cache: HistoryCache, database: DatabaseStatus): Loaders {
  return {
    plans: new DataLoader((ids) => through(ids, (id) => id, cache.plans, (missing) => database.track(() => plansOfOffers(prisma, missing, DETAIL_LIMIT)), [])),
    events: new DataLoader(
      (offers) => through(offers, (o) => o.id, cache.events, (missing) => database.track(() => eventsOfOffers(prisma, missing, DETAIL_LIMIT)), []),
      { cacheKeyFn: (offer) => offer.id },
    ),
    sources: new DataLoader((ids) => through(ids, (id) => id, cache.sources, (missing) => database.track(() => sourcesByIds(prisma, missing)), null)),
  };
}
