// Reads the current state the diff compares a snapshot with: a handful of queries, whatever the size.
import type { Prisma } from '../db/client.js';
import type { CurrentState } from './diff.js';
import { dec2, dec2OrNull, iso, isoOrNull, planTerms, type PlanTerms } from './rows.js';

type Tx = Prisma.TransactionClient;

export async function loadState(tx: Tx): Promise<CurrentState> {
  // One after the other: a transaction is one connection, and pg does not run queries on it in parallel.
  const sources = await tx.source.findMany();
  const institutions = await tx.institution.findMany();
  const brands = await tx.brand.findMany();
  const offers = await tx.offer.findMany();
  const plans = await tx.ratePlan.findMany({ where: { validTo: null } });
  return {
    sources: new Map(
      sources.map((s) => [
        s.id,
        { ...s, lastCheckedAt: isoOrNull(s.lastCheckedAt), lastSuccessAt: isoOrNull(s.lastSuccessAt) },
      ]),
    ),
    institutions: new Map(
      institutions.map((i) => [i.id, { ...i, dgsLimit: dec2(i.dgsLimit), dgsVerifiedAt: isoOrNull(i.dgsVerifiedAt) }]),
    ),
    brands: new Map(brands.map((b) => [b.id, b])),
    offers: new Map(
      offers.map((o) => [
        o.id,
        {
          ...o,
          minAmount: dec2(o.minAmount),
          maxAmount: dec2OrNull(o.maxAmount),
          annualFee: dec2(o.annualFee),
          withholdingRate: dec2OrNull(o.withholdingRate),
          withholdingReducedRate: dec2OrNull(o.withholdingReducedRate),
          checkedAt: iso(o.checkedAt),
          firstSeenAt: iso(o.firstSeenAt),
          removedAt: isoOrNull(o.removedAt),
        },
      ]),
    ),
    currentPlans: new Map(
      plans.map((p) => [
        p.offerId,
        {
          ...planTerms({
            headlineRate: dec2(p.headlineRate),
            rateType: p.rateType,
            tierMode: p.tierMode,
            tiers: p.tiers as unknown as PlanTerms['tiers'],
            promotion: p.promotion as unknown as PlanTerms['promotion'],
          }),
          id: p.id,
          offerId: p.offerId,
          validFrom: iso(p.validFrom),
          validTo: isoOrNull(p.validTo),
          observedAt: iso(p.observedAt),
          sourceId: p.sourceId,
        },
      ]),
    ),
  };
}
