// Per-request batching of everything that reaches the database per offer: the details of 50 offers
// cost three queries, not 150. Under the per-request loaders sits a cache shared by all requests of
// one data version (history, events, sources, change lists and plan pages change only with the data):
// a detail asked again, for another amount, does not go to the database at all. The cache keeps
// promises, so requests that miss the same entry at the same time share one query; a failed query is
// not kept.
import DataLoader from 'dataloader';
import { filterKey, newestChanges, type ChangeFilter } from '../catalog/changes.js';
import {
  eventsOfOffers,
  listPlans,
  plansOfOffers,
  recentChanges,
  sourcesByIds,
  type EventItem,
  type PlanItem,
} from '../catalog/history.js';
import { LoadMemo, MemoPool } from '../catalog/load-memo.js';
import { loadImpactBases, type ImpactBasis } from '../catalog/impact-basis.js';
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
  /** The newest change events that pass a filter. */
  filteredChanges(filter: ChangeFilter, limit: number): Promise<EventItem[]>;
  /** What an event's impact is calculated from (null for events that have none); batched across offers' details. */
  impactBases: DataLoader<EventItem, ImpactBasis | null, string>;
  planPage(filter: PlanFilter): Promise<{ items: PlanItem[]; total: number }>;
}

export interface PlanFilter {
  brand: string | null;
  type: OfferType | 'all';
  page: number;
  pageSize: number;
}

/** What the database said, per data version; a new version starts empty. */
export class HistoryCache {
  private version = -1;
  plans!: LoadMemo<PlanItem[]>;
  events!: LoadMemo<EventItem[]>;
  sources!: LoadMemo<CatalogSource | null>;
  changes!: LoadMemo<EventItem[]>;
  filteredChanges!: LoadMemo<EventItem[]>;
  impactBases!: LoadMemo<ImpactBasis | null>;
  planPages!: LoadMemo<{ items: PlanItem[]; total: number }>;

  /** maxBytes: what the memos together may hold (by estimate), shared out below. */
  constructor(private readonly maxBytes = 16 * 1024 * 1024) {
    this.reset(-1);
  }

  at(version: number): this {
    if (version !== this.version) this.reset(version);
    return this;
  }

  stats() {
    return { version: this.version, entries: this.pool.entries, bytes: this.pool.bytes, maxBytes: this.maxBytes };
  }

  private pool!: MemoPool;

  private reset(version: number) {
    // One bound for them all: a service asked mostly for details keeps plans, one asked for changes keeps those.
    this.pool = new MemoPool(this.maxBytes);
    this.version = version;
    this.plans = new LoadMemo(this.pool, 'plans');
    this.events = new LoadMemo(this.pool, 'events');
    this.sources = new LoadMemo(this.pool, 'sources');
    this.changes = new LoadMemo(this.pool, 'changes');
    this.filteredChanges = new LoadMemo(this.pool, 'filteredChanges');
    this.impactBases = new LoadMemo(this.pool, 'impactBases');
    this.planPages = new LoadMemo(this.pool, 'planPages');
  }
}

export function createLoaders(prisma: PrismaClient, cache: HistoryCache, database: DatabaseStatus): Loaders {
  return {
    plans: new DataLoader((ids) =>
      cache.plans.many(
        ids,
        (id) => id,
        (missing) => database.track(() => plansOfOffers(prisma, missing, Infinity)),
        [],
      ),
    ),
    events: new DataLoader(
      (offers) =>
        cache.events.many(
          offers,
          (o) => o.id,
          (missing) => database.track(() => eventsOfOffers(prisma, missing, DETAIL_LIMIT)),
          [],
        ),
      {
        cacheKeyFn: (offer) => offer.id,
      },
    ),
    sources: new DataLoader((ids) =>
      cache.sources.many(
        ids,
        (id) => id,
        (missing) => database.track(() => sourcesByIds(prisma, missing)),
        null,
      ),
    ),
    changes: async (limit) =>
      (await cache.changes.get('newest', () => database.track(() => recentChanges(prisma, CHANGES_MAX)))).slice(
        0,
        limit,
      ),
    // Kept per filter at the largest limit, like the unfiltered list: another limit is a slice of it.
    filteredChanges: async (filter, limit) =>
      (
        await cache.filteredChanges.get(filterKey(filter), () =>
          database.track(() => newestChanges(prisma, filter, CHANGES_MAX)),
        )
      ).slice(0, limit),
    impactBases: new DataLoader(
      (events) =>
        cache.impactBases.many(
          events,
          (e) => String(e.id),
          (missing) => database.track(() => loadImpactBases(prisma, missing)),
          null,
        ),
      {
        cacheKeyFn: (event) => String(event.id),
      },
    ),
    planPage: (filter) =>
      cache.planPages.get(`${filter.brand ?? ''}|${filter.type}|${filter.page}|${filter.pageSize}`, () =>
        database.track(() => listPlans(prisma, filter)),
      ),
  };
}
