// The one Decimal the service computes with: 34 significant digits, half-up. A clone, so that no
// other user of decimal.js (Prisma bundles its own) is affected by this configuration.
import { Decimal as DecimalJs } from 'decimal.js';

export const Decimal = DecimalJs.clone({ precision: 34, rounding: DecimalJs.ROUND_HALF_UP });
export type Decimal = DecimalJs;

export const ZERO = new Decimal(0);
export const HUNDRED = new Decimal(100);

/** Rounds once, at the end, half-up to two decimals: the only way a value leaves the domain as text. */
export function toFixed2(value: Decimal): string {
  const s = value.toFixed(2, DecimalJs.ROUND_HALF_UP);
  return s === '-0.00' ? '0.00' : s;
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
