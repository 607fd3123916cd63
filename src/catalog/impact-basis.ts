// What the impact of a rate event is calculated from: the offer's plan before the change and its plan
// after it (from the append-only plan history), with the offer's other terms (payout, compounding,
// fee, withholding) and its period. The numbers themselves are src/domain/impact.ts.
//
// The plan after an event is the one the ingest appended at the event's time (validFrom = at); the
// plan before is the one it replaced, the offer's previous plan. An offer removed since keeps its row
// and its plans (removed offers stay for history), so its events keep their impact, calculated with
// the terms it had when it was last offered. Terms other than the plan are not versioned: an offer
// whose payout or fee changed later is calculated with the newer ones. When the plans cannot be paired
// (an event without an offer, or history that does not hold both plans) the impact is null.
import type { PrismaClient } from '../db/client.js';
import { withholdingRateOf } from '../domain/calc.js';
import { Decimal } from '../domain/decimal.js';
import type { CalcTerms } from '../domain/types.js';
import { RATE_EVENT_KINDS } from '../domain/vocabulary.js';
import type { EventItem } from './history.js';
import { promotionFromJson, tiersFromJson } from '../ingest/rows.js';

/** The events that change what an amount earns. */
export const RATE_EVENTS: ReadonlySet<EventItem['kind']> = new Set(RATE_EVENT_KINDS);

export interface ImpactBasis {
  /** The term for deposits; null: the horizon applies (flexible and notice accounts). */
  termMonths: number | null;
  before: CalcTerms;
  after: CalcTerms;
  /** Identifies the pair and the offer's terms, for the memo of results. */
  key: string;
}

const dec = (v: { toString(): string }) => new Decimal(v.toString());

/**
 * The basis of each rate event (by event id; null where it has none): one query for all their offers
 * and plans, however many events.
 */
export async function loadImpactBases(
  prisma: PrismaClient,
  events: readonly Pick<EventItem, 'id' | 'kind' | 'offerId' | 'at'>[],
): Promise<Map<string, ImpactBasis | null>> {
  const result = new Map<string, ImpactBasis | null>(events.map((e) => [String(e.id), null]));
  const rated = events.filter((e) => RATE_EVENTS.has(e.kind) && e.offerId !== null);
  if (rated.length === 0) return result;
  const offers = await prisma.offer.findMany({
    where: { id: { in: [...new Set(rated.map((e) => e.offerId!))] } },
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
      plans: {
        select: { id: true, validFrom: true, tierMode: true, tiers: true, promotion: true },
        orderBy: [{ validFrom: 'asc' }, { id: 'asc' }],
      },
    },
  });
  const byId = new Map(offers.map((o) => [o.id, o]));
  for (const event of rated) {
    const offer = byId.get(event.offerId!);
    if (!offer) continue;
    const at = event.at.getTime();
    // The plan in force right after the event, and the one before it.
    let i = offer.plans.length - 1;
    while (i >= 0 && offer.plans[i]!.validFrom.getTime() > at) i--;
    const after = offer.plans[i];
    const before = offer.plans[i - 1];
    if (!after || !before || after.validFrom.getTime() !== at) continue;
    const withholdingRate = withholdingRateOf({
      kind: offer.withholdingKind,
      rate: offer.withholdingRate === null ? null : dec(offer.withholdingRate),
      reducedRate: offer.withholdingReducedRate === null ? null : dec(offer.withholdingReducedRate),
    });
    const annualFee = dec(offer.annualFee);
    const terms = (plan: (typeof offer.plans)[number]): CalcTerms => ({
      tierMode: plan.tierMode,
      tiers: tiersFromJson(plan.tiers),
      promotion: promotionFromJson(plan.promotion),
      payout: offer.payout,
      interestCompounds: offer.interestCompounds,
      annualFee,
      withholdingRate,
    });
    result.set(String(event.id), {
      termMonths: offer.type === 'deposit' ? offer.termMonths : null,
      before: terms(before),
      after: terms(after),
      key:
        `${before.id}>${after.id}|${offer.type}:${offer.termMonths ?? ''}|${offer.payout}|` +
        `${offer.interestCompounds}|${annualFee.toString()}|${withholdingRate.toString()}`,
    });
  }
  return result;
}
