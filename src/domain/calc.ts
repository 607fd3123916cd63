// The reference implementation of contract §2: month by month, exactly as the contract words it.
// Its twin is the memoising evaluator in fast-calc.ts (the list's calculator), which must give the
// same digits for every input: src/domain/fast-calc.test.ts, "property: fast == reference for random
// terms, amounts, periods and modes", holds them equal. This one favours being obviously right over
// being fast; what both compute after the monthly loop is `settle`, below, used by both.
import { Decimal, HUNDRED, ZERO } from './decimal.js';
import { annualisedPercent } from './root.js';
import type {
  CalcInput,
  CalcResult,
  CalcStep,
  CalcTerms,
  Payout,
  Promotion,
  PromotionsMode,
  RankYields,
  WithholdingKind,
} from './types.js';

const TWELVE_HUNDRED = new Decimal(1200);

/** Months from one credit to the next; null: credited only at the end. */
export function creditPeriodOf(payout: Payout): number | null {
  switch (payout) {
    case 'MONTHLY':
      return 1;
    case 'QUARTERLY':
      return 3;
    case 'ANNUALLY':
    case 'OTHER':
      return 12;
    case 'AT_MATURITY':
      return null;
  }
}

/** Whether accrued interest is credited at the end of month m (1-based) of an n-month period. */
export function creditsInMonth(payout: Payout, month: number, months: number): boolean {
  if (month === months) return true; // whatever is still accrued is credited at the end
  const period = creditPeriodOf(payout);
  return period !== null && month % period === 0;
}

/** annualFee × n / 12: taken from the result, never from the interest-bearing balance. */
export function feesFor(annualFee: Decimal, months: number): Decimal {
  return annualFee.times(months).div(12);
}

/** The withholding percentage w of §2 step 4 for an offer's withholding fields. */
export function withholdingRateOf(withholding: {
  kind: WithholdingKind;
  rate: Decimal | null;
  reducedRate: Decimal | null;
}): Decimal {
  switch (withholding.kind) {
    case 'none':
      return ZERO;
    case 'applicable':
      return withholding.rate ?? ZERO;
    case 'reducible':
      return withholding.reducedRate ?? ZERO;
  }
}

/** Whether a calculation in this mode counts promotions: `only` is a filter and calculates like `include`. */
export const withPromotions = (mode: PromotionsMode): boolean => mode !== 'exclude';

/** The promotion that applies in month m, or null (§2 step 2). */
export function promotionInMonth(terms: CalcTerms, mode: PromotionsMode, month: number): Promotion | null {
  const promotion = terms.promotion;
  if (!withPromotions(mode) || promotion === null || month > promotion.months) return null;
  return promotion;
}

/**
 * base(B) of §2 step 1. A balance below the first tier (only reachable with rates below −100 %)
 * earns the first tier's rate in whole mode and nothing in marginal mode (no slice of it lies in
 * any tier).
 */
export function baseInterest(terms: CalcTerms, balance: Decimal): Decimal {
  const { tiers } = terms;
  if (terms.tierMode === 'whole') {
    let rate = tiers[0]!.rate;
    for (const tier of tiers) {
      if (balance.gte(tier.from)) rate = tier.rate;
      else break;
    }
    return balance.times(rate).div(TWELVE_HUNDRED);
  }
  let sum = ZERO;
  for (const tier of tiers) {
    if (balance.lte(tier.from)) break;
    const top = tier.to !== null && balance.gt(tier.to) ? tier.to : balance;
    sum = sum.plus(top.minus(tier.from).times(tier.rate).div(TWELVE_HUNDRED));
  }
  return sum;
}

/** One month's interest on balance B (§2 steps 1–2). */
export function monthInterest(terms: CalcTerms, promotion: Promotion | null, balance: Decimal): Decimal {
  const base = baseInterest(terms, balance);
  if (promotion === null) return base;
  const promoted = promotion.maxBalance !== null && balance.gt(promotion.maxBalance) ? promotion.maxBalance : balance;
  const rest = balance.minus(promoted);
  const promotionInterest = promoted.times(promotion.rate).div(TWELVE_HUNDRED);
  if (promotion.kind === 'bonus') return base.plus(promotionInterest);
  // replace: the part above maxBalance keeps its share of the base interest; R is 0 when B ≤ P,
  // which also covers B = 0 (R/B would be 0/0).
  if (rest.isZero()) return promotionInterest;
  return promotionInterest.plus(base.times(rest).div(balance));
}

interface Run {
  gross: Decimal;
  withholding: Decimal;
  firstInterest: Decimal;
  promotionApplied: boolean;
  steps: CalcStep[];
}

function run(input: CalcInput, compounds: boolean, collectSteps: boolean): Run {
  const { terms, months, promotions, amount } = input;
  let balance = amount;
  let accrued = ZERO;
  let gross = ZERO;
  let withholding = ZERO;
  let firstInterest = ZERO;
  let promotionApplied = false;
  const steps: CalcStep[] = [];
  // A month's interest depends on its opening balance and promotion alone, and the balance changes only
  // when interest is credited and kept (once a year, or never): the month before's values, reused while
  // both are the very same, are what the same operations would give again.
  let lastOpening: Decimal | undefined;
  let lastPromotion: Promotion | null = null;
  let lastInterest = ZERO;
  let lastRate = ZERO;
  for (let month = 1; month <= months; month++) {
    const opening = balance;
    const promotion = promotionInMonth(terms, promotions, month);
    if (promotion !== null) promotionApplied = true;
    const same = opening === lastOpening && promotion === lastPromotion;
    const interest = same ? lastInterest : monthInterest(terms, promotion, opening);
    if (month === 1) firstInterest = interest;
    accrued = accrued.plus(interest);
    gross = gross.plus(interest);
    let credited = ZERO;
    let kept = ZERO;
    if (creditsInMonth(terms.payout, month, months)) {
      credited = accrued;
      kept = credited.times(terms.withholdingRate).div(HUNDRED);
      withholding = withholding.plus(kept);
      if (compounds) balance = balance.plus(credited.minus(kept));
      accrued = ZERO;
    }
    if (collectSteps) {
      if (!same) lastRate = opening.isZero() ? ZERO : interest.times(TWELVE_HUNDRED).div(opening);
      steps.push({
        month,
        openingBalance: opening,
        rate: lastRate,
        interest,
        credited,
        withholding: kept,
        closingBalance: balance,
      });
    }
    lastOpening = opening;
    lastPromotion = promotion;
    lastInterest = interest;
  }
  return { gross, withholding, firstInterest, promotionApplied, steps };
}

/** What the monthly loop yields, for `settle`. */
export interface LoopTotals {
  amount: Decimal;
  months: number;
  promotionApplied: boolean;
  grossInterest: Decimal;
  withholdingTax: Decimal;
  fees: Decimal;
}

/**
 * What follows the monthly loop, the same for the reference and the fast evaluator: net interest
 * (gross − withholding − fees), the end balance and the return per year (amount × comparable yield).
 */
export function settle(totals: LoopTotals, yields: RankYields): Omit<CalcResult, 'nominalRate' | 'steps'> {
  const netInterest = totals.grossInterest.minus(totals.withholdingTax).minus(totals.fees);
  return {
    ...totals,
    netInterest,
    endBalance: totals.amount.plus(netInterest),
    comparableYield: yields.comparableYield,
    effectiveRate: yields.effectiveRate,
    returnPerYear: returnPerYearOf(totals.amount, yields.comparableYield),
  };
}

/** Euros per year at the comparable yield: amount × comparableYield / 100. */
export const returnPerYearOf = (amount: Decimal, comparableYield: Decimal): Decimal =>
  amount.times(comparableYield).div(HUNDRED);

/**
 * Contract §2 for one offer and amount. All values unrounded; `steps` (one per month of the actual
 * run) only when asked for, [] otherwise.
 */
export function calculate(input: CalcInput, options: { steps?: boolean } = {}): CalcResult {
  const { amount, months, terms } = input;
  if (!Number.isInteger(months) || months < 1) throw new RangeError(`months must be a positive integer, got ${months}`);
  if (!amount.isPositive() || amount.isZero()) throw new RangeError('amount must be > 0');
  const actual = run(input, terms.interestCompounds, options.steps === true);
  // The comparable run assumes interest stays in (the AER convention); for a compounding offer it
  // is the actual run.
  const comparable = terms.interestCompounds ? actual : run(input, true, false);
  const fees = feesFor(terms.annualFee, months);
  const comparableNet = comparable.gross.minus(comparable.withholding).minus(fees);
  const comparableYield = annualisedPercent(amount.plus(comparable.gross).div(amount), months);
  const effectiveRate = annualisedPercent(amount.plus(comparableNet).div(amount), months);
  return {
    ...settle(
      {
        amount,
        months,
        promotionApplied: actual.promotionApplied,
        grossInterest: actual.gross,
        withholdingTax: actual.withholding,
        fees,
      },
      { comparableYield, effectiveRate },
    ),
    nominalRate: actual.firstInterest.times(TWELVE_HUNDRED).div(amount),
    steps: actual.steps,
  };
}
