// Yields as floats, to order offers without their roots. A list ranks every offer to show a page of them:
// the exact yield, ratio^(12/months) − 1 in 34-digit decimals, is a root of degree up to 600 (root.ts),
// ≈30 µs, and at a new horizon or amount every offer needs one or two. Where two offers' yields are far
// apart, a float decides their order as the exact values would; only close calls, and the values a client
// sees, are computed exactly (lazily, once).
//
// Why a float may decide. From the exact ratio R (a Decimal), r = roughNumber(R) is within 1e-14 of R
// (relative: three limbs, ≥ 15 digits, and a few roundings), and Math.pow(r, 12/n) is within a few units
// in the last place of r^(12/n); the exponent's own rounding adds |ln r|·(12/n)·2⁻⁵³. For r in
// [RATIO_MIN, RATIO_MAX] (|ln r| ≤ 14) the growth g = r^(12/n) is within 12·1e-14 + 15·12·2⁻⁵³ + 4·2⁻⁵² <
// 2e-13 of its value, relative, so the yield 100·(g − 1) within 2e-11·g + 1e-14·(1 + |yield|) percent,
// less than 3e-11·max(1, |yield|). ROUGH_ERROR allows thirty times that. The exact yields are within 1e-24
// of theirs (calc.ts against fast-calc.ts), so two rough yields further apart than both allowances are
// exact yields apart by more than 1e-10 percent: the same order, and never a tie (ties are 1e-20 apart
// at most: sort.ts, YIELD_TIE). src/domain/rough.test.ts holds floats and Decimals to this.
import type { Decimal } from './decimal.js';
import { roughNumber } from './decimal.js';
import type { RankYields } from './types.js';

/** A rough yield is within this × max(1, |yield|) percent of the exact one. */
export const ROUGH_ERROR = 1e-9;
/** Growth ratios outside this range get no rough yield (their logarithm would widen the bound). */
const RATIO_MIN = 1e-6;
const RATIO_MAX = 1e6;

/** The yield in percent of a growth ratio over `months`, as a float; NaN where no bound is claimed. */
export function roughYield(ratio: Decimal, months: number): number {
  const r = roughNumber(ratio);
  if (!(r >= RATIO_MIN && r <= RATIO_MAX)) return NaN;
  return (Math.pow(r, 12 / months) - 1) * 100;
}

/**
 * The yield of a ratio s + t/A that varies with the amount A (a piece's, fast-calc-pieces.ts), from floats:
 * s and t as roughNumber gives them (within 1e-14, relative) and `inverse`, 1/A as a float (within 2⁻⁵²).
 * The float ratio r is then within 1e-14·|s| + 1.2e-14·|t/A| + 2⁻⁵³·|r|, and where |s| + |t/A| ≤ 2|r| (no
 * cancellation: NaN otherwise, and the caller takes the ratio in decimals) within 2.5e-14·|r|: the
 * yield within 3e-11·max(1, |yield|) percent as above with 2.5× the ratio's error, under 1e-10·max(1,
 * |yield|), a tenth of ROUGH_ERROR. A float multiply-add stands for a 34-digit one and its division.
 */
export function roughAffineYield(s: number, t: number, inverse: number, months: number): number {
  const tail = t * inverse;
  const r = s + tail;
  if (!(Math.abs(s) + Math.abs(tail) <= 2 * Math.abs(r))) return NaN;
  if (!(r >= RATIO_MIN && r <= RATIO_MAX)) return NaN;
  return (Math.pow(r, 12 / months) - 1) * 100;
}

/** The order of two yields from their rough values (as compareYields orders the exact ones); 0: too close to tell. */
export function roughOrder(x: number | undefined, y: number | undefined): number {
  if (x === undefined || y === undefined) return 0;
  const d = x - y;
  // NaN (no rough value) fails the comparison: undecided.
  return Math.abs(d) > ROUGH_ERROR * (Math.max(1, Math.abs(x)) + Math.max(1, Math.abs(y))) ? Math.sign(d) : 0;
}

/**
 * Rank yields whose exact values are computed on first read: `roughComparable` and `roughEffective` order
 * offers meanwhile (roughOrder). The exact values are those the calculator would have given at once.
 */
export class LazyRankYields implements RankYields {
  #exact: RankYields | undefined;
  #make: (() => RankYields) | undefined;

  constructor(
    readonly roughComparable: number,
    readonly roughEffective: number,
    make: () => RankYields,
  ) {
    this.#make = make;
  }

  /** Whether the exact yields have been worked out. */
  get settled(): boolean {
    return this.#exact !== undefined;
  }

  #settled(): RankYields {
    if (this.#exact === undefined) {
      this.#exact = this.#make!();
      this.#make = undefined; // what it held (the piece, the input) is no longer needed
    }
    return this.#exact;
  }

  get comparableYield(): Decimal {
    return this.#settled().comparableYield;
  }

  get effectiveRate(): Decimal {
    return this.#settled().effectiveRate;
  }
}
