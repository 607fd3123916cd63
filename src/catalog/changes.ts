// Which change events a client follows, and reading them. One filter (kind, offer, brand, type) is
// applied in two places: in SQL when events are read for a request or a resumed stream, and in memory
// when the change feed hands a new batch to each of its subscribers. Both are defined here, side by
// side, so they cannot drift (a property test checks they agree).
import type { Prisma, PrismaClient } from '../db/client.js';
import { fold } from '../domain/text.js';
import type { OfferType } from '../domain/types.js';
import type { EventKind } from '../ingest/diff.js';
import type { EventItem, ImpactBasis } from './shapes.js';
import type { Catalog } from './types.js';

/**
 * A filter on the event's own fields: its kind, its offer, its brand (by id or name, case-insensitive,
 * as the list's brand filter) and its offer's type. Institution-level events (dgs_change) have no
 * offer, brand or type, so an offerId, brand or type filter leaves them out.
 */
export interface ChangeFilter {
  kinds: ReadonlySet<EventKind> | null;
  offerId: string | null;
  /** The brand ids the brand argument names; empty when it names none. */
  brandIds: ReadonlySet<string> | null;
  type: OfferType | null;
}

export const ANY_CHANGE: ChangeFilter = { kinds: null, offerId: null, brandIds: null, type: null };

export interface ChangeFilterArgs {
  kind?: readonly EventKind[] | null;
  offerId?: string | null;
  brand?: string | null;
  type?: OfferType | 'all' | null;
}

/** The filter the arguments describe; brand names are resolved against the catalogue's brands. */
export function changeFilter(args: ChangeFilterArgs, catalog: Pick<Catalog, 'institutions'>): ChangeFilter {
  let brandIds: Set<string> | null = null;
  if (args.brand != null) {
    const wanted = fold(args.brand);
    brandIds = new Set();
    for (const institution of catalog.institutions) {
      for (const b of institution.brands) if (fold(b.id) === wanted || fold(b.name) === wanted) brandIds.add(b.id);
    }
  }
  return {
    kinds: args.kind?.length ? new Set(args.kind) : null,
    offerId: args.offerId ?? null,
    brandIds,
    type: args.type == null || args.type === 'all' ? null : args.type,
  };
}

export const isAnyChange = (f: ChangeFilter): boolean =>
  f.kinds === null && f.offerId === null && f.brandIds === null && f.type === null;

/** A stable text for a filter (memo keys). */
export function filterKey(f: ChangeFilter): string {
  const list = (s: ReadonlySet<string> | null) => (s === null ? '*' : [...s].sort().join(','));
  return `${list(f.kinds)}|${f.offerId ?? '*'}|${list(f.brandIds)}|${f.type ?? '*'}`;
}

/** An event with what the in-memory filter needs beyond the event itself: its offer's type. */
export interface ChangeItem extends EventItem {
  offerType: OfferType | null;
}

/** An event as the change feed holds it: change-feed.ts reads it, change-tail.ts keeps it, follower.ts hands it out. */
export interface FeedEvent extends ChangeItem {
  /** What its impact is calculated from (rate events), read with it. */
  basis: ImpactBasis | null;
  /** About what it takes to send, for batches and the window's bytes. */
  size: number;
}

/** The filter in memory (the change feed's subscribers). */
export function matchesChange(f: ChangeFilter, e: ChangeItem): boolean {
  return (
    (f.kinds === null || f.kinds.has(e.kind)) &&
    (f.offerId === null || e.offerId === f.offerId) &&
    (f.brandIds === null || (e.brandId !== null && f.brandIds.has(e.brandId))) &&
    (f.type === null || e.offerType === f.type)
  );
}

/** The same filter in SQL. */
export function changeWhere(f: ChangeFilter): Prisma.ChangeEventWhereInput {
  return {
    ...(f.kinds === null ? {} : { kind: { in: [...f.kinds] } }),
    ...(f.offerId === null ? {} : { offerId: f.offerId }),
    ...(f.brandIds === null ? {} : { brandId: { in: [...f.brandIds] } }),
    ...(f.type === null ? {} : { offer: { is: { type: f.type } } }),
  };
}

const WITH_OFFER_TYPE = { offer: { select: { type: true } } } satisfies Prisma.ChangeEventInclude;
type Row = Prisma.ChangeEventGetPayload<{ include: typeof WITH_OFFER_TYPE }>;

function changeItem({ offer, ...row }: Row): ChangeItem {
  return { ...row, from: row.from as EventItem['from'], to: row.to as EventItem['to'], offerType: offer?.type ?? null };
}

/** The newest matching events up to an id (a version's newest), newest first (as GET /api/changes lists them). */
export async function newestChanges(
  prisma: PrismaClient,
  f: ChangeFilter,
  limit: number,
  atMost: number,
): Promise<ChangeItem[]> {
  const rows = await prisma.changeEvent.findMany({
    where: { ...changeWhere(f), id: { lte: atMost } },
    include: WITH_OFFER_TYPE,
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    take: limit,
  });
  return rows.map(changeItem);
}

/**
 * Matching events after an id, oldest first, at most `limit`. Ids increase with ingest order (one
 * ingest at a time, under a database lock, its events inserted in order in one transaction), so
 * "after this id" is "everything since".
 */
export async function changesAfter(
  prisma: PrismaClient,
  afterId: number,
  f: ChangeFilter,
  limit: number,
): Promise<ChangeItem[]> {
  const rows = await prisma.changeEvent.findMany({
    where: { ...changeWhere(f), id: { gt: afterId } },
    include: WITH_OFFER_TYPE,
    orderBy: { id: 'asc' },
    take: limit,
  });
  return rows.map(changeItem);
}

/** Every event with an id at most `atMost`, newest first, at most `limit` (the change feed's window). */
export async function changesUpTo(prisma: PrismaClient, atMost: number, limit: number): Promise<ChangeItem[]> {
  const rows = await prisma.changeEvent.findMany({
    where: { id: { lte: atMost } },
    include: WITH_OFFER_TYPE,
    orderBy: { id: 'desc' },
    take: limit,
  });
  return rows.map(changeItem);
}

/** The id of the newest event (0 when there is none). */
export async function newestChangeId(prisma: PrismaClient): Promise<number> {
  const row = await prisma.changeEvent.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
  return row?.id ?? 0;
}
