// Per-request batching of everything that reaches the database per offer: the details of 50 offers
// cost three queries, not 150. Created for every request, so nothing is cached across requests.
import DataLoader from 'dataloader';
import { eventsOfOffers, plansOfOffers, sourcesByIds, type EventItem, type PlanItem } from '../catalog/history.js';
import type { CatalogSource } from '../catalog/types.js';
import type { PrismaClient } from '../db/client.js';

/** The detail shows at most this many plans and events (newest first). */
export const DETAIL_LIMIT = 100;

export interface Loaders {
  plans: DataLoader<string, PlanItem[]>;
  events: DataLoader<{ id: string; institutionId: string }, EventItem[], string>;
  sources: DataLoader<string, CatalogSource | null>;
}

export function createLoaders(prisma: PrismaClient): Loaders {
  return {
    plans: new DataLoader(async (ids) => {
      const byOffer = await plansOfOffers(prisma, ids, DETAIL_LIMIT);
      return ids.map((id) => byOffer.get(id) ?? []);
    }),
    events: new DataLoader(
      async (offers) => {
        const byOffer = await eventsOfOffers(prisma, offers, DETAIL_LIMIT);
        return offers.map((o) => byOffer.get(o.id) ?? []);
      },
      { cacheKeyFn: (offer) => offer.id },
    ),
    sources: new DataLoader(async (ids) => {
      const byId = await sourcesByIds(prisma, ids);
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}
