// The pieces behind fast-calc.ts: the interval of amounts that share an offer's affine pairs (traced in
// fast-calc-trace.ts), and their values at an amount. Why this is exact,
// and where it falls back to the reference calculation: fast-calc.ts.
import { compareDecimals, Decimal, HUNDRED, roughNumber, ZERO } from './decimal.js';
import { returnPerYearOf, settle, withPromotions } from './calc.js';
import type { AffineRun, Bounds, Compiled } from './fast-calc-trace.js';
import { centsAmbiguous } from './present.js';
import { yearlyGain as gainPerYear } from './root.js';
import { roughAffineYield, roughYield } from './rough.js';
import type { CalcSummary, CalcTerms, CalcYields, PromotionsMode, RankYields } from './types.js';

export const ONE = new Decimal(1);
const TWELVE_HUNDRED = new Decimal(1200);
/** Amounts have at most two decimals and are positive. */
export const SMALLEST_AMOUNT = new Decimal('0.01');
/** Relative margin around a boundary computed with rounding (its error is ≈1e-32). */
const BOUNDARY_MARGIN = new Decimal('1e-20');

export interface Piece {
  entry: Entry;
  lo: Decimal | null;
  hi: Decimal | null;
  loExact: boolean;
  hiExact: boolean;
  /** The part of [lo, hi) that keeps the margin from boundaries computed with rounding. */
  safeLo: Decimal | null;
  safeHi: Decimal | null;
  /** Last use, for least-recently-used eviction. */
  used: number;
  grossS: Decimal;
  grossT: Decimal | null;
  taxS: Decimal;
  taxT: Decimal | null;
  /** Month 1's interest × 1200 / A: constant when that interest is linear in A. */
  nominal: Decimal | null;
  nominalS: Decimal;
  nominalT: Decimal;
  /** Comparable run: (A + G*)/A = comparableS + comparableT/A, (A + N*)/A = netS + netT/A. */
  comparableS: Decimal;
  comparableT: Decimal;
  netS: Decimal;
  netT: Decimal;
  /** No tax and no fees: N* = G*, so the effective rate is the comparable yield (one root, not two). */
  sameRatio: boolean;
  /** Constants when the ratios are (comparableT, netT zero). */
  comparableYield: Decimal | null;
  /** comparableYield / 100, for returnPerYear = A × this. */
  perYear: Decimal | null;
  effectiveRate: Decimal | null;
  /** A per-piece constant cannot be trusted to the cent: answer every amount from the reference. */
  unsafe: boolean;
  /**
   * The constant yields are not worked out yet (settle does, on first need; `unsafe` may then turn true).
   * Meanwhile the rough ones order the piece's offer.
   */
  pending: boolean;
  /** The first amount a list ranked the piece at (its constants are worked out at a second). */
  rankedAt: Decimal | undefined;
  /** The constant yields as floats (rough.ts); NaN where the yield is not constant. */
  roughComparable: number;
  roughEffective: number;
  /** comparableS, comparableT, netS, netT as floats (roughNumber), for the rough yield at an amount. */
  roughComparableS: number;
  roughComparableT: number;
  roughNetS: number;
  roughNetT: number;
}

export interface ExactResult {
  terms: CalcTerms;
  months: number;
  mode: PromotionsMode;
  summary: CalcSummary;
}

export interface Entry {
  key: string;
  compiled: Compiled;
  /** Sorted by lo (null first). */
  pieces: Piece[];
}

/**
 * A growth ratio this close to 0 (everything lost) is left to the reference: there the noise of
 * the last digits is no longer small next to the ratio, and for long periods ratio^(12/n) and
 * the "≤ 0 is −100" rule would magnify it.
 */
const TINY_RATIO = new Decimal('1e-9');
const MINUS_TINY_RATIO = TINY_RATIO.neg();

function orNull(t: Decimal): Decimal | null {
  return t.isZero() ? null : t;
}

function widen(x: Decimal, up: boolean): Decimal {
  const margin = x.abs().times(BOUNDARY_MARGIN).plus(BOUNDARY_MARGIN);
  return up ? x.plus(margin) : x.minus(margin);
}

/** (ratio^(12/n) − 1), or null when the ratio is too close to 0 to be computed apart from the reference. */
function yearlyGain(ratio: Decimal, months: number): Decimal | null {
  if (ratio.lt(TINY_RATIO) && ratio.gt(MINUS_TINY_RATIO)) return null;
  return gainPerYear(ratio, months);
}

/** An interval of amounts traced alike, with the part that keeps the margin from rounded ends. */
export type Interval = Pick<Piece, 'lo' | 'hi' | 'loExact' | 'hiExact' | 'safeLo' | 'safeHi'>;

/** Traced bounds as an interval of amounts. */
export function intervalOf(bounds: Bounds): Interval {
  return {
    lo: bounds.lo,
    hi: bounds.hi,
    loExact: bounds.loExact,
    hiExact: bounds.hiExact,
    safeLo: bounds.lo === null || bounds.loExact ? bounds.lo : widen(bounds.lo, true),
    safeHi: bounds.hi === null || bounds.hiExact ? bounds.hi : widen(bounds.hi, false),
  };
}

export function makePiece(entry: Entry, bounds: Bounds, actual: AffineRun, comparable: AffineRun | null): Piece {
  const c = entry.compiled;
  const cmp = comparable ?? actual;
  const nominal = actual.firstT.isZero() ? actual.firstS.times(TWELVE_HUNDRED) : null;
  const comparableS = ONE.plus(cmp.grossS);
  const comparableT = cmp.grossT;
  const netS = comparableS.minus(cmp.taxS);
  const netT = cmp.grossT.minus(cmp.taxT).minus(c.fees);
  const roughComparable = comparableT.isZero() ? roughYield(comparableS, c.months) : NaN;
  const roughEffective = netT.isZero() ? roughYield(netS, c.months) : NaN;
  // Constant yields are worked out when first needed (settle), where their floats can order them meanwhile.
  const pending =
    (comparableT.isZero() || netT.isZero()) &&
    (!comparableT.isZero() || !Number.isNaN(roughComparable)) &&
    (!netT.isZero() || !Number.isNaN(roughEffective));
  const piece: Piece = {
    entry,
    ...intervalOf(bounds),
    used: 0,
    grossS: actual.grossS,
    grossT: orNull(actual.grossT),
    taxS: actual.taxS,
    taxT: orNull(actual.taxT),
    nominal,
    nominalS: actual.firstS.times(TWELVE_HUNDRED),
    nominalT: actual.firstT.times(TWELVE_HUNDRED),
    comparableS,
    comparableT,
    netS,
    netT,
    sameRatio: netS.eq(comparableS) && netT.eq(comparableT),
    comparableYield: null,
    perYear: null,
    effectiveRate: null,
    unsafe: nominal !== null && centsAmbiguous(nominal),
    pending: true,
    rankedAt: undefined,
    roughComparable,
    roughEffective,
    roughComparableS: roughNumber(comparableS),
    roughComparableT: roughNumber(comparableT),
    roughNetS: roughNumber(netS),
    roughNetT: roughNumber(netT),
  };
  return pending ? piece : settleConstants(piece);
}

/**
 * Works out the piece's constant yields (ratio^(12/months) − 1 where the ratio does not depend on the
 * amount), once: when it is made, or where they were left pending, on the first call that needs them
 * (rankYieldsOf); a constant that cannot be trusted to the cent makes the piece unsafe.
 */
export function settleConstants(piece: Piece): Piece {
  if (!piece.pending) return piece;
  piece.pending = false;
  const months = piece.entry.compiled.months;
  if (piece.comparableT.isZero()) {
    piece.perYear = yearlyGain(piece.comparableS, months);
    if (piece.perYear === null) piece.unsafe = true;
    else piece.comparableYield = piece.perYear.times(HUNDRED);
  }
  if (piece.netT.isZero()) {
    const gain = yearlyGain(piece.netS, months);
    if (gain === null) piece.unsafe = true;
    else piece.effectiveRate = gain.times(HUNDRED);
  }
  piece.unsafe ||=
    (piece.comparableYield !== null && centsAmbiguous(piece.comparableYield)) ||
    (piece.effectiveRate !== null && centsAmbiguous(piece.effectiveRate));
  return piece;
}

/**
 * The two yields as floats at an amount (rough.ts), without a root; null where the piece cannot answer or
 * a float would claim no bound (the exact yields are then worked out at once).
 */
export function roughRankOf(
  piece: Piece,
  amount: Decimal,
  inverseOf: InverseOf,
  roughInverse: number,
): { comparable: number; effective: number } | null {
  if (piece.unsafe) return null;
  const months = piece.entry.compiled.months;
  // From the floats, and where they cannot claim the bound (roughAffineYield) from the decimals.
  const at = (s: Decimal, t: Decimal, sf: number, tf: number) => {
    const y = roughAffineYield(sf, tf, roughInverse, months);
    return Number.isNaN(y) ? roughYield(s.plus(t.times(inverseOf(amount))), months) : y;
  };
  const comparable = piece.comparableT.isZero()
    ? piece.roughComparable
    : at(piece.comparableS, piece.comparableT, piece.roughComparableS, piece.roughComparableT);
  let effective: number;
  if (piece.sameRatio) effective = comparable;
  else if (piece.netT.isZero()) effective = piece.roughEffective;
  else effective = at(piece.netS, piece.netT, piece.roughNetS, piece.roughNetT);
  return Number.isNaN(comparable) || Number.isNaN(effective) ? null : { comparable, effective };
}

function affineAt(s: Decimal, t: Decimal | null, amount: Decimal): Decimal {
  const st = s.times(amount);
  return t === null ? st : st.plus(t);
}

type InverseOf = (amount: Decimal) => Decimal;

/** Whether the amount lies in the part of the piece that needs no reference (see the file comment). */
export function answers(piece: Piece, amount: Decimal): boolean {
  return !piece.unsafe && holdsSafely(piece, amount);
}

/** Whether the amount lies in the part of the interval away from its rounded ends. */
export function holdsSafely(interval: Interval, amount: Decimal): boolean {
  if (interval.safeLo !== null && compareDecimals(amount, interval.safeLo) < 0) return false;
  return interval.safeHi === null || compareDecimals(amount, interval.safeHi) < 0;
}

/**
 * What a list ranks an offer by (and shows for the best of a type or term): the two yields, without
 * returnPerYear, which only the page's rows show. Null where the reference must answer.
 */
export function rankYieldsOf(piece: Piece, amount: Decimal, inverseOf: InverseOf): RankYields | null {
  if (settleConstants(piece).unsafe) return null;
  const c = piece.entry.compiled;
  let comparableYield = piece.comparableYield;
  if (piece.perYear === null) {
    // (A + G*)/A = s + t/A: with 1/A worked out once per amount
    const perYear = yearlyGain(piece.comparableS.plus(piece.comparableT.times(inverseOf(amount))), c.months);
    if (perYear === null) return null;
    comparableYield = perYear.times(HUNDRED);
    if (centsAmbiguous(comparableYield)) return null;
  }
  let effectiveRate = piece.effectiveRate;
  if (effectiveRate === null && piece.sameRatio) effectiveRate = comparableYield!;
  if (effectiveRate === null) {
    const gain = yearlyGain(piece.netS.plus(piece.netT.times(inverseOf(amount))), c.months);
    if (gain === null) return null;
    effectiveRate = gain.times(HUNDRED);
    if (centsAmbiguous(effectiveRate)) return null;
  }
  return { comparableYield: comparableYield!, effectiveRate };
}

/** The yields from a piece (after `answers`), or null where the reference must answer. */
export function yieldsOf(piece: Piece, amount: Decimal, inverseOf: InverseOf): CalcYields | null {
  const yields = rankYieldsOf(piece, amount, inverseOf);
  if (yields === null) return null;
  const returnPerYear = returnPerYearOf(amount, yields.comparableYield);
  if (centsAmbiguous(returnPerYear, amount.e)) return null;
  return { amount, months: piece.entry.compiled.months, ...yields, returnPerYear };
}

/** The summary from a piece (after `answers`), or null where the reference must answer. */
export function summaryOf(piece: Piece, amount: Decimal, inverseOf: InverseOf): CalcSummary | null {
  const c = piece.entry.compiled;
  const scale = amount.e;
  const grossInterest = affineAt(piece.grossS, piece.grossT, amount);
  if (centsAmbiguous(grossInterest, scale)) return null;
  let withholdingTax = ZERO;
  if (c.taxed) {
    withholdingTax = affineAt(piece.taxS, piece.taxT, amount);
    if (centsAmbiguous(withholdingTax, scale)) return null;
  }
  let nominalRate = piece.nominal;
  if (nominalRate === null) {
    nominalRate = piece.nominalS.plus(piece.nominalT.times(inverseOf(amount)));
    if (centsAmbiguous(nominalRate)) return null;
  }
  const yields = yieldsOf(piece, amount, inverseOf);
  if (yields === null) return null;
  return {
    ...settle(
      { amount, months: c.months, promotionApplied: c.promotionApplied, grossInterest, withholdingTax, fees: c.fees },
      yields,
    ),
    nominalRate,
  };
}

/** Modes that calculate alike share pieces (see withPromotions). */
export function sameMode(a: PromotionsMode, b: PromotionsMode): boolean {
  return withPromotions(a) === withPromotions(b);
}

export function sameTerms(a: CalcTerms, b: CalcTerms): boolean {
  if (a === b) return true;
  const decEq = (x: Decimal | null, y: Decimal | null) => (x === null ? y === null : y !== null && x.eq(y));
  if (
    a.tierMode !== b.tierMode ||
    a.payout !== b.payout ||
    a.interestCompounds !== b.interestCompounds ||
    !a.annualFee.eq(b.annualFee) ||
    !a.withholdingRate.eq(b.withholdingRate) ||
    a.tiers.length !== b.tiers.length
  ) {
    return false;
  }
  for (let i = 0; i < a.tiers.length; i++) {
    const x = a.tiers[i]!;
    const y = b.tiers[i]!;
    if (!x.from.eq(y.from) || !decEq(x.to, y.to) || !x.rate.eq(y.rate)) return false;
  }
  const p = a.promotion;
  const q = b.promotion;
  if (p === null || q === null) return p === q;
  return p.kind === q.kind && p.months === q.months && p.rate.eq(q.rate) && decEq(p.maxBalance, q.maxBalance);
}

/** The piece of `pieces` (sorted by lo) whose [lo, hi) holds the amount, if any. */
export function findPiece(pieces: readonly Piece[], amount: Decimal): Piece | undefined {
  let lo = 0;
  let hi = pieces.length;
  // The last piece with lo ≤ amount; pieces are disjoint up to rounding slivers, so look one back too.
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = pieces[mid]!.lo;
    if (start === null || compareDecimals(start, amount) <= 0) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo - 1; i >= 0 && i >= lo - 2; i--) {
    const piece = pieces[i]!;
    if (piece.hi === null || compareDecimals(amount, piece.hi) < 0) return piece;
  }
  return undefined;
}

export function insertPiece(pieces: Piece[], piece: Piece): void {
  let i = pieces.length;
  while (i > 0) {
    const prev = pieces[i - 1]!.lo;
    if (prev === null || (piece.lo !== null && prev.lte(piece.lo))) break;
    i--;
  }
  pieces.splice(i, 0, piece);
}
