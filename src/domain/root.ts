// Exact fractional powers for the annualised yields. decimal.js `pow` with a fractional exponent
// goes through ln/exp and costs ≈100–300 µs at precision 34; a list request annualises hundreds of
// offers, so x^(p/q) is taken as an integer power followed by a q-th root (nthRoot). A JavaScript
// number is used only as the root's starting guess: its correction is computed in Decimal, so the
// digits of the result come from Decimal arithmetic.
import { Decimal, HUNDRED } from './decimal.js';

const ONE = new Decimal(1);
const MINUS_ONE = new Decimal(-1);
/**
 * Below this |e|, the series below is within 1e-36 (relative) of the root: the terms it leaves out are at
 * most |e|³. A double seed has |e| ≈ q·3e-16, so for every degree a yield asks (q ≤ 600) the seed is close
 * enough at once.
 */
const SERIES_FROM = new Decimal('1e-12');
/** Newton steps while the seed is farther (never for a yield); this only guards the loop. */
const MAX_STEPS = 60;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** y^(−1/q) from a JavaScript number, as Newton's starting guess; null when y is outside its range. */
function seedInverseRoot(y: Decimal, q: number): Decimal | null {
  const guess = y.toNumber() ** (-1 / q);
  if (!Number.isFinite(guess) || guess <= 0) return null;
  return new Decimal(guess);
}

/** u^k for a positive integer k by repeated squaring (each product rounded to 34 digits). */
function intPow(u: Decimal, k: number): Decimal {
  let result: Decimal | null = null;
  let square = u;
  for (let rest = k; ;) {
    if (rest & 1) result = result === null ? square : result.times(square);
    rest >>>= 1;
    if (rest === 0) return result ?? ONE;
    square = square.times(square);
  }
}

/** Per degree q: a = (q−1)/q and a(a+1)/2, the series' coefficients (q ≤ 600 for a yield). */
const coefficients = new Map<number, { a: Decimal; b: Decimal }>();
function coefficientsOf(q: number): { a: Decimal; b: Decimal } {
  let known = coefficients.get(q);
  if (known === undefined) {
    const a = new Decimal(q - 1).div(q);
    known = { a, b: a.times(a.plus(ONE)).div(2) };
    if (coefficients.size < 4096) coefficients.set(q, known);
  }
  return known;
}

/**
 * The q-th root of y (y > 0, q a positive integer), to ≈33 significant digits.
 * From a double's seed u of the inverse root y^(−1/q), with w = u^(q−1) and e = 1 − y·w·u, the root is
 * exactly y·w·(1 − e)^(−(q−1)/q), and the series 1 + a·e + a(a+1)/2·e² (a = (q−1)/q) leaves out less than
 * |e|³ ≈ 1e-39: one power of degree q − 1 and a few products. (Newton's steps on u, as before, took two or
 * three powers of degree q and one more for the root; the root was the costliest part of a calculation at
 * a new horizon.) A seed too far for the series (never from a double) is first brought closer by Newton.
 */
export function nthRoot(y: Decimal, q: number): Decimal {
  if (!Number.isInteger(q) || q < 1) throw new RangeError(`root degree must be a positive integer, got ${q}`);
  if (!y.isPositive() || y.isZero()) throw new RangeError('nthRoot needs a positive radicand');
  if (q === 1) return y;
  let u = seedInverseRoot(y, q);
  // Outside the range of a double (never for a yield) decimal.js' own power is good enough.
  if (u === null) return y.pow(ONE.div(q));
  let yw = y;
  for (let i = 0; i < MAX_STEPS; i++) {
    yw = y.times(intPow(u, q - 1));
    const e = ONE.minus(yw.times(u));
    if (e.abs().lt(SERIES_FROM)) {
      const { a, b } = coefficientsOf(q);
      return yw.plus(yw.times(a.times(e).plus(b.times(e.times(e)))));
    }
    u = u.plus(u.times(e).div(q));
  }
  return yw;
}

/** x^(p/q) for x > 0 and positive integers p, q: an integer power, then a root when q > 1. */
export function rationalPow(x: Decimal, p: number, q: number): Decimal {
  if (!Number.isInteger(p) || p < 1 || !Number.isInteger(q) || q < 1) {
    throw new RangeError(`exponent must be a ratio of positive integers, got ${p}/${q}`);
  }
  const g = gcd(p, q);
  const num = p / g;
  const den = q / g;
  // The power first: its error is a few roundings (repeated squaring, 2× faster than decimal.js'
  // pow with its guard digits), and the root does not magnify it.
  const raised = num === 1 ? x : intPow(x, num);
  return den === 1 ? raised : nthRoot(raised, den);
}

/** growth^(12/months) for growth > 0: a growth factor over `months` as a yearly one. */
export function annualGrowth(growth: Decimal, months: number): Decimal {
  return rationalPow(growth, 12, months);
}

/**
 * The yearly gain of a growth factor reached over `months`: growth^(12/months) − 1. A growth factor
 * ≤ 0 (everything lost, or more) is −1: the one home of the "≤ 0 is −100 %" rule of contract §2.
 */
export function yearlyGain(growth: Decimal, months: number): Decimal {
  if (!growth.isPositive() || growth.isZero()) return MINUS_ONE;
  return annualGrowth(growth, months).minus(ONE);
}

/** The annualised rate, in percent, of a growth factor reached over `months`: yearlyGain × 100. */
export function annualisedPercent(growth: Decimal, months: number): Decimal {
  return yearlyGain(growth, months).times(HUNDRED);
}
