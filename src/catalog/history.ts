// What lives in the database rather than in the catalogue: rate-plan history, change events, the
// market view's inputs. Every function takes ids in bulk, so per-request loaders batch them.
import { SNAPSHOT_READ, type Prisma, type PrismaClient } from '../db/client.js';
import { Decimal } from '../domain/decimal.js';
import type { OfferType } from '../domain/types.js';
import { promotionFromJson, tiersFromJson } from '../ingest/rows.js';
import { LoadMemo, MemoPool } from './load-memo.js';
import {
  MARKET_DEPOSIT_TERMS,
  marketDays,
  type MarketBest,
  type MarketDay,
  type MarketPlan,
  type VerifiedChange,
} from './market.js';
import type { EventItem, PlanItem } from './shapes.js';
import type { Catalog } from './types.js';
import { DAY_MS } from '../domain/days.js';

const dec = (v: { toString(): string }) => new Decimal(v.toString());

const PLAN_SELECT = {
  id: true,
  offerId: true,
  validFrom: true,
  validTo: true,
  observedAt: true,
  headlineRate: true,
  rateType: true,
  tierMode: true,
  tiers: true,
  promotion: true,
  sourceId: true,
} satisfies Prisma.RatePlanSelect;

type PlanRow = Prisma.RatePlanGetPayload<{ select: typeof PLAN_SELECT }>;

// The database holds every version's rows at once: a version reads the plans and events numbered up to
// its ledger entry's, and shows a plan it holds in force as open, whatever closed it later. Offers are
// named as that version knew them.

/** The newest plan id a catalogue's version holds (0: none). */
const plansUpTo = (catalog: Catalog) => catalog.entry?.maxPlanId ?? 0;
/** The newest event id a catalogue's version holds (0: none). */
export const eventsUpTo = (catalog: Catalog) => catalog.entry?.maxEventId ?? 0;

/** A plan's validTo as the catalogue's version saw it: open while it was the offer's plan in force. */
const validToAt = (catalog: Catalog, row: { id: number; offerId: string; validTo: Date | null }) =>
  catalog.byId.get(row.offerId)?.planId === row.id ? null : row.validTo;

function planItem(catalog: Catalog, row: PlanRow): PlanItem {
  const facts = catalog.offerFacts.get(row.offerId);
  return {
    ...row,
    validTo: validToAt(catalog, row),
    offer: facts
      ? { id: facts.id, name: facts.name, type: facts.type, brand: facts.brand }
      : { id: row.offerId, name: row.offerId, type: 'flexible', brand: { id: '', name: '', country: '' } },
    headlineRate: dec(row.headlineRate),
    tiers: tiersFromJson(row.tiers),
    promotion: promotionFromJson(row.promotion),
  };
}

// Newest first; among plans of the same instant, the later row first.
const NEWEST_FIRST = [{ validFrom: 'desc' }, { id: 'desc' }] satisfies Prisma.RatePlanOrderByWithRelationInput[];

/** Each offer's plans, newest first, at most `limit` per offer (one query for all offers). */
export async function plansOfOffers(
  prisma: PrismaClient,
  catalog: Catalog,
  offerIds: readonly string[],
  limit: number,
): Promise<Map<string, PlanItem[]>> {
  const rows = await prisma.ratePlan.findMany({
    where: { offerId: { in: [...offerIds] }, id: { lte: plansUpTo(catalog) } },
    select: PLAN_SELECT,
    orderBy: NEWEST_FIRST,
  });
  const result = new Map<string, PlanItem[]>(offerIds.map((id) => [id, []]));
  for (const row of rows) {
    const list = result.get(row.offerId)!;
    if (list.length < limit) list.push(planItem(catalog, row));
  }
  return result;
}

/** Every historic plan, newest first, optionally of one brand and one type; paged. */
export async function listPlans(
  prisma: PrismaClient,
  catalog: Catalog,
  filter: { brand: string | null; type: OfferType | 'all'; page: number; pageSize: number },
): Promise<{ items: PlanItem[]; total: number }> {
  // The brand and type an offer had at this version (an offer's brand may have changed since).
  const filtered = filter.brand !== null || filter.type !== 'all';
  const offerIds = filtered
    ? [...catalog.offerFacts.values()]
        .filter(
          (o) =>
            (filter.brand === null || o.brand.id === filter.brand) && (filter.type === 'all' || o.type === filter.type),
        )
        .map((o) => o.id)
    : null;
  const where: Prisma.RatePlanWhereInput = {
    id: { lte: plansUpTo(catalog) },
    ...(offerIds === null ? {} : { offerId: { in: offerIds } }),
  };
  // One snapshot for the page and its total, so that an ingest committing in between cannot make them disagree.
  const [rows, total] = await prisma.$transaction(
    [
      prisma.ratePlan.findMany({
        where,
        select: PLAN_SELECT,
        orderBy: NEWEST_FIRST,
        skip: (filter.page - 1) * filter.pageSize,
        take: filter.pageSize,
      }),
      prisma.ratePlan.count({ where }),
    ],
    SNAPSHOT_READ,
  );
  return { items: rows.map((row) => planItem(catalog, row)), total };
}

function eventItem(row: Prisma.ChangeEventGetPayload<object>): EventItem {
  return { ...row, from: row.from as EventItem['from'], to: row.to as EventItem['to'] };
}

const EVENTS_NEWEST_FIRST = [{ at: 'desc' }, { id: 'desc' }] satisfies Prisma.ChangeEventOrderByWithRelationInput[];

export async function recentChanges(prisma: PrismaClient, catalog: Catalog, limit: number): Promise<EventItem[]> {
  const rows = await prisma.changeEvent.findMany({
    where: { id: { lte: eventsUpTo(catalog) } },
    orderBy: EVENTS_NEWEST_FIRST,
    take: limit,
  });
  return rows.map(eventItem);
}

/**
 * The events of each offer and of its institution (institution-level events such as dgs_change),
 * newest first, at most `limit` per offer; one query for all offers.
 */
export async function eventsOfOffers(
  prisma: PrismaClient,
  catalog: Catalog,
  offers: readonly { id: string; institutionId: string }[],
  limit: number,
): Promise<Map<string, EventItem[]>> {
  const rows = await prisma.changeEvent.findMany({
    where: {
      id: { lte: eventsUpTo(catalog) },
      OR: [
        { offerId: { in: offers.map((o) => o.id) } },
        { offerId: null, institutionId: { in: [...new Set(offers.map((o) => o.institutionId))] } },
      ],
    },
    orderBy: EVENTS_NEWEST_FIRST,
  });
  const result = new Map<string, EventItem[]>();
  for (const offer of offers) {
    result.set(
      offer.id,
      rows
        .filter((r) => r.offerId === offer.id || (r.offerId === null && r.institutionId === offer.institutionId))
        .slice(0, limit)
        .map(eventItem),
    );
  }
  return result;
}

// --- the market view -------------------------------------------------------------------------

async function marketInputs(prisma: PrismaClient, catalog: Catalog, from: Date, to: Date) {
  const terms: readonly number[] = Object.values(MARKET_DEPOSIT_TERMS);
  const inMarket = [...catalog.offerFacts.values()].filter(
    (o) => o.type !== 'deposit' || (o.termMonths !== null && terms.includes(o.termMonths)),
  );
  const [plans, changes] = await prisma.$transaction(
    [
      prisma.ratePlan.findMany({
        where: {
          id: { lte: plansUpTo(catalog) },
          validFrom: { lt: to },
          OR: [{ validTo: null }, { validTo: { gt: from } }],
          offerId: { in: inMarket.map((o) => o.id) },
        },
        select: { id: true, offerId: true, validFrom: true, validTo: true, headlineRate: true },
      }),
      prisma.changeEvent.findMany({
        // The institution's own changes; an offer's move to another institution (offerId set) is not one.
        where: { kind: 'dgs_change', offerId: null, id: { lte: eventsUpTo(catalog) } },
        select: { institutionId: true, at: true, to: true },
      }),
    ],
    SNAPSHOT_READ,
  );
  const marketPlans: MarketPlan[] = plans.map((p) => {
    const offer = catalog.offerFacts.get(p.offerId)!;
    return {
      type: offer.type,
      termMonths: offer.termMonths,
      institutionId: offer.institutionId,
      validFrom: p.validFrom,
      validTo: validToAt(catalog, p),
      headlineRate: dec(p.headlineRate),
    };
  });
  const verifiedChanges: VerifiedChange[] = changes.flatMap((c) => {
    const to = c.to as { verified?: unknown } | null;
    return c.institutionId && typeof to?.verified === 'boolean'
      ? [{ institutionId: c.institutionId, at: c.at, verified: to.verified }]
      : [];
  });
  return { marketPlans, verifiedChanges };
}

/** The last day of the market view is the day of the newest data, so the same data gives the same days. */
export const marketEndDay = (catalog: Catalog): string => catalog.generatedAt.toISOString().slice(0, 10);

export interface MarketHistory {
  days(catalog: Catalog, days: number): Promise<MarketDay[]>;
  best(catalog: Catalog): Promise<MarketBest>;
  stats(): { entries: number; bytes: number; maxBytes: number };
}

/** The market view, computed once per (data version, days) and kept for a few windows (by bytes). */
export function createMarketHistory(prisma: PrismaClient, maxBytes = 4 * 1024 * 1024): MarketHistory {
  const pool = new MemoPool(maxBytes);
  const cache = new LoadMemo<MarketDay[]>(pool);
  const days = (catalog: Catalog, n: number): Promise<MarketDay[]> => {
    if (catalog.version === 0) return Promise.resolve([]);
    return cache.get(`${catalog.version}:${n}`, () => {
      const end = marketEndDay(catalog);
      const to = new Date(Date.parse(`${end}T00:00:00.000Z`) + DAY_MS);
      const from = new Date(to.getTime() - n * DAY_MS);
      const institutions = new Map(catalog.institutions.map((i) => [i.id, i.dgs.verified]));
      return marketInputs(prisma, catalog, from, to).then(({ marketPlans, verifiedChanges }) =>
        marketDays(
          marketPlans,
          { currentlyVerified: (id) => institutions.get(id) ?? false, changes: verifiedChanges },
          end,
          n,
        ),
      );
    });
  };
  return {
    days,
    stats: () => ({ entries: pool.entries, bytes: pool.bytes, maxBytes }),
    async best(catalog) {
      const last = (await days(catalog, 1))[0];
      return {
        flexible: last?.flexible ?? null,
        notice: last?.notice ?? null,
        deposit12: last?.deposit12 ?? null,
        deposit60: last?.deposit60 ?? null,
      };
    },
  };
}
