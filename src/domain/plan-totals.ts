// The totals of a savings plan: what its parts add up to, unrounded, and as shown.
//
// Shown like a calculation (present.ts): each part's figures are rounded once, to the cent, and the
// plan's money totals are the exact sums of the parts' shown figures, so that a saver who adds up
// the rows gets the total row to the cent. The plan's yields are rates, not sums: each is rounded
// once from its unrounded value (total return over the amount placed).
import { Decimal, HUNDRED, toFixed2, ZERO } from './decimal.js';
import type { CalcSummary } from './types.js';
import type { PresentedCalc } from './present.js';
import { toCents } from './present.js';

export interface PlanTotals {
  /** The amount asked about. */
  amount: Decimal;
  placed: Decimal;
  unplaced: Decimal;
  returnPerYear: Decimal;
  grossInterest: Decimal;
  netInterest: Decimal;
  /** The comparable annual yield of the money placed: returnPerYear / placed, in percent (0 when nothing is placed). */
  comparableYield: Decimal;
  /** The net effective annual rate of the money placed: Σ part × effectiveRate / placed. */
  effectiveRate: Decimal;
}

export interface PresentedPlanTotals {
  amount: string;
  placed: string;
  unplaced: string;
  returnPerYear: string;
  grossInterest: string;
  netInterest: string;
  comparableYield: string;
  effectiveRate: string;
}

export function planTotals(amount: Decimal, parts: readonly CalcSummary[]): PlanTotals {
  let placed = ZERO;
  let returnPerYear = ZERO;
  let grossInterest = ZERO;
  let netInterest = ZERO;
  let effective = ZERO;
  for (const p of parts) {
    placed = placed.plus(p.amount);
    returnPerYear = returnPerYear.plus(p.returnPerYear);
    grossInterest = grossInterest.plus(p.grossInterest);
    netInterest = netInterest.plus(p.netInterest);
    effective = effective.plus(p.amount.times(p.effectiveRate));
  }
  const empty = placed.isZero();
  return {
    amount,
    placed,
    unplaced: amount.minus(placed),
    returnPerYear,
    grossInterest,
    netInterest,
    comparableYield: empty ? ZERO : returnPerYear.times(HUNDRED).div(placed),
    effectiveRate: empty ? ZERO : effective.div(placed),
  };
}

/**
 * The totals as shown, from the parts as shown (each `presentCalc` of a part, in any order). Amounts
 * have at most two decimals, so the amount, placed and unplaced figures are exact.
 */
export function presentPlanTotals(totals: PlanTotals, parts: readonly PresentedCalc[]): PresentedPlanTotals {
  const sum = (field: 'returnPerYear' | 'grossInterest' | 'netInterest') =>
    toFixed2(parts.reduce((s, p) => s.plus(p[field]), ZERO));
  return {
    amount: toFixed2(totals.amount),
    placed: toFixed2(totals.placed),
    unplaced: toFixed2(totals.unplaced),
    returnPerYear: sum('returnPerYear'),
    grossInterest: sum('grossInterest'),
    netInterest: sum('netInterest'),
    comparableYield: toCents(totals.comparableYield),
    effectiveRate: toCents(totals.effectiveRate),
  };
}
