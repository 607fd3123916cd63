// What a rate change means for one saver's amount: the offer's return per year (contract §2, as the
// list shows it: comparable yield over the period, promotions included) under the plan before the
// change and under the plan after it, and the difference.
//
// The difference is taken between the two values as shown (each rounded once, half-up, to the cent),
// not rounded from the exact difference: a client prints all three side by side, and they must add
// up (contract §11.2). 10,000 at 2.00 % → 2.05 % credited monthly: 201.8436 → 206.9372, shown 201.84
// and 206.94; the exact difference 5.0936 would round to 5.09, the shown values differ by 5.10.
import { Decimal, toFixed2 } from './decimal.js';
import { calculate } from './calc.js';
import { moneyToCents } from './present.js';
import type { CalcTerms } from './types.js';

export interface ChangeImpact {
  /** The amount, as shown. */
  amount: string;
  returnPerYearBefore: string;
  returnPerYearAfter: string;
  /** returnPerYearAfter − returnPerYearBefore, of the shown values. */
  delta: string;
}

export interface ImpactInput {
  amount: Decimal;
  /** The horizon for flexible and notice accounts, the term for deposits (contract §2). */
  months: number;
  before: CalcTerms;
  after: CalcTerms;
  /**
   * The return per year under one side's terms as shown (two decimals); by default the reference
   * calculation's, rounded. The service passes the fast evaluator's, which is held equal to it
   * (src/domain/fast-calc.test.ts, src/domain/fast-present.test.ts).
   */
  shownReturnPerYear?: (side: 'before' | 'after', terms: CalcTerms) => string;
}

/** The return per year for an amount as the list shows it (promotions included). */
export function shownReturnPerYear(terms: CalcTerms, amount: Decimal, months: number): string {
  return moneyToCents(calculate({ amount, months, promotions: 'include', terms }).returnPerYear, amount);
}

export function changeImpact({ amount, months, before, after, shownReturnPerYear: given }: ImpactInput): ChangeImpact {
  const shown = (side: 'before' | 'after', terms: CalcTerms) =>
    given ? given(side, terms) : shownReturnPerYear(terms, amount, months);
  const returnPerYearBefore = shown('before', before);
  const returnPerYearAfter = shown('after', after);
  return {
    amount: moneyToCents(amount, amount),
    returnPerYearBefore,
    returnPerYearAfter,
    // Two-decimal strings subtract exactly in Decimal; toFixed2 only formats.
    delta: toFixed2(new Decimal(returnPerYearAfter).minus(returnPerYearBefore)),
  };
}
