// GET /api/products, contract §4: filter, calculate, eligibility, DGS, count, sort, page — plus the
// facets, term curve, per-type maxima and market summary over the same request. Pure: the catalogue,
// the query and the time go in, the list comes out.
import { dgsSplit } from '../domain/dgs.js';
import type { Decimal } from '../domain/decimal.js';
import type { DgsSplit, OfferType } from '../domain/types.js';
import type { CalcService, CalcSummary, CalcYields } from './calc-service.js';
import { compileFilters, F } from './filters.js';
import type { ProductQuery } from './query.js';
import { betterYield, comparator, type Ranked } from './sort.js';
import type { Catalog, CatalogOffer } from './types.js';

export type IneligibleReason = 'below_minimum' | 'above_maximum';

/** An offer in the list: ranked on its yields; eligible or why not. */
export interface RankedOffer extends Ranked {
  eligible: boolean;
  ineligibleReason: IneligibleReason | null;
}

/** An offer as shown: with its whole calculation. */
export interface OfferResult extends RankedOffer {
  calc: CalcSummary;
}

export interface FacetValue {
  value: string;
  count: number;
}

export interface Facets {
  type: FacetValue[];
  channel: FacetValue[];
  country: FacetValue[];
  dgsCountry: FacetValue[];
  payout: FacetValue[];
  term: FacetValue[];
  withholding: FacetValue[];
}

export interface BestRate {
  rate: Decimal;
  offerId: string;
}

export interface TermPoint extends BestRate {
  term: number;
}

export interface MarketBest {
  flexible: Decimal | null;
  notice: Decimal | null;
  deposit12: Decimal | null;
  deposit60: Decimal | null;
}

export interface MarketSummary {
  offers: number;
  institutions: number;
  verifiedDgs: number;
  best: MarketBest;
}

export interface ProductList {
  /** Every matching offer in order (the export shows all of them: see `withCalc`). */
  rows: RankedOffer[];
  /** The requested page of `rows`, calculated in full. */
  items: OfferResult[];
  total: number;
  hiddenByDgs: number;
  hiddenIneligible: number;
  facets: Facets;
  termCurve: TermPoint[];
  typeMax: Record<OfferType, BestRate | null>;
  market: MarketSummary;
  generatedAt: Date;
}

type Stage = 'ok' | 'ineligible' | 'dgs';

const FACETS: { name: keyof Facets; bit: number; value: (o: CatalogOffer) => string | null; numeric?: boolean }[] = [
  { name: 'type', bit: F.type, value: (o) => o.type },
  { name: 'channel', bit: F.channel, value: (o) => o.channel },
  { name: 'country', bit: F.country, value: (o) => o.brand.country },
  { name: 'dgsCountry', bit: F.dgsCountry, value: (o) => o.institution.dgs.country },
  { name: 'payout', bit: F.payout, value: (o) => o.payout },
  { name: 'term', bit: F.term, value: (o) => (o.type === 'deposit' && o.termMonths !== null ? String(o.termMonths) : null), numeric: true },
  { name: 'withholding', bit: F.withholding, value: (o) => o.withholding.kind },
];

export function ineligibility(offer: CatalogOffer, amount: Decimal): IneligibleReason | null {
  if (amount.lt(offer.minAmount)) return 'below_minimum';
  if (offer.maxAmount !== null && amount.gt(offer.maxAmount)) return 'above_maximum';
  return null;
}

/** The market summary over all active offers, whatever the filters. */
export function marketSummary(catalog: Catalog, best: MarketBest): MarketSummary {
  const institutions = new Set(catalog.offers.map((o) => o.institution));
  return {
    offers: catalog.offers.length,
    institutions: institutions.size,
    verifiedDgs: [...institutions].filter((i) => i.dgs.verified).length,
    best,
  };
}

/** One offer as shown outside a list (the detail, its same-licence offers): whatever its eligibility. */
export function offerResult(calc: CalcService, q: Pick<ProductQuery, 'amount' | 'horizon' | 'promotions'>, offer: CatalogOffer): OfferResult {
  const reason = ineligibility(offer, q.amount);
  return {
    offer,
    yields: calc.yields(offer, q.amount, q.horizon, q.promotions),
    calc: calc.summary(offer, q.amount, q.horizon, q.promotions),
    dgs: dgsSplit(q.amount, offer.institution.dgs, offer.sharedWith),
    eligible: reason === null,
    ineligibleReason: reason,
  };
}

/** The whole calculation of a ranked offer, for showing it. */
export function withCalc(calc: CalcService, q: Pick<ProductQuery, 'amount' | 'horizon' | 'promotions'>, r: RankedOffer): OfferResult {
  return { ...r, calc: calc.summary(r.offer, q.amount, q.horizon, q.promotions) };
}

export interface PipelineContext {
  catalog: Catalog;
  calc: CalcService;
  /** The best rates of the market view's latest day (from the rate history). */
  marketBest: MarketBest;
  /** For freshness=24h. */
  now: Date;
}

export function listProducts(ctx: PipelineContext, q: ProductQuery): ProductList {
  const { catalog, calc } = ctx;
  const failures = compileFilters(q, ctx.now);
  const offers = catalog.offers;
  const n = offers.length;

  // Per offer: which filter groups it fails, and how it fares on eligibility and the DGS (steps 4–5).
  const masks = new Int32Array(n);
  const stages: Stage[] = new Array(n);
  const reasons: (IneligibleReason | null)[] = new Array(n);
  const splits: (DgsSplit | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const offer = offers[i]!;
    masks[i] = failures(offer);
    const reason = ineligibility(offer, q.amount);
    reasons[i] = reason;
    if (reason !== null && !q.includeIneligible) {
      stages[i] = 'ineligible';
      continue;
    }
    const dgs = dgsSplit(q.amount, offer.institution.dgs, offer.sharedWith);
    splits[i] = dgs;
    stages[i] = q.fullDgs && !dgs.fullyCovered ? 'dgs' : 'ok';
  }

  // Yields only where some output needs them; the whole calculation only for the page.
  const ranked: (RankedOffer | undefined)[] = new Array(n);
  const resultOf = (i: number): RankedOffer => {
    let r = ranked[i];
    if (!r) {
      const offer = offers[i]!;
      const yields: CalcYields = calc.yields(offer, q.amount, q.horizon, q.promotions);
      r = { offer, yields, dgs: splits[i]!, eligible: reasons[i] === null, ineligibleReason: reasons[i] ?? null };
      ranked[i] = r;
    }
    return r;
  };

  const rows: RankedOffer[] = [];
  let hiddenIneligible = 0;
  let hiddenByDgs = 0;
  const facetCounts = FACETS.map(() => new Map<string, number>());
  const typeMax: Record<OfferType, RankedOffer | null> = { flexible: null, notice: null, deposit: null };
  const termBest = new Map<number, RankedOffer>();

  for (let i = 0; i < n; i++) {
    const mask = masks[i]!;
    const stage = stages[i]!;
    if (mask === 0) {
      if (stage === 'ineligible') hiddenIneligible++;
      else if (stage === 'dgs') hiddenByDgs++;
      else rows.push(resultOf(i));
    }
    if (stage !== 'ok') continue;
    FACETS.forEach((facet, k) => {
      if ((mask & ~facet.bit) !== 0) return;
      const value = facet.value(offers[i]!);
      if (value !== null) facetCounts[k]!.set(value, (facetCounts[k]!.get(value) ?? 0) + 1);
    });
    if ((mask & ~F.type) === 0) {
      const r = resultOf(i);
      const best = typeMax[r.offer.type];
      if (!best || betterYield(r, best)) typeMax[r.offer.type] = r;
    }
    const offer = offers[i]!;
    if (offer.type === 'deposit' && offer.termMonths !== null && (mask & ~(F.type | F.term)) === 0) {
      const r = resultOf(i);
      const best = termBest.get(offer.termMonths);
      if (!best || betterYield(r, best)) termBest.set(offer.termMonths, r);
    }
  }

  rows.sort(comparator(q.sort, q.order));
  const start = (q.page - 1) * q.pageSize;
  const facets = Object.fromEntries(
    FACETS.map((facet, k) => {
      const values = [...facetCounts[k]!].map(([value, count]) => ({ value, count }));
      values.sort(facet.numeric ? (a, b) => Number(a.value) - Number(b.value) : (a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
      return [facet.name, values];
    }),
  ) as unknown as Facets;
  const best = (r: RankedOffer | null): BestRate | null => r && { rate: r.yields.comparableYield, offerId: r.offer.id };

  return {
    rows,
    items: rows.slice(start, start + q.pageSize).map((r) => withCalc(calc, q, r)),
    total: rows.length,
    hiddenByDgs,
    hiddenIneligible,
    facets,
    termCurve: [...termBest.entries()].sort(([a], [b]) => a - b).map(([term, r]) => ({ term, rate: r.yields.comparableYield, offerId: r.offer.id })),
    typeMax: { flexible: best(typeMax.flexible), notice: best(typeMax.notice), deposit: best(typeMax.deposit) },
    market: marketSummary(catalog, ctx.marketBest),
    generatedAt: catalog.generatedAt,
  };
}
