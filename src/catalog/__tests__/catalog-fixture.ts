// A catalogue built in memory, the way load.ts builds one from the database, for tests that need a
// handful of offers with numbers checked by hand.
import { withholdingRateOf } from '../../domain/calc.js';
import { Decimal, toFixed2 } from '../../domain/decimal.js';
import { fold } from '../../domain/text.js';
import type { Promotion, Tier } from '../../domain/types.js';
import { amountRangeOf, FACETS } from '../pipeline.js';
import type { Catalog, CatalogBrand, CatalogInstitution, CatalogOffer } from '../types.js';

const d = (v: string) => new Decimal(v);

export interface InstitutionSpec {
  id: string;
  limit?: string;
  verified?: boolean;
  country?: string;
  /** Brand ids; the first is the institution's own name. Default: one brand with the institution's id. */
  brands?: string[];
}

export interface OfferSpec {
  id: string;
  brand: string;
  type?: CatalogOffer['type'];
  termMonths?: number | null;
  /** [from, rate] per tier; the last is open-ended. */
  tiers?: [from: string, rate: string][];
  tierMode?: CatalogOffer['tierMode'];
  promotion?: Promotion | null;
  payout?: CatalogOffer['payout'];
  interestCompounds?: boolean;
  minAmount?: string;
  maxAmount?: string | null;
  annualFee?: string;
  withholding?: CatalogOffer['withholding'];
}

let termsIds = 1_000_000;

export function buildCatalog(institutionSpecs: InstitutionSpec[], offerSpecs: OfferSpec[]): Catalog {
  const brands = new Map<string, CatalogBrand>();
  const institutions = institutionSpecs.map((spec): CatalogInstitution => {
    const institution: CatalogInstitution = {
      id: spec.id,
      name: `${spec.id} N.V.`,
      country: spec.country ?? 'NL',
      lei: null,
      dgs: {
        scheme: 'DGS',
        country: spec.country ?? 'NL',
        limit: d(spec.limit ?? '100000.00'),
        verified: spec.verified ?? true,
        source: null,
        verifiedAt: null,
      },
      brands: [],
    };
    institution.brands = (spec.brands ?? [spec.id]).map((id) => ({
      id,
      name: id.toUpperCase(),
      country: institution.country,
      website: null,
      institutionId: spec.id,
    }));
    for (const b of institution.brands) brands.set(b.id, b);
    return institution;
  });
  const institutionOf = new Map(institutions.map((i) => [i.id, i]));
  const offers = offerSpecs.map((spec): CatalogOffer => {
    const brand = brands.get(spec.brand)!;
    const institution = institutionOf.get(brand.institutionId)!;
    const rows = spec.tiers ?? [['0', '2.00']];
    const tiers: Tier[] = rows.map(([from, rate], i) => ({
      from: d(from),
      to: i + 1 < rows.length ? d(rows[i + 1]![0]) : null,
      rate: d(rate),
    }));
    const withholding = spec.withholding ?? { kind: 'none', rate: null, reducedRate: null };
    const type = spec.type ?? 'flexible';
    const minAmount = d(spec.minAmount ?? '1.00');
    const maxAmount = spec.maxAmount === undefined || spec.maxAmount === null ? null : d(spec.maxAmount);
    const offer: CatalogOffer = {
      id: spec.id,
      name: spec.id,
      type,
      brand,
      institution,
      channel: 'direct',
      platform: null,
      termMonths: type === 'deposit' ? (spec.termMonths ?? 12) : null,
      noticeDays: type === 'notice' ? 30 : null,
      payout: spec.payout ?? 'ANNUALLY',
      minAmount,
      maxAmount,
      amountRange: amountRangeOf(minAmount, maxAmount),
      planId: 1,
      rateType: 'variable',
      headlineRate: tiers.reduce((m, t) => Decimal.max(m, t.rate), tiers[0]!.rate),
      tierMode: spec.tierMode ?? 'whole',
      tiers,
      promotion: spec.promotion ?? null,
      openToNewCustomers: true,
      currentAccountRequired: false,
      annualFee: d(spec.annualFee ?? '0.00'),
      earlyWithdrawal: true,
      interestCompounds: spec.interestCompounds ?? true,
      withholding,
      freshness: { checkedAt: new Date('2026-11-20T06:00:00.000Z'), official: true, confirmed: true },
      sourceId: 'src',
      sourceUrl: null,
      terms: undefined as unknown as CatalogOffer['terms'],
      termsKey: spec.id,
      termsId: termsIds++,
      searchText: fold(`${brand.name}\u0000${spec.id}\u0000${institution.name}`),
      sharedWith: institution.brands.filter((b) => b.id !== brand.id).map((b) => b.name),
      facetValues: [],
      shown: undefined as unknown as CatalogOffer['shown'],
    };
    offer.terms = {
      tierMode: offer.tierMode,
      tiers,
      promotion: offer.promotion,
      payout: offer.payout,
      interestCompounds: offer.interestCompounds,
      annualFee: offer.annualFee,
      withholdingRate: withholdingRateOf(withholding),
    };
    offer.facetValues = FACETS.map((f) => f.value(offer));
    offer.shown = {
      headlineRate: toFixed2(offer.headlineRate),
      minAmount: toFixed2(offer.minAmount),
      maxAmount: offer.maxAmount && toFixed2(offer.maxAmount),
      annualFee: toFixed2(offer.annualFee),
      tiers: tiers.map((t) => ({ from: toFixed2(t.from), to: t.to && toFixed2(t.to), rate: toFixed2(t.rate) })),
      promotion: null,
      withholding: { kind: withholding.kind, rate: null, reducedRate: null },
    };
    return offer;
  });
  offers.sort((a, b) => (a.id < b.id ? -1 : 1));
  const offersByInstitution = new Map<string, CatalogOffer[]>();
  for (const o of offers)
    offersByInstitution.set(o.institution.id, [...(offersByInstitution.get(o.institution.id) ?? []), o]);
  return {
    version: 1,
    generatedAt: new Date('2026-11-20T06:00:00.000Z'),
    offers,
    byId: new Map(offers.map((o) => [o.id, o])),
    institutions,
    offersByInstitution,
    removed: new Map(),
    sources: [],
    lastObservedAt: null,
    lastIngestAt: null,
    entry: null,
    offerFacts: new Map(
      offers.map((o) => [
        o.id,
        {
          id: o.id,
          name: o.name,
          type: o.type,
          termMonths: o.termMonths,
          brand: { id: o.brand.id, name: o.brand.name, country: o.brand.country },
          institutionId: o.institution.id,
        },
      ]),
    ),
  };
}
