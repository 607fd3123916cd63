// The list's order (contract §4): the chosen key in its direction, then the fixed tie-breakers
// returnPerYear desc, coveredPercent desc, id asc. Always on unrounded values, so it is a total order.
import { compareBrandNames } from '../domain/dgs.js';
import type { Decimal } from '../domain/decimal.js';
import type { DgsSplit } from '../domain/types.js';
import type { CalcYields } from './calc-service.js';
import { DEFAULT_ORDER, type Order, type SortKey } from './query.js';
import type { CatalogOffer } from './types.js';

export interface Ranked {
  offer: CatalogOffer;
  yields: CalcYields;
  dgs: DgsSplit;
}

const cmpDec = (a: Decimal, b: Decimal) => a.cmp(b);
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const cmpNum = (a: number, b: number) => a - b;

/** Nulls sort last whatever the direction. */
function cmpNullable(a: number | null, b: number | null, sign: number): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return sign * cmpNum(a, b);
}

/** The primary comparison, ascending. */
const PRIMARY: Record<Exclude<SortKey, 'term'>, (a: Ranked, b: Ranked) => number> = {
  return: (a, b) => cmpDec(a.yields.returnPerYear, b.yields.returnPerYear),
  effective: (a, b) => cmpDec(a.yields.effectiveRate, b.yields.effectiveRate),
  headline: (a, b) => cmpDec(a.offer.headlineRate, b.offer.headlineRate),
  bank: (a, b) => compareBrandNames(a.offer.brand.name, b.offer.brand.name),
  country: (a, b) => cmpStr(a.offer.brand.country, b.offer.brand.country),
  verified: (a, b) => cmpNum(a.offer.freshness.checkedAt.getTime(), b.offer.freshness.checkedAt.getTime()),
  min: (a, b) => cmpDec(a.offer.minAmount, b.offer.minAmount),
};

/** returnPerYear desc, coveredPercent desc, id asc: what decides between equals. */
export function tieBreak(a: Ranked, b: Ranked): number {
  return (
    cmpDec(b.yields.returnPerYear, a.yields.returnPerYear) ||
    cmpDec(b.dgs.coveredPercent, a.dgs.coveredPercent) ||
    cmpStr(a.offer.id, b.offer.id)
  );
}

export function comparator(sort: SortKey, order: Order | null): (a: Ranked, b: Ranked) => number {
  const sign = (order ?? DEFAULT_ORDER[sort]) === 'asc' ? 1 : -1;
  if (sort === 'term') {
    return (a, b) =>
      cmpNullable(a.offer.termMonths, b.offer.termMonths, sign) || cmpNullable(a.offer.noticeDays, b.offer.noticeDays, sign) || tieBreak(a, b);
  }
  const primary = PRIMARY[sort];
  return (a, b) => sign * primary(a, b) || tieBreak(a, b);
}

/** The better of two offers by comparable yield (termCurve, typeMax); ties as in the list. */
export function betterYield(a: Ranked, b: Ranked): boolean {
  const c = a.yields.comparableYield.cmp(b.yields.comparableYield);
  return c > 0 || (c === 0 && tieBreak(a, b) < 0);
}
