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
