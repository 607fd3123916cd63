// Plain data the pure domain works on. Money and rates are Decimal (decimal.js), never floats;
// nothing here knows about Prisma, HTTP or the clock.
import type { Decimal } from './decimal.js';

export type {
  Channel,
  OfferType,
  Payout,
  PromotionKind,
  PromotionsMode,
  RateType,
  TierMode,
  WithholdingKind,
} from './vocabulary.js';
import type { Payout, PromotionKind, PromotionsMode, TierMode } from './vocabulary.js';

export interface Tier {
  from: Decimal;
  /** Exclusive upper bound; null for the last tier. */
  to: Decimal | null;
  rate: Decimal;
}

export interface Promotion {
  kind: PromotionKind;
  rate: Decimal;
  months: number;
  /** Only the balance up to this amount earns the promotion; null: all of it. */
  maxBalance: Decimal | null;
}

/** What the calculation needs from an offer and its current rate plan. */
export interface CalcTerms {
  tierMode: TierMode;
  tiers: readonly Tier[];
  promotion: Promotion | null;
  payout: Payout;
  interestCompounds: boolean;
  annualFee: Decimal;
  /** Withholding percentage already resolved from the offer's kind (0 for `none`). */
  withholdingRate: Decimal;
}

export interface CalcInput {
  amount: Decimal;
  /** horizon for flexible and notice accounts, termMonths for deposits */
  months: number;
  promotions: PromotionsMode;
  terms: CalcTerms;
}

export interface CalcStep {
  month: number;
  openingBalance: Decimal;
  rate: Decimal;
  interest: Decimal;
  credited: Decimal;
  withholding: Decimal;
  closingBalance: Decimal;
}

/** Unrounded results; rounding to two decimals happens once, when a value is shown. */
export interface CalcResult {
  amount: Decimal;
  months: number;
  promotionApplied: boolean;
  nominalRate: Decimal;
  grossInterest: Decimal;
  withholdingTax: Decimal;
  fees: Decimal;
  netInterest: Decimal;
  endBalance: Decimal;
  comparableYield: Decimal;
  effectiveRate: Decimal;
  returnPerYear: Decimal;
  steps: CalcStep[];
}

export interface DgsScheme {
  scheme: string;
  country: string;
  limit: Decimal;
  verified: boolean;
}

export interface DgsSplit extends DgsScheme {
  covered: Decimal;
  uncovered: Decimal;
  coveredPercent: Decimal;
  fullyCovered: boolean;
  sharedWith: string[];
}

/** CalcResult without the monthly steps: what the list needs. */
export type CalcSummary = Omit<CalcResult, 'steps'>;

/** The yields of an offer and amount, with their amount, period and returnPerYear: cheaper than a summary. */
export type CalcYields = Pick<CalcSummary, 'amount' | 'months' | 'comparableYield' | 'effectiveRate' | 'returnPerYear'>;

/**
 * What ranking needs (sort keys, term curve, type maxima). For a fixed amount, returnPerYear = amount ×
 * comparableYield / 100 orders offers exactly as comparableYield does, so it is not needed to rank.
 */
export interface RankYields extends Pick<CalcSummary, 'comparableYield' | 'effectiveRate'> {
  /**
   * Floats within ROUGH_ERROR of the two yields (src/domain/rough.ts), where the calculator has them: two
   * offers far enough apart are ordered by these, without the exact values.
   */
  readonly roughComparable?: number;
  readonly roughEffective?: number;
}
