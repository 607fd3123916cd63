// Loads the catalogue from the database in a few queries (whatever the number of offers).
import { SNAPSHOT_READ, type PrismaClient } from '../db/client.js';
import { compareBrandNames } from '../domain/dgs.js';
import { Decimal, toFixed2 } from '../domain/decimal.js';
import { withholdingRateOf } from '../domain/calc.js';
import { promotionFromJson, promotionJson, tiersFromJson, tiersJson, withholdingFromRow } from '../ingest/rows.js';
import { fold } from '../domain/text.js';
import { FACETS } from './pipeline.js';
import type { Catalog, CatalogBrand, CatalogInstitution, CatalogOffer, CatalogSource, ShownOffer } from './types.js';

const dec = (v: { toString(): string }) => new Decimal(v.toString());
const decOrNull = (v: { toString(): string } | null) => (v === null ? null : dec(v));

/**
 * Every distinct set of calculation terms the process has seen, with a short id. Offers with the same
 * terms share one object and one id, in this catalogue and the next: the calculator recognises a
 * cached key's terms by identity and hashes a short key, not 200 characters, for each offer.
 */
const TERMS = new Map<string, { id: number; terms: CatalogOffer['terms'] }>();

/** The calculation's identity: everything `calculate` reads, nothing else. */
function termsKeyOf(o: Pick<CatalogOffer, 'terms'>): string {
  const t = o.terms;
  const tiers = t.tiers.map((x) => `${x.from.toString()}-${x.to?.toString() ?? ''}:${x.rate.toString()}`).join(',');
  const promo = t.promotion
    ? `${t.promotion.kind}:${t.promotion.rate.toString()}:${t.promotion.months}:` +
      `${t.promotion.maxBalance?.toString() ?? ''}`
    : '';
  return (
    `${t.tierMode}|${tiers}|${promo}|${t.payout}|${t.interestCompounds ? 1 : 0}|${t.annualFee.toString()}|` +
    `${t.withholdingRate.toString()}`
  );
}

const text = (d: Decimal) => toFixed2(d);
const textOrNull = (d: Decimal | null) => (d === null ? null : toFixed2(d));

function shownOf(o: CatalogOffer): ShownOffer {
  return {
    headlineRate: text(o.headlineRate),
    minAmount: text(o.minAmount),
    maxAmount: textOrNull(o.maxAmount),
    annualFee: text(o.annualFee),
    tiers: tiersJson(o.tiers),
    promotion: promotionJson(o.promotion),
    withholding: {
      kind: o.withholding.kind,
      rate: textOrNull(o.withholding.rate),
      reducedRate: textOrNull(o.withholding.reducedRate),
    },
  };
}

export async function loadCatalog(prisma: PrismaClient): Promise<Catalog> {
  // One repeatable-read transaction: separate queries could straddle an ingest's commit and pair one
  // version's offers with another's plans or brands. Readers must never see a torn state.
  const [version, institutionRows, offerRows, removedRows, sourceRows, lastRun] = await prisma.$transaction(
    [
      prisma.dataVersion.findUnique({ where: { id: 1 } }),
      prisma.institution.findMany({ include: { brands: true } }),
      prisma.offer.findMany({
        where: { status: 'active' },
        include: { plans: { where: { validTo: null } } },
        orderBy: { id: 'asc' },
      }),
      prisma.offer.findMany({ where: { status: 'removed' }, select: { id: true, removedAt: true } }),
      prisma.source.findMany({ orderBy: { id: 'asc' } }),
      prisma.ingestRun.findFirst({ orderBy: { observedAt: 'desc' }, select: { observedAt: true, appliedAt: true } }),
    ],
    SNAPSHOT_READ,
  );

  const brands = new Map<string, CatalogBrand>();
  const institutions = new Map<string, CatalogInstitution>();
  for (const row of institutionRows) {
    const institution: CatalogInstitution = {
      id: row.id,
      name: row.name,
      country: row.country,
      lei: row.lei,
      dgs: {
        scheme: row.dgsScheme,
        country: row.dgsCountry,
        limit: dec(row.dgsLimit),
        verified: row.dgsVerified,
        source: row.dgsSource,
        verifiedAt: row.dgsVerifiedAt,
      },
      brands: row.brands
        .map((b) => ({
          id: b.id,
          name: b.name,
          country: b.country,
          website: b.website,
          institutionId: b.institutionId,
        }))
        .sort((a, b) => compareBrandNames(a.name, b.name) || (a.id < b.id ? -1 : 1)),
    };
    institutions.set(row.id, institution);
    for (const b of institution.brands) brands.set(b.id, b);
  }

  const offers: CatalogOffer[] = [];
  for (const row of offerRows) {
    const plan = row.plans[0];
    const brand = brands.get(row.brandId);
    const institution = brand && institutions.get(brand.institutionId);
    if (!plan || !brand || !institution) continue; // cannot happen through the ingest; never crash on it
    const withholding = withholdingFromRow(row);
    const tiers = tiersFromJson(plan.tiers);
    const promotion = promotionFromJson(plan.promotion);
    const annualFee = dec(row.annualFee);
    const offer: CatalogOffer = {
      id: row.id,
      name: row.name,
      type: row.type,
      brand,
      institution,
      channel: row.channel,
      platform: row.platform,
      termMonths: row.termMonths,
      noticeDays: row.noticeDays,
      payout: row.payout,
      minAmount: dec(row.minAmount),
      maxAmount: decOrNull(row.maxAmount),
      planId: plan.id,
      rateType: plan.rateType,
      headlineRate: dec(plan.headlineRate),
      tierMode: plan.tierMode,
      tiers,
      promotion,
      openToNewCustomers: row.openToNewCustomers,
      currentAccountRequired: row.currentAccountRequired,
      annualFee,
      earlyWithdrawal: row.earlyWithdrawal,
      interestCompounds: row.interestCompounds,
      withholding,
      freshness: { checkedAt: row.checkedAt, official: row.official, confirmed: row.confirmed },
      sourceId: row.sourceId,
      sourceUrl: row.sourceUrl,
      terms: {
        tierMode: plan.tierMode,
        tiers,
        promotion,
        payout: row.payout,
        interestCompounds: row.interestCompounds,
        annualFee,
        withholdingRate: withholdingRateOf(withholding),
      },
      termsKey: '',
      termsId: 0,
      searchText: fold(`${brand.name}\u0000${row.name}\u0000${institution.name}`),
      sharedWith: institution.brands.filter((b) => b.id !== brand.id).map((b) => b.name),
      facetValues: [],
      shown: undefined as unknown as ShownOffer,
    };
    offer.shown = shownOf(offer);
    offer.facetValues = FACETS.map((facet) => facet.value(offer));
    offer.termsKey = termsKeyOf(offer);
    let interned = TERMS.get(offer.termsKey);
    if (!interned) TERMS.set(offer.termsKey, (interned = { id: TERMS.size + 1, terms: offer.terms }));
    offer.terms = interned.terms;
    offer.termsId = interned.id;
    // Immutable once loaded: requests of every data version read it at once (memos live in their own modules).
    offers.push(Object.freeze(offer));
  }

  const offersByInstitution = new Map<string, CatalogOffer[]>();
  for (const offer of offers) {
    const list = offersByInstitution.get(offer.institution.id) ?? [];
    list.push(offer);
    offersByInstitution.set(offer.institution.id, list);
  }

  const sources: CatalogSource[] = sourceRows.map((s) => ({ ...s }));
  return {
    version: version?.version ?? 0,
    generatedAt: version?.changedAt ?? new Date(0),
    offers,
    byId: new Map(offers.map((o) => [o.id, o])),
    institutions: [...institutions.values()].sort(
      (a, b) => compareBrandNames(a.name, b.name) || (a.id < b.id ? -1 : 1),
    ),
    offersByInstitution,
    removed: new Map(removedRows.map((r) => [r.id, r.removedAt])),
    sources,
    lastObservedAt: lastRun?.observedAt ?? null,
    lastIngestAt: lastRun?.appliedAt ?? null,
  };
}
