// Contract §3: how much of an amount a deposit guarantee scheme covers. The limit is per
// institution, not per brand, so the split also names the institution's other brands.
import { compareDecimals, Decimal, HUNDRED, ZERO } from './decimal.js';
import { fold } from './text.js';
import type { DgsScheme, DgsSplit } from './types.js';

/**
 * The order of brand names: case- and accent-folded (NFKD, combining marks removed, lower case),
 * compared by UTF-16 code units, so "Ålandsbanken" sits with the A's and "bunq" next to "Bunq";
 * ties broken by the NFC form, again by code units. No locale takes part (Intl.Collator and
 * localeCompare differ between ICU builds), so every server sorts the same way.
 */
export function compareBrandNames(a: string, b: string): number {
  const fa = fold(a);
  const fb = fold(b);
  if (fa !== fb) return fa < fb ? -1 : 1;
  const na = a.normalize('NFC');
  const nb = b.normalize('NFC');
  return na === nb ? 0 : na < nb ? -1 : 1;
}

/** covered = verified ? min(A, limit) : 0 (contract §3): the list's filter and the split both use it. */
export function coveredAmount(amount: Decimal, dgs: Pick<DgsScheme, 'verified' | 'limit'>): Decimal {
  // The smaller of the two as it is (Decimal.min would copy it: once per offer of every list).
  return dgs.verified ? (compareDecimals(amount, dgs.limit) <= 0 ? amount : dgs.limit) : ZERO;
}

/**
 * covered = coveredAmount; uncovered = A − covered; coveredPercent = covered / A × 100
 * (unrounded); fullyCovered when nothing is uncovered. `sharedWith`: the names of the institution's
 * other brands (the caller leaves out the brand itself), sorted by compareBrandNames; the input
 * array is not changed.
 */
export function dgsSplit(amount: Decimal, dgs: DgsScheme, sharedWith: readonly string[]): DgsSplit {
  if (!amount.isPositive() || amount.isZero()) throw new RangeError('amount must be > 0');
  const covered = coveredAmount(amount, dgs);
  const uncovered = amount.minus(covered);
  return {
    scheme: dgs.scheme,
    country: dgs.country,
    limit: dgs.limit,
    verified: dgs.verified,
    covered,
    uncovered,
    coveredPercent: covered.div(amount).times(HUNDRED),
    fullyCovered: uncovered.isZero(),
    sharedWith: sortedBrands(sharedWith),
  };
}

/** Brand names as a split lists them: a sorted copy (compareBrandNames). */
export const sortedBrands = (names: readonly string[]): string[] => [...names].sort(compareBrandNames);
