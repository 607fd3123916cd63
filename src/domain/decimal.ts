// The one Decimal the service computes with: 34 significant digits, half-up. A clone, so that no
// other user of decimal.js (Prisma bundles its own) is affected by this configuration.
import { Decimal as DecimalJs } from 'decimal.js';

export const Decimal = DecimalJs.clone({ precision: 34, rounding: DecimalJs.ROUND_HALF_UP });
export type Decimal = DecimalJs;

export const ZERO = new Decimal(0);
export const HUNDRED = new Decimal(100);

/** Rounds once, at the end, half-up to two decimals: the only way a value leaves the domain as text. */
export function toFixed2(value: Decimal): string {
  return centsText(value.s < 0, roundedDigits(value, 2));
}

/**
 * Half-up to `kept` decimals (kept ≥ 2), then half-up to two: toFixed2 of value.toDecimalPlaces(kept),
 * for present.ts, which drops a computation's noise digits before the cent.
 */
export function toFixed2After(value: Decimal, kept: number): string {
  const digits = roundedDigits(value, kept);
  const end = digits.length - (kept - 2);
  return centsText(value.s < 0, halfUp(digits.slice(0, end), digits.charCodeAt(end) - 48));
}

// Every shown value goes through toFixed2 (and present.ts's toCents): hundreds per list, a dozen per
// month of a detail's steps. decimal.js's toFixed makes two Decimals on the way; these read its digits
// once (the documented `d` limbs and `e` exponent, as compareDecimals does) and round on the text.
// src/domain/decimal.test.ts holds them to decimal.js's toFixed for random values.

const SEVEN_ZEROS = '0000000';

/**
 * |value| × 10^places as decimal digits, half-up (ties away from zero): at least places + 1 digits, with
 * leading zeros where |value| < 1.
 */
function roundedDigits(value: Decimal, places: number): string {
  const x = value as unknown as { e: number; d: number[] };
  const d = x.d;
  if (!d[0]) return '0'.repeat(places + 1);
  let sig = String(d[0]);
  for (let i = 1; i < d.length; i++) {
    const limb = String(d[i]);
    sig += SEVEN_ZEROS.slice(limb.length) + limb;
  }
  // sig[0] is the digit of 10^e; the digits kept run from there down to 10^-places.
  const count = x.e + places + 1;
  let digits: string;
  let next: number;
  if (count <= 0) {
    digits = '';
    next = count === 0 ? sig.charCodeAt(0) - 48 : 0;
  } else if (sig.length > count) {
    digits = sig.slice(0, count);
    next = sig.charCodeAt(count) - 48;
  } else {
    digits = sig + '0'.repeat(count - sig.length);
    next = 0;
  }
  if (digits.length < places + 1) digits = '0'.repeat(places + 1 - digits.length) + digits;
  return halfUp(digits, next);
}

/** Decimal digits rounded half-up by the digit that follows them. */
function halfUp(digits: string, next: number): string {
  return next >= 5 ? incremented(digits) : digits;
}

/** A string of decimal digits plus one. */
function incremented(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits.charCodeAt(i) === 57) i--;
  if (i < 0) return '1' + '0'.repeat(digits.length);
  return digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + '0'.repeat(digits.length - 1 - i);
}

/** Cents as digits (at least three) to "123.45", signed unless it is zero. */
function centsText(negative: boolean, cents: string): string {
  let start = 0;
  while (start < cents.length - 3 && cents.charCodeAt(start) === 48) start++;
  const text = `${cents.slice(start, -2)}.${cents.slice(-2)}`;
  return negative && /[1-9]/.test(cents) ? `-${text}` : text;
}

/**
 * a.cmp(b) without its cost: decimal.js's comparedTo first copies its argument into a new Decimal,
 * which made comparisons the largest allocation of a list request (eligibility, cover, sorting,
 * piece lookup over hundreds of offers). Same algorithm as decimal.js (MIT), on the internals:
 * s the sign, e the exponent, d the base-1e7 digits. Both arguments must be finite.
 */
export function compareDecimals(a: Decimal, b: Decimal): number {
  const x = a as unknown as { s: number; e: number; d: number[] };
  const y = b as unknown as { s: number; e: number; d: number[] };
  const xd = x.d;
  const yd = y.d;
  if (!xd[0] || !yd[0]) return xd[0] ? x.s : yd[0] ? -y.s : 0; // a zero on either side
  if (x.s !== y.s) return x.s;
  const flip = x.s < 0 ? -1 : 1;
  if (x.e !== y.e) return x.e > y.e ? flip : -flip;
  const n = Math.min(xd.length, yd.length);
  for (let i = 0; i < n; i++) if (xd[i] !== yd[i]) return xd[i]! > yd[i]! ? flip : -flip;
  return xd.length === yd.length ? 0 : xd.length > yd.length ? flip : -flip;
}

/**
 * The value as a float, from the first three limbs (≈15 significant digits): what a.toNumber() gives to
 * within a few units in the last place, without its text round trip (toNumber goes through toString).
 * For screens that only need to know whether two values are far apart.
 */
export function roughNumber(value: Decimal): number {
  const x = value as unknown as { s: number; e: number; d: number[] };
  const d = x.d;
  const first = d[0]!;
  if (!first) return 0;
  let width = 1; // the first limb's digits
  for (let w = first; w >= 10; w = Math.floor(w / 10)) width++;
  const mantissa = first + (d[1] ?? 0) / 1e7 + (d[2] ?? 0) / 1e14;
  return x.s * mantissa * 10 ** (x.e - width + 1);
}
