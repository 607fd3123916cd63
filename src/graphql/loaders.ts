// Per-request batching of everything that reaches the database per offer: the details of 50 offers
// cost three queries, not 150. Under the per-request loaders sits a cache shared by all requests of
// one data version (history, events, change lists and plan pages change only with the data):
// a detail asked again, for another amount, does not go to the database at all. The cache keeps
// promises, so requests that miss the same entry at the same time share one query; a failed query is
// not kept.
import DataLoader from 'dataloader';
import { filterKey, newestChanges, type ChangeFilter } from '../catalog/changes.js';
import { eventsOfOffers, eventsUpTo, listPlans, plansOfOffers, recentChanges } from '../catalog/history.js';
import { LoadMemo, MemoPool } from '../catalog/load-memo.js';
import { hasImpact, impactBasisOf, impactOffersByIds, type ImpactOffer } from '../catalog/impact-basis.js';
import type { EventItem, ImpactBasis, PlanItem } from '../catalog/shapes.js';
import type { Catalog } from '../catalog/types.js';
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
  /** The newest change events (at most CHANGES_MAX). */
  changes(limit: number): Promise<EventItem[]>;
  /** The newest change events that pass a filter. */
  filteredChanges(filter: ChangeFilter, limit: number): Promise<EventItem[]>;
  /**
   * What an event's impact is calculated from (null for events that have none): its offer's plans (the
   * same reads as the offer's history) and terms (the catalogue's, or a removed offer's row).
   */
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
  changes!: LoadMemo<EventItem[]>;
  filteredChanges!: LoadMemo<EventItem[]>;
  /** Terms of offers the catalogue no longer has (removed), for the impact of their events. */
  removedOffers!: LoadMemo<ImpactOffer | null>;
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
    this.changes = new LoadMemo(this.pool, 'changes');
    this.filteredChanges = new LoadMemo(this.pool, 'filteredChanges');
    this.removedOffers = new LoadMemo(this.pool, 'removedOffers');
    this.planPages = new LoadMemo(this.pool, 'planPages');
  }
}

/** The values of a loadMany, or its first failure thrown (a database that fails fails the whole batch). */
function allOrThrow<V>(results: (V | Error)[]): V[] {
  const failed = results.find((r): r is Error => r instanceof Error);
  if (failed) throw failed;
  return results as V[];
}

export function createLoaders(
  prisma: PrismaClient,
  cache: HistoryCache,
  database: DatabaseStatus,
  catalog: Catalog,
): Loaders {
  const plans = new DataLoader((ids: readonly string[]) =>
    cache.plans.many(
      ids,
      (id) => id,
      (missing) => database.track(() => plansOfOffers(prisma, catalog, missing, Infinity)),
      [],
    ),
  );
  const removedOffers = new DataLoader((ids: readonly string[]) =>
    cache.removedOffers.many(
      ids,
      (id) => id,
      (missing) => database.track(() => impactOffersByIds(prisma, missing)),
      null,
    ),
  );
  return {
    plans,
    events: new DataLoader(
      (offers) =>
        cache.events.many(
          offers,
          (o) => o.id,
          (missing) => database.track(() => eventsOfOffers(prisma, catalog, missing, DETAIL_LIMIT)),
          [],
        ),
      {
        cacheKeyFn: (offer) => offer.id,
      },
    ),
    changes: async (limit) =>
      (
        await cache.changes.get('newest', () => database.track(() => recentChanges(prisma, catalog, CHANGES_MAX)))
      ).slice(0, limit),
    // Kept per filter at the largest limit, like the unfiltered list: another limit is a slice of it.
    filteredChanges: async (filter, limit) =>
      (
        await cache.filteredChanges.get(filterKey(filter), () =>
          database.track(() => newestChanges(prisma, filter, CHANGES_MAX, eventsUpTo(catalog))),
        )
      ).slice(0, limit),
    impactBases: new DataLoader(
      async (events) => {
        const ids = [...new Set(events.filter(hasImpact).map((e) => e.offerId!))];
        const gone = ids.filter((id) => !catalog.byId.has(id));
        const [offerPlans, goneOffers] = await Promise.all([
          plans.loadMany(ids).then(allOrThrow),
          removedOffers.loadMany(gone).then(allOrThrow),
        ]);
        const plansOf = new Map(ids.map((id, i) => [id, offerPlans[i]!]));
        const goneOf = new Map(gone.map((id, i) => [id, goneOffers[i]!]));
        return events.map((e) => {
          if (!hasImpact(e)) return null;
          const offer = catalog.byId.get(e.offerId!) ?? goneOf.get(e.offerId!);
          return offer ? impactBasisOf(e, plansOf.get(e.offerId!)!, offer) : null;
        });
      },
      {
        cacheKeyFn: (event) => String(event.id),
      },
    ),
    planPage: (filter) =>
      cache.planPages.get(`${filter.brand ?? ''}|${filter.type}|${filter.page}|${filter.pageSize}`, () =>
        database.track(() => listPlans(prisma, catalog, filter)),
      ),
  };
}
