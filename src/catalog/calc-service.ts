// The calculation of a catalogue offer for a request: which period, which promotion mode, and the
// memoising calculator that makes a new amount cost a few Decimal operations per offer.
import { calculate } from '../domain/calc.js';
import type { Decimal } from '../domain/decimal.js';
import { createCalculator, type CalcSummary, type CalcYields, type CalculatorStats } from '../domain/fast-calc.js';
import type { CalcResult, PromotionsMode } from '../domain/types.js';
import type { CatalogOffer } from './types.js';

export type { CalcSummary, CalcYields };

/** What ranking needs. For a fixed amount, returnPerYear = amount × comparableYield / 100 orders offers
 * exactly as comparableYield does, so it is not needed to rank. */
export interface RankYields {
  comparableYield: Decimal;
  effectiveRate: Decimal;
}

export interface CalcService {
  /**
   * What ranking needs, made for every offer of a list: answered without arithmetic when the offer's
   * yields are the same for every amount (most are: one tier, no capped promotion, no fee).
   */
  rank(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): RankYields;
  /** Yields and return per year, memoised. */
  yields(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): CalcYields;
  /** Every calc field but the steps, memoised: made for the offers that are shown. */
  summary(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): CalcSummary;
  /** The detail's calculation with its monthly steps (the reference loop). */
  full(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): CalcResult;
  stats(): CalculatorStats;
  clear(): void;
}

/** horizon for flexible and notice accounts, the term for deposits (contract §2). */
export const periodOf = (offer: CatalogOffer, horizon: number): number => (offer.type === 'deposit' && offer.termMonths ? offer.termMonths : horizon);

// `only` is a filter; it calculates like `include`.
const calcMode = (promotions: PromotionsMode): PromotionsMode => (promotions === 'exclude' ? 'exclude' : 'include');

export function createCalcService(options: { maxPieces?: number; maxExact?: number } = {}): CalcService {
  const calculator = createCalculator(options);
  const args = (offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode) => {
    const months = periodOf(offer, horizon);
    const mode = calcMode(promotions);
    return [`${offer.termsId}:${months}:${mode}`, { amount, months, promotions: mode, terms: offer.terms }] as const;
  };
  return {
    rank(offer, amount, horizon, promotions) {
      const [key, input] = args(offer, amount, horizon, promotions);
      const known = offer.constantYields?.get(key);
      if (known) return known;
      const yields = calculator.evaluateYields(key, input);
      const constant = calculator.constantYields(key, input);
      if (constant) (offer.constantYields ??= new Map()).set(key, constant);
      return yields;
    },
    yields: (...a) => calculator.evaluateYields(...args(...a)),
    summary: (...a) => calculator.evaluate(...args(...a)),
    full(offer, amount, horizon, promotions) {
      return calculate({ amount, months: periodOf(offer, horizon), promotions: calcMode(promotions), terms: offer.terms }, { steps: true });
    },
    stats: () => calculator.stats(),
    clear: () => calculator.clear(),
  };
}
