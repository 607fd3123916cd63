// The list's order (contract §4): the chosen key in its direction, then the fixed tie-breakers
// returnPerYear desc, coveredPercent desc, id asc. Always on unrounded values, so it is a total order.
import { compareBrandNames } from '../domain/dgs.js';
import { compareDecimals, roughNumber, type Decimal } from '../domain/decimal.js';
import { roughOrder } from '../domain/rough.js';
import { DEFAULT_ORDER, type Order, type SortKey } from './query.js';
import type { RankYields } from './shapes.js';
import type { CatalogOffer } from './types.js';

export interface Ranked {
  offer: CatalogOffer;
  yields: RankYields;
  /** The part of the amount a verified DGS covers. Within one request the amount is the same for every
   * offer, so ordering by it is ordering by coveredPercent, without a division per offer. */
  covered: Decimal;
}

const cmpDec = compareDecimals;

/**
 * Yields (percent) closer than this, relative to the larger (or to 1 % for yields below 1 %), are equal.
 * Two offers whose yields are equal in exact arithmetic get them along different paths (a 12-month deposit
 * at 2.85 % in one period, a 120-month one compounded yearly and then a tenth root), and 34-digit
 * arithmetic leaves them differing in their last digits: the piece evaluator and the reference loop agree
 * to 1e-24, the root to 1e-30. Compared exactly, that noise would decide their order, not the documented
 * tie-breaks. Yields that truly differ do so by far more: rates have two decimals, amounts whole cents.
 */
const YIELD_TIE = 1e-20;
/** Floats of 15 digits (roughNumber) that differ by more than this are yields more than YIELD_TIE apart. */
const SCREEN = 1e-12;

/** Yields in order, equal within YIELD_TIE (method 1.1; docs/calculation.md). */
export function compareYields(a: Decimal, b: Decimal): number {
  const exact = compareDecimals(a, b);
  if (exact === 0) return 0;
  const x = roughNumber(a);
  const y = roughNumber(b);
  const scale = Math.max(1, Math.abs(x), Math.abs(y));
  // Most pairs are told apart by the floats; only near-equals pay for the exact difference.
  if (Math.abs(x - y) > SCREEN * scale) return exact;
  return Math.abs(a.minus(b).toNumber()) <= YIELD_TIE * scale ? 0 : exact;
}
/**
 * Comparable yields in order (compareYields), from their floats where those tell (src/domain/rough.ts).
 * Yields known exactly (kept constants, the reference's) have no rough value: their own float, within
 * 1e-14 of them, stands in, so that they do not make the other side work its exact value out.
 */
function compareComparable(a: RankYields, b: RankYields): number {
  // Offers of the same terms share their yields' object (calc-service.ts): equal, without working them out.
  if (a === b) return 0;
  const x = a.roughComparable ?? roughNumber(a.comparableYield);
  const y = b.roughComparable ?? roughNumber(b.comparableYield);
  return roughOrder(x, y) || compareYields(a.comparableYield, b.comparableYield);
}

/** Effective rates in order, likewise. */
function compareEffective(a: RankYields, b: RankYields): number {
  if (a === b) return 0;
  const x = a.roughEffective ?? roughNumber(a.effectiveRate);
  const y = b.roughEffective ?? roughNumber(b.effectiveRate);
  return roughOrder(x, y) || compareYields(a.effectiveRate, b.effectiveRate);
}

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const cmpNum = (a: number, b: number) => a - b;

/** Nulls sort last whatever the direction. */
function cmpNullable(a: number | null, b: number | null, sign: number): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return sign * cmpNum(a, b);
}

/** The primary comparison, ascending. */
const PRIMARY: Record<Exclude<SortKey, 'term'>, (a: Ranked, b: Ranked) => number> = {
  // returnPerYear = amount × comparableYield / 100 with one amount for the whole list: the same order.
  return: (a, b) => compareComparable(a.yields, b.yields),
  effective: (a, b) => compareEffective(a.yields, b.yields),
  headline: (a, b) => cmpDec(a.offer.headlineRate, b.offer.headlineRate),
  bank: (a, b) => compareBrandNames(a.offer.brand.name, b.offer.brand.name),
  country: (a, b) => cmpStr(a.offer.brand.country, b.offer.brand.country),
  verified: (a, b) => cmpNum(a.offer.freshness.checkedAt.getTime(), b.offer.freshness.checkedAt.getTime()),
  min: (a, b) => cmpDec(a.offer.minAmount, b.offer.minAmount),
};

/**
 * returnPerYear desc (as comparableYield: see PRIMARY.return), coveredPercent desc, id asc: what decides between
 * equals.
 */
export function tieBreak(a: Ranked, b: Ranked): number {
  return compareComparable(b.yields, a.yields) || cmpDec(b.covered, a.covered) || cmpStr(a.offer.id, b.offer.id);
}

export function comparator(sort: SortKey, order: Order | null): (a: Ranked, b: Ranked) => number {
  const sign = (order ?? DEFAULT_ORDER[sort]) === 'asc' ? 1 : -1;
  if (sort === 'term') {
    return (a, b) =>
      cmpNullable(a.offer.termMonths, b.offer.termMonths, sign) ||
      cmpNullable(a.offer.noticeDays, b.offer.noticeDays, sign) ||
      tieBreak(a, b);
  }
  const primary = PRIMARY[sort];
  return (a, b) => sign * primary(a, b) || tieBreak(a, b);
}

/** The better of two offers by comparable yield (termCurve, typeMax); ties as in the list. */
export function betterYield(a: Ranked, b: Ranked): boolean {
  const c = compareComparable(a.yields, b.yields);
  return c > 0 || (c === 0 && tieBreak(a, b) < 0);
}

/** Whether the first `k` of `n` items are had sooner by sorting them all than by firstK's heap. */
const sortsWhole = (k: number, n: number): boolean => k * 4 >= n;

/** Items put in order only as far as they are asked for (see `lazyOrder`). */
export interface LazyOrder<T> {
  /** All of them, sorted on first use (in place). */
  readonly all: T[];
  /** The first k, sorted: from `all` once sorted, else the best k without sorting the rest. */
  first(k: number): T[];
}

/**
 * A list's order, made when asked: a first page needs only the best pageSize items (n·log k); a page
 * further on (more than the first asked for: a client paging, the export's pages) or all of them, the
 * whole order, sorted once for every page after it. `items` is sorted in place then.
 */
export function lazyOrder<T>(items: T[], cmp: (a: T, b: T) => number): LazyOrder<T> {
  let sorted: T[] | undefined;
  let best: T[] | undefined;
  const all = () => (sorted ??= items.sort(cmp));
  return {
    get all() {
      return all();
    },
    first(k) {
      if (best !== undefined && k <= best.length) return best.slice(0, k);
      if (sorted !== undefined || best !== undefined || sortsWhole(k, items.length)) return all().slice(0, k);
      return (best = firstK(items, cmp, k)).slice();
    },
  };
}

/**
 * The first `k` items in `cmp` order, sorted: a bounded heap instead of a full sort, for a list page
 * that needs the best 50 of hundreds (n·log k comparisons against n·log n). Stable for a total order.
 */
export function firstK<T>(items: readonly T[], cmp: (a: T, b: T) => number, k: number): T[] {
  if (k <= 0) return [];
  if (sortsWhole(k, items.length)) return [...items].sort(cmp).slice(0, k);
  // A max-heap (by cmp) of the k best seen so far: its root is the worst of them.
  const heap: T[] = [];
  const up = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (cmp(heap[i]!, heap[parent]!) <= 0) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && cmp(heap[l]!, heap[worst]!) > 0) worst = l;
      if (r < heap.length && cmp(heap[r]!, heap[worst]!) > 0) worst = r;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      up(heap.length - 1);
    } else if (cmp(item, heap[0]!) < 0) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort(cmp);
}
