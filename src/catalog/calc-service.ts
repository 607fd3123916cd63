// The calculation of a catalogue offer for a request: which period, which promotion mode, and the
// memoising calculator that makes a new amount cost a few Decimal operations per offer.
import { calculate } from '../domain/calc.js';
import { LRUCache } from 'lru-cache';
import type { Decimal } from '../domain/decimal.js';
import { createCalculator, type CalcSummary, type CalculatorStats } from '../domain/fast-calc.js';
import type { CalcResult, PromotionsMode } from '../domain/types.js';
import type { CatalogOffer } from './types.js';

export type { CalcSummary };

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
  /** Every calc field but the steps, memoised: made for the offers that are shown. */
  summary(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): CalcSummary;
  /** The detail's calculation with its monthly steps (the reference loop). */
  full(offer: CatalogOffer, amount: Decimal, horizon: number, promotions: PromotionsMode): CalcResult;
  stats(): CalculatorStats & { recentRanks: number; recentSummaries: number };
  clear(): void;
}

/** horizon for flexible and notice accounts, the term for deposits (contract §2). */
export const periodOf = (offer: CatalogOffer, horizon: number): number => (offer.type === 'deposit' && offer.termMonths ? offer.termMonths : horizon);

// `only` is a filter; it calculates like `include`.
const calcMode = (promotions: PromotionsMode): PromotionsMode => (promotions === 'exclude' ? 'exclude' : 'include');

export function createCalcService(options: { maxPieces?: number; maxExact?: number; maxRecent?: number } = {}): CalcService {
  const calculator = createCalculator(options);
  // Popular amounts come back (25,000; 50,000): their results are kept, so a repeat under other filters,
  // or through GraphQL, costs a lookup. The text of the amount is made once per list, not per offer.
  // (lru-cache: evicting the first key of a full Map costs a walk over every key deleted before it,
  // which made these memos half of a list's time at scale 20.)
  const recentRanks = new LRUCache<string, RankYields>({ max: options.maxRecent ?? 50_000 });
  const recentSummaries = new LRUCache<string, CalcSummary>({ max: options.maxRecent ?? 50_000 });
  let lastAmount: Decimal | undefined;
  let lastText = '';
  const textOf = (amount: Decimal) => {
    if (amount !== lastAmount) {
      lastAmount = amount;
      lastText = amount.toString();
    }
    return lastText;
  };
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
      const memoKey = `${key}@${textOf(amount)}`;
      const recent = recentRanks.get(memoKey);
      if (recent) return recent;
      const yields = calculator.evaluateYields(key, input);
      const constant = calculator.constantYields(key, input);
      if (constant) (offer.constantYields ??= new Map()).set(key, constant);
      else recentRanks.set(memoKey, yields);
      return yields;
    },
    summary(offer, amount, horizon, promotions) {
      const [key, input] = args(offer, amount, horizon, promotions);
      const memoKey = `${key}@${textOf(amount)}`;
      let summary = recentSummaries.get(memoKey);
      if (!summary) recentSummaries.set(memoKey, (summary = calculator.evaluate(key, input)));
      return summary;
    },
    full(offer, amount, horizon, promotions) {
      return calculate({ amount, months: periodOf(offer, horizon), promotions: calcMode(promotions), terms: offer.terms }, { steps: true });
    },
    stats: () => ({ ...calculator.stats(), recentRanks: recentRanks.size, recentSummaries: recentSummaries.size }),
    clear: () => calculator.clear(),
  };
}
