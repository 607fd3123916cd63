// Per-request batching of everything that reaches the database per offer: the details of 50 offers
// cost three queries, not 150. Under the per-request loaders sits a cache shared by all requests of
// one data version (history, events, sources, change lists and plan pages change only with the data):
// a detail asked again, for another amount, does not go to the database at all. The cache keeps
// promises, so requests that miss the same entry at the same time share one query; a failed query is
// not kept.
import DataLoader from 'dataloader';
import { LRUCache } from 'lru-cache';
import { eventsOfOffers, listPlans, plansOfOffers, recentChanges, sourcesByIds, type EventItem, type PlanItem } from '../catalog/history.js';
import type { CatalogSource } from '../catalog/types.js';
import type { PrismaClient } from '../db/client.js';
import type { DatabaseStatus } from '../db/status.js';
import type { OfferType } from '../domain/types.js';

/** The detail shows at most this many plans and events (newest first). */
export const DETAIL_LIMIT = 100;
/** GET /api/changes answers at most this many; the newest this many are read once per data version. */
export const CHANGES_MAX = 500;

export interface Loaders {
  /** Every plan of an offer, newest first. */
  plans: DataLoader<string, PlanItem[]>;
  events: DataLoader<{ id: string; institutionId: string }, EventItem[], string>;
  sources: DataLoader<string, CatalogSource | null>;
  /** The newest change events (at most CHANGES_MAX). */
  changes(limit: number): Promise<EventItem[]>;
  planPage(filter: PlanFilter): Promise<{ items: PlanItem[]; total: number }>;
}

export interface PlanFilter {
  brand: string | null;
  type: OfferType | 'all';
  page: number;
  pageSize: number;
}

/** Loads kept per key: concurrent callers share one load; a load that fails is forgotten. */
class Memo<V> {
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
  many<K>(keys: readonly K[], keyOf: (k: K) => string, load: (missing: K[]) => Promise<Map<string, V>>, fallback: V): Promise<V[]> {
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

/** What the database said, per data version; a new version starts empty. */
export class HistoryCache {
  private version = -1;
  plans!: Memo<PlanItem[]>;
  events!: Memo<EventItem[]>;
  sources!: Memo<CatalogSource | null>;
  changes!: Memo<EventItem[]>;
  planPages!: Memo<{ items: PlanItem[]; total: number }>;

  /** maxOffers: offers whose plans and events are kept (a few KB each). */
  constructor(private readonly maxOffers = 5_000) {
    this.reset(-1);
  }

  at(version: number): this {
    if (version !== this.version) this.reset(version);
    return this;
  }

  stats() {
    return { version: this.version, plans: this.plans.size, events: this.events.size, sources: this.sources.size, changes: this.changes.size, planPages: this.planPages.size, maxOffers: this.maxOffers };
  }

  private reset(version: number) {
    this.version = version;
    this.plans = new Memo(this.maxOffers);
    this.events = new Memo(this.maxOffers);
    this.sources = new Memo(this.maxOffers);
    this.changes = new Memo(1);
    this.planPages = new Memo(500);
  }
}

export function createLoaders(prisma: PrismaClient, cache: HistoryCache, database: DatabaseStatus): Loaders {
  return {
    plans: new DataLoader((ids) => cache.plans.many(ids, (id) => id, (missing) => database.track(() => plansOfOffers(prisma, missing, Infinity)), [])),
    events: new DataLoader((offers) => cache.events.many(offers, (o) => o.id, (missing) => database.track(() => eventsOfOffers(prisma, missing, DETAIL_LIMIT)), []), {
      cacheKeyFn: (offer) => offer.id,
    }),
    sources: new DataLoader((ids) => cache.sources.many(ids, (id) => id, (missing) => database.track(() => sourcesByIds(prisma, missing)), null)),
    changes: async (limit) => (await cache.changes.get('newest', () => database.track(() => recentChanges(prisma, CHANGES_MAX)))).slice(0, limit),
    planPage: (filter) =>
      cache.planPages.get(`${filter.brand ?? ''}|${filter.type}|${filter.page}|${filter.pageSize}`, () => database.track(() => listPlans(prisma, filter))),
  };
}
