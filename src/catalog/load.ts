// Loads the catalogue from the database in a few queries (whatever the number of offers).
import type { PrismaClient } from '../db/client.js';
import type { CurrentState } from '../ingest/diff.js';
import { readVersion, type LedgerEntry } from '../ingest/ledger.js';
import { compareBrandNames } from '../domain/dgs.js';
import { Decimal, toFixed2 } from '../domain/decimal.js';
import { withholdingRateOf } from '../domain/calc.js';
import { promotionFromJson, promotionJson, tiersFromJson, tiersJson, withholdingFromRow } from '../ingest/rows.js';
import { fold } from '../domain/text.js';
import { amountRangeOf, FACETS } from './pipeline.js';
import { internTerms, termsKeyOf } from './terms-id.js';
import type {
  Catalog,
  CatalogBrand,
  CatalogInstitution,
  CatalogOffer,
  CatalogSource,
  OfferFacts,
  ShownOffer,
} from './types.js';

const dec = (v: { toString(): string }) => new Decimal(v.toString());
const decOrNull = (v: { toString(): string } | null) => (v === null ? null : dec(v));

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

/** A version's catalogue; the newest by default. An empty database (or no such version) gives version 0, empty. */
export async function loadCatalog(prisma: PrismaClient, version: number | 'head' = 'head'): Promise<Catalog> {
  // One repeatable-read transaction (readVersion): separate queries could straddle an ingest's commit and
  // pair one version's offers with another's plans or brands. Readers must never see a torn state.
  const found = await readVersion(prisma, version);
  return found ? catalogOf(found.entry, found.state) : EMPTY;
}

/**
 * A catalogue with no offers: of an empty database (no entry), or a version named by its entry alone,
 * for an answer that reads no catalogue (GET /api/state reads the version's state itself).
 */
export const catalogWithoutOffers = (entry: LedgerEntry | null): Catalog =>
  Object.freeze({
    version: entry?.version ?? 0,
    generatedAt: new Date(entry?.observedAt ?? 0),
    offers: [],
    byId: new Map(),
    institutions: [],
    offersByInstitution: new Map(),
    removed: new Map(),
    sources: [],
    lastObservedAt: entry && new Date(entry.observedAt),
    lastIngestAt: entry && new Date(entry.appliedAt),
    entry,
    offerFacts: new Map(),
  });

const EMPTY = catalogWithoutOffers(null);

const dateOrNull = (v: string | null) => (v === null ? null : new Date(v));

/** The catalogue of a version's state: the one way a state becomes what answers read, now or in the past. */
export function catalogOf(entry: LedgerEntry, state: CurrentState): Catalog {
  const brands = new Map<string, CatalogBrand>();
  const institutions = new Map<string, CatalogInstitution>();
  const brandsOf = new Map<string, CatalogBrand[]>();
  for (const b of state.brands.values()) {
    const brand: CatalogBrand = {
      id: b.id,
      name: b.name,
      country: b.country,
      website: b.website,
      institutionId: b.institutionId,
    };
    brands.set(b.id, brand);
    const list = brandsOf.get(b.institutionId) ?? [];
    list.push(brand);
    brandsOf.set(b.institutionId, list);
  }
  for (const row of state.institutions.values()) {
    institutions.set(row.id, {
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
        verifiedAt: dateOrNull(row.dgsVerifiedAt),
      },
      brands: (brandsOf.get(row.id) ?? []).sort((a, b) => compareBrandNames(a.name, b.name) || (a.id < b.id ? -1 : 1)),
    });
  }

  const offers: CatalogOffer[] = [];
  const removed = new Map<string, Date | null>();
  const offerFacts = new Map<string, OfferFacts>();
  const rows = [...state.offers.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const row of rows) {
    const brand = brands.get(row.brandId);
    if (brand)
      offerFacts.set(row.id, {
        id: row.id,
        name: row.name,
        type: row.type,
        termMonths: row.termMonths,
        brand: { id: brand.id, name: brand.name, country: brand.country },
        institutionId: brand.institutionId,
      });
    if (row.status === 'removed') {
      removed.set(row.id, dateOrNull(row.removedAt));
      continue;
    }
    const plan = state.currentPlans.get(row.id);
    const institution = brand && institutions.get(brand.institutionId);
    if (!plan || !brand || !institution) continue; // cannot happen through the ingest; never crash on it
    const withholding = withholdingFromRow(row);
    const tiers = tiersFromJson(plan.tiers);
    const promotion = promotionFromJson(plan.promotion);
    const annualFee = dec(row.annualFee);
    const minAmount = dec(row.minAmount);
    const maxAmount = decOrNull(row.maxAmount);
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
      minAmount,
      maxAmount,
      amountRange: amountRangeOf(minAmount, maxAmount),
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
      freshness: { checkedAt: new Date(row.checkedAt), official: row.official, confirmed: row.confirmed },
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
    offer.termsKey = termsKeyOf(offer.terms);
    const interned = internTerms(offer.terms, offer.termsKey);
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

  const sources: CatalogSource[] = [...state.sources.values()]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((s) => ({
      ...s,
      lastCheckedAt: dateOrNull(s.lastCheckedAt),
      lastSuccessAt: dateOrNull(s.lastSuccessAt),
    }));
  return {
    version: entry.version,
    generatedAt: new Date(entry.observedAt),
    offers,
    byId: new Map(offers.map((o) => [o.id, o])),
    institutions: [...institutions.values()].sort(
      (a, b) => compareBrandNames(a.name, b.name) || (a.id < b.id ? -1 : 1),
    ),
    offersByInstitution,
    removed,
    sources,
    lastObservedAt: new Date(entry.observedAt),
    lastIngestAt: new Date(entry.appliedAt),
    entry,
    offerFacts,
  };
}
