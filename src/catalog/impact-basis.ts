// What the impact of a rate event is calculated from: the offer's plan before the change and its plan
// after it (from the append-only plan history), with the offer's other terms (payout, compounding,
// fee, withholding) and its period. The numbers themselves are src/domain/impact.ts.
//
// The plan after an event is the one the ingest appended at the event's time (validFrom = at); the
// plan before is the one it replaced, the offer's previous plan. Both come from the offer's plan history
// (the same list its detail shows), so a detail's events cost no reading of their own. An offer removed
// since keeps its row and its plans (removed offers stay for history), so its events keep their impact,
// calculated with the terms it had when it was last offered. Terms other than the plan are not
// versioned: an offer whose payout or fee changed later is calculated with the newer ones. When the
// plans cannot be paired (an event without an offer, or history that does not hold both plans) the
// impact is null.
//
// Events read on their own (the change feed) read only the plans around them, not their offers' whole
// history: what an offer held during the span of the events read (per offer), and, where that does not
// hold an event's predecessor (a gap in the history), that one plan. A page of events costs plans in
// proportion to the page, however long the history.
import type { Prisma, PrismaClient } from '../db/client.js';
import { withholdingRateOf } from '../domain/calc.js';
import { Decimal } from '../domain/decimal.js';
import type { CalcTerms, OfferType, Payout, WithholdingKind } from '../domain/types.js';
import { RATE_EVENT_KINDS } from '../domain/vocabulary.js';
import { promotionFromJson, tiersFromJson, withholdingFromRow } from '../ingest/rows.js';
import type { EventItem, ImpactBasis, PlanItem } from './shapes.js';

/** The events that change what an amount earns. */
const RATE_EVENTS: ReadonlySet<EventItem['kind']> = new Set(RATE_EVENT_KINDS);

/** An offer's terms besides its plan: a catalogue offer has them, and so has a removed offer's row. */
export interface ImpactOffer {
  type: OfferType;
  termMonths: number | null;
  payout: Payout;
  interestCompounds: boolean;
  annualFee: Decimal;
  withholding: { kind: WithholdingKind; rate: Decimal | null; reducedRate: Decimal | null };
}

/** What of a plan an impact needs. */
export type BasisPlan = Pick<PlanItem, 'id' | 'validFrom' | 'tierMode' | 'tiers' | 'promotion'>;

/** Whether an event can have an impact at all (a rate event of an offer). */
export const hasImpact = (event: Pick<EventItem, 'kind' | 'offerId'>): boolean =>
  RATE_EVENTS.has(event.kind) && event.offerId !== null;

/**
 * The basis of one event, from its offer's plans (newest first, as the plan history lists them) and
 * terms; null where it has none.
 */
export function impactBasisOf(
  event: Pick<EventItem, 'kind' | 'offerId' | 'at'>,
  plans: readonly BasisPlan[],
  offer: ImpactOffer,
): ImpactBasis | null {
  if (!hasImpact(event)) return null;
  const at = event.at.getTime();
  // The plan in force right after the event is the newest that started by then; the one before it, its predecessor.
  const i = plans.findIndex((p) => p.validFrom.getTime() <= at);
  const after = plans[i];
  const before = plans[i + 1];
  if (i < 0 || !after || !before || after.validFrom.getTime() !== at) return null;
  const withholdingRate = withholdingRateOf(offer.withholding);
  const terms = (plan: BasisPlan): CalcTerms => ({
    tierMode: plan.tierMode,
    tiers: plan.tiers,
    promotion: plan.promotion,
    payout: offer.payout,
    interestCompounds: offer.interestCompounds,
    annualFee: offer.annualFee,
    withholdingRate,
  });
  return {
    termMonths: offer.type === 'deposit' ? offer.termMonths : null,
    before: terms(before),
    after: terms(after),
    key:
      `${before.id}>${after.id}|${offer.type}:${offer.termMonths ?? ''}|${offer.payout}|` +
      `${offer.interestCompounds}|${offer.annualFee.toString()}|${withholdingRate.toString()}`,
  };
}

const dec = (v: { toString(): string }) => new Decimal(v.toString());

/** Offers' terms from their rows, active or removed (one query for all). */
export async function impactOffersByIds(
  prisma: PrismaClient,
  ids: readonly string[],
): Promise<Map<string, ImpactOffer>> {
  const rows = await prisma.offer.findMany({
    where: { id: { in: [...ids] } },
    select: {
      id: true,
      type: true,
      termMonths: true,
      payout: true,
      interestCompounds: true,
      annualFee: true,
      withholdingKind: true,
      withholdingRate: true,
      withholdingReducedRate: true,
    },
  });
  return new Map(
    rows.map((o) => [
      o.id,
      {
        type: o.type,
        termMonths: o.termMonths,
        payout: o.payout,
        interestCompounds: o.interestCompounds,
        annualFee: dec(o.annualFee),
        withholding: withholdingFromRow(o),
      },
    ]),
  );
}

const BASIS_PLAN = { id: true, offerId: true, validFrom: true, tierMode: true, tiers: true, promotion: true } as const;
type BasisPlanRow = Prisma.RatePlanGetPayload<{ select: typeof BASIS_PLAN }>;
const basisPlan = (row: BasisPlanRow): BasisPlan & { offerId: string } => ({
  ...row,
  tiers: tiersFromJson(row.tiers),
  promotion: promotionFromJson(row.promotion),
});
const NEWEST_FIRST = [{ validFrom: 'desc' }, { id: 'desc' }] satisfies Prisma.RatePlanOrderByWithRelationInput[];

type Rated = Pick<EventItem, 'id' | 'kind' | 'offerId' | 'at'>;

/**
 * The plans the events' bases need, per offer, newest first: every plan of the offer in force at some
 * time between its first and its last event here (the plan each event starts, and the one it closed),
 * then, for an event whose predecessor that does not hold, the newest plan that started before it.
 */
export async function plansAround(prisma: PrismaClient, events: readonly Rated[]): Promise<Map<string, BasisPlan[]>> {
  const span = new Map<string, { first: Date; last: Date }>();
  for (const e of events) {
    const s = span.get(e.offerId!);
    if (!s) span.set(e.offerId!, { first: e.at, last: e.at });
    else {
      if (e.at < s.first) s.first = e.at;
      if (e.at > s.last) s.last = e.at;
    }
  }
  const rows = await prisma.ratePlan.findMany({
    where: {
      OR: [...span].map(([offerId, { first, last }]) => ({
        offerId,
        validFrom: { lte: last },
        OR: [{ validTo: null }, { validTo: { gte: first } }],
      })),
    },
    select: BASIS_PLAN,
    orderBy: NEWEST_FIRST,
  });
  const plans = new Map<string, BasisPlan[]>([...span.keys()].map((id) => [id, []]));
  for (const row of rows) plans.get(row.offerId)!.push(basisPlan(row));
  // An event whose plan is here but not the one before it: the history has a gap before the event.
  const missing = events.filter((e) => {
    const list = plans.get(e.offerId!)!;
    const i = list.findIndex((p) => p.validFrom.getTime() <= e.at.getTime());
    return i >= 0 && list[i]!.validFrom.getTime() === e.at.getTime() && !list[i + 1];
  });
  if (missing.length > 0) {
    const before = await Promise.all(
      missing.map((e) =>
        prisma.ratePlan.findFirst({
          where: { offerId: e.offerId!, validFrom: { lt: e.at } },
          select: BASIS_PLAN,
          orderBy: NEWEST_FIRST,
        }),
      ),
    );
    for (const row of before) {
      const list = row && plans.get(row.offerId)!;
      if (list && !list.some((p) => p.id === row.id)) list.push(basisPlan(row));
    }
    for (const list of plans.values())
      list.sort((a, b) => b.validFrom.getTime() - a.validFrom.getTime() || b.id - a.id);
  }
  return plans;
}

/**
 * The basis of each event (by event id; null where it has none), read from the database: the offers'
 * terms and the plans around the events (plansAround).
 */
export async function loadImpactBases(
  prisma: PrismaClient,
  events: readonly Rated[],
): Promise<Map<string, ImpactBasis | null>> {
  const result = new Map<string, ImpactBasis | null>(events.map((e) => [String(e.id), null]));
  const rated = events.filter(hasImpact);
  if (rated.length === 0) return result;
  const ids = [...new Set(rated.map((e) => e.offerId!))];
  const [plans, offers] = await Promise.all([plansAround(prisma, rated), impactOffersByIds(prisma, ids)]);
  for (const event of rated) {
    const offer = offers.get(event.offerId!);
    if (offer) result.set(String(event.id), impactBasisOf(event, plans.get(event.offerId!) ?? [], offer));
  }
  return result;
}
