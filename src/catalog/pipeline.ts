// GET /api/products, contract §4: filter, calculate, eligibility, DGS, count, sort, page — plus the
// facets, term curve, per-type maxima and market summary over the same request. Pure: the catalogue,
// the query and the time go in, the list comes out.
import { coveredAmount, dgsSplit, sortedBrands } from '../domain/dgs.js';
import { compareDecimals, type Decimal } from '../domain/decimal.js';
import type { CalcSummary, DgsSplit, OfferType } from '../domain/types.js';
import type { PresentedCalc } from '../domain/present.js';
import { drain } from '../domain/plan/search.js';
import { pausePoints, type CalcService } from './calc-service.js';
import { CalculatedOffer, type IneligibleReason } from './calculated-offer.js';
import { compileFilters, F, filterKey, keepMasks, keptMasks } from './filters.js';
import { answerInstant } from './freshness.js';
import type { MarketBest } from './market.js';
import type { ProductQuery } from './query.js';
import { betterYield, comparator, lazyOrder, type Ranked } from './sort.js';
import type { AmountRange, Catalog, CatalogOffer } from './types.js';

export type { IneligibleReason };

/** An offer in the list: ranked on its yields; eligible or why not. */
export interface RankedOffer extends Ranked {
  eligible: boolean;
  ineligibleReason: IneligibleReason | null;
}

/** An offer as shown: with its whole calculation and DGS split. */
export interface OfferResult extends RankedOffer {
  calc: CalcSummary;
  dgs: DgsSplit;
  /** What a client sees of `calc` where floats decide every cent (a list's rows): `calc` is then not made. */
  shown?: PresentedCalc | null;
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

export interface MarketSummary {
  offers: number;
  institutions: number;
  verifiedDgs: number;
  best: MarketBest;
}

/**
 * What a list is whatever its page: its rows, counts, facets, curve, maxima and market. Pages of one
 * query share it (an export asks for every page of a list; a client paging through asks for several).
 */
export interface ListCore {
  /** Every matching offer in order (the export shows all of them: see `withCalc`); sorted on first use. */
  readonly rows: RankedOffer[];
  /** The first `k` rows in order: from `rows` once sorted, else the best k of them without sorting the rest. */
  first(k: number): RankedOffer[];
  total: number;
  hiddenByDgs: number;
  hiddenIneligible: number;
  facets: Facets;
  termCurve: TermPoint[];
  typeMax: Record<OfferType, BestRate | null>;
  market: MarketSummary;
  generatedAt: Date;
}

export interface ProductList extends Omit<ListCore, 'first'> {
  /** The requested page of `rows`, calculated in full. */
  items: OfferResult[];
  page: number;
  pageSize: number;
  /** Pages of pageSize that hold the total; 1 for an empty list (its first page exists, empty). */
  pages: number;
}

type Stage = 'ok' | 'ineligible' | 'dgs';

/** The facets, in the order of CatalogOffer.facetValues. */
export const FACETS: {
  name: keyof Facets;
  bit: number;
  value: (o: CatalogOffer) => string | null;
  numeric?: boolean;
}[] = [
  { name: 'type', bit: F.type, value: (o) => o.type },
  { name: 'channel', bit: F.channel, value: (o) => o.channel },
  { name: 'country', bit: F.country, value: (o) => o.brand.country },
  { name: 'dgsCountry', bit: F.dgsCountry, value: (o) => o.institution.dgs.country },
  { name: 'payout', bit: F.payout, value: (o) => o.payout },
  {
    name: 'term',
    bit: F.term,
    value: (o) => (o.type === 'deposit' && o.termMonths !== null ? String(o.termMonths) : null),
    numeric: true,
  },
  { name: 'withholding', bit: F.withholding, value: (o) => o.withholding.kind },
];
const FACET_BITS = FACETS.map((f) => f.bit);

/** An offer's amount limits as numbers, for ineligibility's first comparison. */
export const amountRangeOf = (min: Decimal, max: Decimal | null): AmountRange => ({
  min: min.toNumber(),
  max: max === null ? Infinity : max.toNumber(),
});

/**
 * Below the minimum, above the maximum, or eligible. A list asks this of every offer, so numbers decide
 * first: Decimal → number rounds to nearest, which never reverses an order (a < b gives number(a) ≤
 * number(b)), so numbers that differ order the Decimals the same way, and only equal numbers are
 * compared as Decimals. `value` is the amount as a number (made once per list).
 */
export function ineligibility(
  offer: CatalogOffer,
  amount: Decimal,
  value = amount.toNumber(),
): IneligibleReason | null {
  return ineligibleBetween(offer.amountRange.min, offer.amountRange.max, offer, amount, value);
}

/** ineligibility, with the offer's limits as numbers given (from the catalogue's columns in a list). */
function ineligibleBetween(
  min: number,
  max: number,
  offer: CatalogOffer,
  amount: Decimal,
  value: number,
): IneligibleReason | null {
  if (value < min || (value === min && compareDecimals(amount, offer.minAmount) < 0)) return 'below_minimum';
  if (value > max || (value === max && compareDecimals(amount, offer.maxAmount!) > 0)) return 'above_maximum';
  return null;
}

/**
 * What a list's first pass reads of every offer, as columns: amount limits as numbers, and each facet's
 * value as a small integer (its distinct values listed once). A list reads them from a few contiguous
 * arrays instead of from ~700 offer objects and their parts scattered in the heap (the pass was bound by
 * those reads), and counts facets in integer arrays, not maps of strings. Made once per catalogue.
 */
interface Columns {
  min: Float64Array;
  max: Float64Array;
  /** Per facet (FACETS' order): per offer, the index of its value in facetValues, or −1 for none. */
  facetCodes: Int32Array[];
  facetValues: string[][];
}

const columnsByOffers = new WeakMap<readonly CatalogOffer[], Columns>();

function columnsOf(offers: readonly CatalogOffer[]): Columns {
  let columns = columnsByOffers.get(offers);
  if (columns) return columns;
  const n = offers.length;
  columns = {
    min: new Float64Array(n),
    max: new Float64Array(n),
    facetCodes: FACETS.map(() => new Int32Array(n)),
    facetValues: FACETS.map(() => []),
  };
  const codes = FACETS.map(() => new Map<string, number>());
  for (let i = 0; i < n; i++) {
    const offer = offers[i]!;
    columns.min[i] = offer.amountRange.min;
    columns.max[i] = offer.amountRange.max;
    for (let k = 0; k < FACETS.length; k++) {
      const value = offer.facetValues[k];
      if (value === null || value === undefined) {
        columns.facetCodes[k]![i] = -1;
        continue;
      }
      let code = codes[k]!.get(value);
      if (code === undefined) {
        code = columns.facetValues[k]!.length;
        codes[k]!.set(value, code);
        columns.facetValues[k]!.push(value);
      }
      columns.facetCodes[k]![i] = code;
    }
  }
  columnsByOffers.set(offers, columns);
  return columns;
}

/** A catalogue's counts for the market summary: the same for every list of it, counted once. */
const marketCounts = new WeakMap<Catalog, Omit<MarketSummary, 'best'>>();

/** The market summary over all active offers, whatever the filters. */
export function marketSummary(catalog: Catalog, best: MarketBest): MarketSummary {
  let counts = marketCounts.get(catalog);
  if (!counts) {
    const institutions = new Set(catalog.offers.map((o) => o.institution));
    counts = {
      offers: catalog.offers.length,
      institutions: institutions.size,
      verifiedDgs: [...institutions].filter((i) => i.dgs.verified).length,
    };
    marketCounts.set(catalog, counts);
  }
  return { ...counts, best };
}

/** Where an offer stands at an amount, whatever its eligibility: its DGS split, and whether the amount fits. */
export function offerStanding(
  amount: Decimal,
  offer: CatalogOffer,
  split: (offer: CatalogOffer) => DgsSplit = splitsAt(amount),
): Pick<OfferResult, 'dgs' | 'eligible' | 'ineligibleReason'> {
  const reason = ineligibility(offer, amount);
  return { dgs: split(offer), eligible: reason === null, ineligibleReason: reason };
}

type CalcQuery = Pick<ProductQuery, 'amount' | 'horizon' | 'promotions'>;

/** One offer as shown outside a list (a detail's same-licence offers, a plan's parts): whatever its eligibility. */
export function offerResult(
  calc: CalcService,
  q: CalcQuery,
  offer: CatalogOffer,
  split?: (offer: CatalogOffer) => DgsSplit,
): OfferResult {
  const { dgs, eligible, ineligibleReason } = offerStanding(q.amount, offer, split);
  return new CalculatedOffer(calc, q, offer, undefined, dgs.covered, eligible, ineligibleReason, dgs);
}

/** The whole calculation of a ranked offer, for showing it. */
export function withCalc(
  calc: CalcService,
  q: CalcQuery,
  r: RankedOffer,
  split: (offer: CatalogOffer) => DgsSplit = splitsAt(q.amount),
): OfferResult {
  return new CalculatedOffer(calc, q, r.offer, r.yields, r.covered, r.eligible, r.ineligibleReason, split(r.offer));
}

/**
 * dgsSplit at one amount for offer after offer: its figures are the same for every offer of a scheme (a
 * page has a few dozen schemes, and the cover's percentage is a 34-digit division), its brands the offer's.
 */
export function splitsAt(amount: Decimal): (offer: CatalogOffer) => DgsSplit {
  const bySchemes = new Map<CatalogOffer['institution']['dgs'], DgsSplit>();
  return (offer) => {
    const dgs = offer.institution.dgs;
    let split = bySchemes.get(dgs);
    if (split === undefined) bySchemes.set(dgs, (split = dgsSplit(amount, dgs, [])));
    return offer.sharedWith.length === 0 ? split : { ...split, sharedWith: sortedBrands(offer.sharedWith) };
  };
}

export interface PipelineContext {
  catalog: Catalog;
  calc: CalcService;
  /** The best rates of the market view's latest day (from the rate history). */
  marketBest: MarketBest;
  /** For freshness=24h. */
  now: Date;
}

/** Pages of `pageSize` that hold `total` items: at least one (an empty list has an empty first page). */
export const pageCount = (total: number, pageSize: number): number => Math.max(1, Math.ceil(total / pageSize));

/** How many offers (or shown rows) a list works through between the points where it may be paused. */
const LIST_STEP = 16;

/** The list computed at once, on the caller's stack. */
export function listProducts(ctx: PipelineContext, q: ProductQuery): ProductList {
  return drain(listSteps(ctx, q));
}

/**
 * The list as steps: it yields every LIST_STEP offers and shown rows, so that a lane (lane.ts) can run a
 * list of hundreds of rows, or a first list that builds the calculation's pieces, without holding the
 * event loop for its whole time. Where it yields is counted, not timed: the list is the same however
 * it is paused.
 */
export function* listSteps(ctx: PipelineContext, q: ProductQuery): Generator<void, ProductList, void> {
  return yield* pageSteps(yield* coreSteps(ctx, q), ctx.calc, q);
}

/** The page `q` asks for of a list's core, its rows calculated in full, in steps as listSteps. */
export function* pageSteps(
  core: ListCore,
  calc: CalcService,
  q: Pick<ProductQuery, 'amount' | 'horizon' | 'promotions' | 'page' | 'pageSize'>,
): Generator<void, ProductList, void> {
  const start = (q.page - 1) * q.pageSize;
  const page = core.first(start + q.pageSize).slice(start);
  const items: OfferResult[] = [];
  const split = splitsAt(q.amount);
  for (const r of page) {
    if (items.length % LIST_STEP === LIST_STEP - 1) yield;
    items.push(withCalc(calc, q, r, split));
  }
  // Field by field: a spread of the core would read its rows, and sort them all.
  return {
    get rows() {
      return core.rows;
    },
    items,
    total: core.total,
    hiddenByDgs: core.hiddenByDgs,
    hiddenIneligible: core.hiddenIneligible,
    page: q.page,
    pageSize: q.pageSize,
    pages: pageCount(core.total, q.pageSize),
    facets: core.facets,
    termCurve: core.termCurve,
    typeMax: core.typeMax,
    market: core.market,
    generatedAt: core.generatedAt,
  };
}

/** The list's core for `q` (its page and pageSize aside), in steps as listSteps. */
export function* coreSteps(ctx: PipelineContext, q: ProductQuery): Generator<void, ListCore, void> {
  const { catalog, calc } = ctx;
  const offers = catalog.offers;
  const n = offers.length;

  // Per offer: which filter groups it fails (F's bits: a byte), and how it fares on eligibility and the
  // DGS (steps 4–5).
  const key = filterKey(q);
  const known = keptMasks(catalog, key);
  const failures = known ? null : compileFilters(q, ctx.now);
  const masks = known ?? new Uint8Array(n);
  const stages: Stage[] = new Array(n);
  const reasons: (IneligibleReason | null)[] = new Array(n);
  const covered: (Decimal | undefined)[] = new Array(n);
  const amountValue = q.amount.toNumber();
  const columns = columnsOf(offers);
  for (let i = 0; i < n; i++) {
    if (i % LIST_STEP === LIST_STEP - 1) yield;
    const offer = offers[i]!;
    if (failures) masks[i] = failures(offer);
    const reason = ineligibleBetween(columns.min[i]!, columns.max[i]!, offer, q.amount, amountValue);
    reasons[i] = reason;
    if (reason !== null && !q.includeIneligible) {
      stages[i] = 'ineligible';
      continue;
    }
    // The whole split (dgs.ts) is made for shown offers only; the filter needs the covered amount.
    const c = coveredAmount(q.amount, offer.institution.dgs);
    covered[i] = c;
    stages[i] = q.fullDgs && compareDecimals(c, q.amount) !== 0 ? 'dgs' : 'ok';
  }
  if (failures) keepMasks(catalog, key, masks);

  // Yields only where some output needs them; the whole calculation only for the page.
  const ranked: (RankedOffer | undefined)[] = new Array(n);
  const resultOf = (i: number): RankedOffer => {
    let r = ranked[i];
    if (!r) {
      const offer = offers[i]!;
      const yields = calc.rank(offer, q.amount, q.horizon, q.promotions);
      r = { offer, yields, covered: covered[i]!, eligible: reasons[i] === null, ineligibleReason: reasons[i] ?? null };
      ranked[i] = r;
    }
    return r;
  };

  const rows: RankedOffer[] = [];
  let hiddenIneligible = 0;
  let hiddenByDgs = 0;
  const facetCounts = columns.facetValues.map((values) => new Int32Array(values.length));
  const typeMax: Record<OfferType, RankedOffer | null> = { flexible: null, notice: null, deposit: null };
  const termBest = new Map<number, RankedOffer>();

  // Also after an offer whose ranking traced its calculation's pieces (a new amount range or horizon): that
  // one offer may have taken a millisecond or more.
  const due = pausePoints(calc, LIST_STEP);
  for (let i = 0; i < n; i++) {
    if (due()) yield;
    const mask = masks[i]!;
    const stage = stages[i]!;
    if (mask === 0) {
      if (stage === 'ineligible') hiddenIneligible++;
      else if (stage === 'dgs') hiddenByDgs++;
      else rows.push(resultOf(i));
    }
    if (stage !== 'ok') continue;
    for (let k = 0; k < FACET_BITS.length; k++) {
      if ((mask & ~FACET_BITS[k]!) !== 0) continue;
      const code = columns.facetCodes[k]![i]!;
      if (code >= 0) facetCounts[k]![code]!++;
    }
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

  const cmp = comparator(q.sort, q.order);
  const facets = Object.fromEntries(
    FACETS.map((facet, k) => {
      const counts = facetCounts[k]!;
      const names = columns.facetValues[k]!;
      const values: { value: string; count: number }[] = [];
      for (let code = 0; code < counts.length; code++)
        if (counts[code]! > 0) values.push({ value: names[code]!, count: counts[code]! });
      values.sort(
        facet.numeric
          ? (a, b) => Number(a.value) - Number(b.value)
          : (a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
      );
      return [facet.name, values];
    }),
  ) as unknown as Facets;
  const best = (r: RankedOffer | null): BestRate | null => r && { rate: r.yields.comparableYield, offerId: r.offer.id };

  return sortedWhenAsked(rows, cmp, {
    total: rows.length,
    hiddenByDgs,
    hiddenIneligible,
    facets,
    termCurve: [...termBest.entries()]
      .sort(([a], [b]) => a - b)
      .map(([term, r]) => ({ term, rate: r.yields.comparableYield, offerId: r.offer.id })),
    typeMax: { flexible: best(typeMax.flexible), notice: best(typeMax.notice), deposit: best(typeMax.deposit) },
    market: marketSummary(catalog, ctx.marketBest),
    generatedAt: answerInstant(catalog.generatedAt, ctx.now, q.freshness === '24h'),
  });
}

/**
 * The core with its whole order sorted on first use. Made here, not in coreSteps: a getter made there
 * would hold coreSteps' scope, and with it an array per offer of the catalogue (masks, stages, reasons,
 * covered amounts, ranked results) in every list the calculator keeps, which counts only its rows. At
 * 13,000 offers that was ≈430 KB a list for a few KB counted, and cold lists at new amounts filled the
 * heap with 800 of them.
 */
function sortedWhenAsked(
  rows: RankedOffer[],
  cmp: (a: RankedOffer, b: RankedOffer) => number,
  core: Omit<ListCore, 'rows' | 'first'>,
): ListCore {
  const order = lazyOrder(rows, cmp);
  return {
    get rows() {
      return order.all;
    },
    first: (k) => order.first(k),
    ...core,
  };
}
