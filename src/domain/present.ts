// What a client sees of a calculation: two-decimal strings.
//
// Each component is rounded once, half-up, to the cent. The totals are then the exact sums of the
// rounded components (net = gross − tax − fees, end balance = amount + net), so that the numbers
// on a saver's screen always add up to the cent; rounding the totals on their own could show a net
// one cent off the difference of the figures printed right above it.
//
// The cent rounding looks at the value to 16 significant digits (of the amount's scale for money),
// not at all 34. The last digits of a 34-digit computation are rounding noise, and where the exact
// result is a half cent that noise alone would pick the cent: 2,500 at 3.10 % credited yearly earns
// twelve months of 6.458333…, 77.50 in all, and a 25 % tax of exactly 19.375, which the 34-digit
// sum holds as 19.37499999999999999999999999999999; toFixed2 of that shows 19.37, a cent short.
// So the digits past the 16th are dropped (half-up) first; the noise is at most ≈1e-27 of the
// scale, so whatever still lies off a half cent after that is a real difference, not noise.
import { Decimal, toFixed2, toFixed2After } from './decimal.js';
import type { CalcResult, CalcStep } from './types.js';

/** Significant digits (of the value's scale) that count for the cent. */
const SIGNIFICANT = 16;
/** How far, in units of the dropped digits, two computations of one value may differ. */
const NOISE_DIGITS = 10;

export interface PresentedStep {
  month: number;
  openingBalance: string;
  rate: string;
  interest: string;
  credited: string;
  withholding: string;
  closingBalance: string;
}

export interface PresentedCalc {
  amount: string;
  months: number;
  promotionApplied: boolean;
  nominalRate: string;
  grossInterest: string;
  withholdingTax: string;
  fees: string;
  netInterest: string;
  endBalance: string;
  comparableYield: string;
  effectiveRate: string;
  returnPerYear: string;
  steps: PresentedStep[];
}

/** A calculation with or without its steps (the list path computes none). */
export type PresentableCalc = Omit<CalcResult, 'steps'> & { steps?: readonly CalcStep[] };

/**
 * The decimals kept before the cent rounding: 16 significant digits of max(|v|, 10^scaleExp).
 * Money uses the amount's exponent as scale (its noise is relative to the balances), rates 0.
 */
export function keptDecimals(v: Decimal, scaleExp: number): number {
  return Math.max(3, SIGNIFICANT - 1 - Math.max(v.e, scaleExp));
}

/** Half-up to the cent, after dropping the noise digits (see the file comment). */
export function toCents(v: Decimal, scaleExp = 0): string {
  return toFixed2After(v, keptDecimals(v, scaleExp));
}

/** toCents for money: the amount sets the scale. */
export function moneyToCents(v: Decimal, amount: Decimal): string {
  return toCents(v, amount.e);
}

const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/**
 * The decimal digit of |v| at place value 10^place. Reads decimal.js' documented representation
 * (`d`: base-1e7 limbs, the first without leading zeros; `e`: the exponent of the first digit)
 * instead of formatting a string: the evaluator asks this for several values per offer.
 */
function digitAt(v: Decimal, place: number): number {
  const index = v.e - place; // 0 = the most significant digit
  if (index < 0) return 0;
  const limbs = v.d;
  const first = limbs[0]!;
  let firstLength = 1;
  while (firstLength < 7 && first >= POW10[firstLength]!) firstLength++;
  if (index < firstLength) return Math.floor(first / POW10[firstLength - 1 - index]!) % 10;
  const rest = index - firstLength;
  const limb = limbs[1 + Math.floor(rest / 7)];
  return limb === undefined ? 0 : Math.floor(limb / POW10[6 - (rest % 7)]!) % 10;
}

/**
 * Whether two computations of v that differ only in their noise (≤ 1e-10 of a kept digit) could
 * show different cents: v lies within one kept digit of a half cent without being on it. Never
 * for a value that is exactly a half cent, nor for one clearly away from it.
 */
export function centsAmbiguous(v: Decimal, scaleExp = 0): boolean {
  if (!v.isFinite()) return true;
  const kept = keptDecimals(v, scaleExp);
  const third = digitAt(v, -3);
  const fill = third === 5 ? 0 : third === 4 ? 9 : -1;
  if (fill < 0) return false;
  let place = -4;
  for (; place >= -kept; place--) if (digitAt(v, place) !== fill) return false; // a kept digit away
  for (; place >= -kept - NOISE_DIGITS; place--) if (digitAt(v, place) !== fill) return true; // close
  return false; // on the half cent, up to noise
}

/** One step alone, every field's cents made afresh. */
export const presentStep = (step: CalcStep, amount: Decimal): PresentedStep => presentSteps([step], amount)[0]!;

/**
 * One field's cents, made again only when its value changes: month after month a balance that is paid
 * out stays the same, nothing is credited, the rate holds. Equal Decimals have one representation, so
 * one string (a comparison costs a tenth of a rounding).
 */
function lastCents(format: (v: Decimal) => string): (v: Decimal) => string {
  let last: Decimal | undefined;
  let text = '';
  return (v) => {
    if (last === undefined || (v !== last && !v.eq(last))) {
      last = v;
      text = format(v);
    }
    return text;
  };
}

/** presentStep over a run of steps, each field's cents made again only where its value changed. */
function presentSteps(steps: readonly CalcStep[], amount: Decimal): PresentedStep[] {
  const money = () => lastCents((v) => moneyToCents(v, amount));
  const [opening, interest, credited, withheld, closing] = [money(), money(), money(), money(), money()];
  const rate = lastCents((v) => toCents(v));
  return steps.map((step) => ({
    month: step.month,
    openingBalance: opening(step.openingBalance),
    rate: rate(step.rate),
    interest: interest(step.interest),
    credited: credited(step.credited),
    withholding: withheld(step.withholding),
    closingBalance: closing(step.closingBalance),
  }));
}

export function presentCalc(result: PresentableCalc): PresentedCalc {
  const a = result.amount;
  const amount = moneyToCents(a, a);
  const grossInterest = moneyToCents(result.grossInterest, a);
  const withholdingTax = moneyToCents(result.withholdingTax, a);
  const fees = moneyToCents(result.fees, a);
  // Sums of two-decimal strings are exact in Decimal; toFixed2 only formats them.
  const net = new Decimal(grossInterest).minus(withholdingTax).minus(fees);
  const steps = presentSteps(result.steps ?? [], a);
  const last = result.steps?.at(-1);
  // One quantity, one value (contract §11.2): at the end the account holds what the saver ends with
  // before fees (end balance + fees) when interest compounds, and the amount when it was paid out.
  // Rounded on its own, the last balance could be a cent off the sum of the figures shown above it.
  if (last && !last.closingBalance.eq(a))
    steps[steps.length - 1]!.closingBalance = toFixed2(new Decimal(amount).plus(grossInterest).minus(withholdingTax));
  return {
    amount,
    months: result.months,
    promotionApplied: result.promotionApplied,
    nominalRate: toCents(result.nominalRate),
    grossInterest,
    withholdingTax,
    fees,
    netInterest: toFixed2(net),
    endBalance: toFixed2(net.plus(amount)),
    comparableYield: toCents(result.comparableYield),
    effectiveRate: toCents(result.effectiveRate),
    returnPerYear: moneyToCents(result.returnPerYear, a),
    steps,
  };
}
