// The pieces behind fast-calc.ts: an offer's terms compiled per month (its regimes), one pass of the
// §2 loop with every quantity held as an affine pair (s, t) of the amount, and the piece it yields
// (the interval of amounts sharing those pairs, and their values at an amount). Why this is exact,
// and where it falls back to the reference calculation: fast-calc.ts.
import { compareDecimals, Decimal, HUNDRED, ZERO } from './decimal.js';
import { creditsInMonth, feesFor, returnPerYearOf, settle, withPromotions } from './calc.js';
import { centsAmbiguous } from './present.js';
import { yearlyGain as gainPerYear } from './root.js';
import type { CalcSummary, CalcTerms, CalcYields, PromotionsMode } from './types.js';

export const ONE = new Decimal(1);
const TWELVE_HUNDRED = new Decimal(1200);
/** Amounts have at most two decimals and are positive. */
export const SMALLEST_AMOUNT = new Decimal('0.01');
/** Relative margin around a boundary computed with rounding (its error is ≈1e-32). */
const BOUNDARY_MARGIN = new Decimal('1e-20');

/** interest = a·B + c within one regime. */
interface Affine {
  a: Decimal;
  c: Decimal;
}

/** What a key's terms turn into once: per-tier coefficients and the crediting calendar. */
interface Compiled {
  terms: CalcTerms;
  months: number;
  mode: PromotionsMode;
  from: Decimal[];
  to: (Decimal | null)[];
  base: Affine[];
  /** Months 1..promotionMonths run the promotion (0: none). */
  promotionMonths: number;
  cap: Decimal | null;
  /** Per tier, with the promotion running and B below maxBalance (or no maxBalance). */
  promoted: Affine[];
  /** Per tier, with the promotion running and B at or above maxBalance; null where not affine. */
  capped: (Affine | null)[];
  credits: boolean[];
  withholdingRate: Decimal;
  taxed: boolean;
  fees: Decimal;
  promotionApplied: boolean;
  /**
   * Per month that starts a crediting period: how many periods in a row from there have its length and
   * lie wholly inside or wholly after the promotion (0: this one straddles the promotion's end, or the
   * month starts no period). What `trace` may cover in one closed-form step.
   */
  alike: number[];
  /** Per month: the month that credits what it accrues (the next credit month, itself included). */
  creditAt: number[];
  /**
   * No rate below 0 and withholding within 0–100 %: a balance in a regime then never falls, so a run of
   * alike periods keeps to its first period's lower bounds and its last period's upper bounds.
   */
  neverFalls: boolean;
}

export function compile(terms: CalcTerms, months: number, mode: PromotionsMode): Compiled {
  const from = terms.tiers.map((t) => t.from);
  const to = terms.tiers.map((t) => t.to);
  const base: Affine[] = [];
  let below = ZERO; // marginal: the interest of all full tiers below the current one
  terms.tiers.forEach((tier, k) => {
    const a = tier.rate.div(TWELVE_HUNDRED);
    const c = terms.tierMode === 'whole' || k === 0 ? ZERO : below.minus(tier.from.times(a));
    base.push({ a, c });
    if (tier.to !== null) below = below.plus(tier.to.minus(tier.from).times(a));
  });
  const promotion = withPromotions(mode) ? terms.promotion : null;
  const promoted: Affine[] = [];
  const capped: (Affine | null)[] = [];
  const cap = promotion?.maxBalance ?? null;
  if (promotion !== null) {
    const p = promotion.rate.div(TWELVE_HUNDRED);
    for (const { a, c } of base) {
      if (promotion.kind === 'bonus') {
        promoted.push({ a: a.plus(p), c });
        capped.push(cap === null ? null : { a, c: c.plus(cap.times(p)) });
      } else {
        promoted.push({ a: p, c: ZERO });
        // base(B)·(B − cap)/B is affine only when base(B) is proportional to B (c = 0).
        capped.push(cap === null || !c.isZero() ? null : { a, c: cap.times(p).minus(a.times(cap)) });
      }
    }
  }
  const credits = [false];
  for (let m = 1; m <= months; m++) credits.push(creditsInMonth(terms.payout, m, months));
  const promotionMonths = promotion === null ? 0 : Math.min(promotion.months, months);
  const creditAt = new Array<number>(months + 2).fill(0);
  for (let m = months; m >= 1; m--) creditAt[m] = credits[m] ? m : creditAt[m + 1]!;
  const alike = new Array<number>(months + 2).fill(0);
  const starts: number[] = [];
  for (let m = 1; m <= months; m = creditAt[m]! + 1) starts.push(m);
  for (let i = starts.length - 1; i >= 0; i--) {
    const s = starts[i]!;
    const end = creditAt[s]!;
    const promoted = s <= promotionMonths;
    if (promoted && end > promotionMonths) continue; // straddles the promotion's end
    const next = starts[i + 1];
    const sameNext = next !== undefined && creditAt[next]! - next === end - s && next <= promotionMonths === promoted;
    alike[s] = 1 + (sameNext ? alike[next]! : 0);
  }
  const nonNegative = (r: Decimal) => !r.isNegative() || r.isZero();
  const neverFalls =
    terms.tiers.every((t) => nonNegative(t.rate)) &&
    (promotion === null || nonNegative(promotion.rate)) &&
    nonNegative(terms.withholdingRate) &&
    terms.withholdingRate.lte(HUNDRED);
  return {
    alike,
    creditAt,
    neverFalls,
    terms,
    months,
    mode,
    from,
    to,
    base,
    promotionMonths,
    cap,
    promoted,
    capped,
    credits,
    withholdingRate: terms.withholdingRate,
    taxed: !terms.withholdingRate.isZero(),
    fees: feesFor(terms.annualFee, months),
    promotionApplied: promotionMonths > 0,
  };
}

/** The interval of amounts a piece covers: [lo, hi), null for unbounded. */
export class Bounds {
  lo: Decimal | null = null;
  loExact = true;
  hi: Decimal | null = null;
  hiExact = true;

  raiseLo(x: Decimal, exact: boolean): void {
    if (this.lo === null || x.gt(this.lo)) {
      this.lo = x;
      this.loExact = exact;
    } else if (x.eq(this.lo)) this.loExact &&= exact;
  }

  lowerHi(x: Decimal, exact: boolean): void {
    if (this.hi === null || x.lt(this.hi)) {
      this.hi = x;
      this.hiExact = exact;
    } else if (x.eq(this.hi)) this.hiExact &&= exact;
  }
}

/** A run's totals as affine functions of A: value = s·A + t. */
export interface AffineRun {
  firstS: Decimal;
  firstT: Decimal;
  grossS: Decimal;
  grossT: Decimal;
  taxS: Decimal;
  taxT: Decimal;
}

function tierIndex(from: readonly Decimal[], balance: Decimal): number {
  let k = -1;
  for (let i = 0; i < from.length; i++) {
    if (balance.gte(from[i]!)) k = i;
    else break;
  }
  return k;
}

/**
 * The §2 loop with every quantity held as (s, t), its regimes read off at `anchor`. Adds each
 * month's interval to `bounds`; null when some month is not affine in B.
 *
 * Where the balance never falls (no rate below 0), a run of alike crediting periods in one regime (see
 * `alike`) adds its interval once: the balance rises through the run, so its first period holds its
 * lower bounds and its last period its upper ones, and the months between would only repeat them. The
 * affine pairs are still accrued month by month, with the same operations as the general loop, so they
 * have the same digits: only the bounds' work (two Decimal divisions a month once interest compounds)
 * and the regime lookups are saved. `stepwise` turns this off (the tests hold the two equal).
 */
export function trace(
  c: Compiled,
  anchor: Decimal,
  compounds: boolean,
  bounds: Bounds,
  stepwise = false,
): AffineRun | null {
  let bs = ONE;
  let bt = ZERO;
  // While B is still exactly A, in the reference as here, its boundaries are exact.
  let exact = true;
  let balance = anchor;
  let accS = ZERO;
  let accT = ZERO;
  let grossS = ZERO;
  let grossT = ZERO;
  let taxS = ZERO;
  let taxT = ZERO;
  let firstS = ZERO;
  let firstT = ZERO;
  // Constraints already added for the current B (it often stays put for months).
  let tierDone = -1;
  let capDone = false;
  /** The amount at which B = s·A + t reaches the level (the level itself while B is still A). */
  const at = (level: Decimal, s = bs, t = bt, exactly = exact) => (exactly ? level : level.minus(t).div(s));

  /** Month m's interest in the regime, accrued. */
  const accrue = (regime: Affine, m: number) => {
    const is = regime.a.times(bs);
    const it = bt.isZero() ? regime.c : regime.a.times(bt).plus(regime.c);
    if (m === 1) {
      firstS = is;
      firstT = it;
    }
    accS = accS.plus(is);
    accT = accT.plus(it);
    grossS = grossS.plus(is);
    grossT = grossT.plus(it);
  };

  /** What has accrued is credited: withheld, then added to the balance when interest compounds. */
  const credit = () => {
    let netS = accS;
    let netT = accT;
    if (c.taxed) {
      const keptS = accS.times(c.withholdingRate).div(HUNDRED);
      const keptT = accT.times(c.withholdingRate).div(HUNDRED);
      taxS = taxS.plus(keptS);
      taxT = taxT.plus(keptT);
      netS = accS.minus(keptS);
      netT = accT.minus(keptT);
    }
    if (compounds && !(netS.isZero() && netT.isZero())) {
      bs = bs.plus(netS);
      bt = bt.plus(netT);
      exact = false;
      balance = bs.times(anchor).plus(bt);
      tierDone = -1;
      capDone = false;
    }
    accS = ZERO;
    accT = ZERO;
  };

  const runs = !stepwise && c.neverFalls;
  for (let m = 1; m <= c.months;) {
    const k = tierIndex(c.from, balance);
    if (k < 0) return null;
    let regime: Affine | null;
    const promoted = m <= c.promotionMonths;
    const capped = promoted && c.cap !== null;
    const above = capped && balance.gte(c.cap!);
    if (!promoted) regime = c.base[k]!;
    else if (above) regime = c.capped[k]!;
    else regime = c.promoted[k]!;
    if (regime === null) return null;
    if (!bs.isPositive() || bs.isZero()) return null;

    const periods = runs ? c.alike[m]! : 0;
    if (periods >= 2) {
      const p = c.creditAt[m]! - m + 1;
      bounds.raiseLo(at(c.from[k]!), exact);
      if (above) bounds.raiseLo(at(c.cap!), exact);
      const low = c.from[k]!;
      const next = c.from[k + 1] ?? null;
      const top = c.to[k] ?? null;
      // Until the anchor's balance leaves the regime, as tierIndex and the cap would see it.
      const stays = () =>
        balance.gte(low) && (next === null || balance.lt(next)) && (!capped || balance.gte(c.cap!) === above);
      let lastS = bs;
      let lastT = bt;
      let lastExact = exact;
      for (let j = 0; j < periods && (j === 0 || stays()); j++) {
        lastS = bs;
        lastT = bt;
        lastExact = exact;
        for (let q = 0; q < p; q++) accrue(regime, m + q);
        credit();
        m += p;
      }
      if (top !== null) bounds.lowerHi(at(top, lastS, lastT, lastExact), lastExact);
      if (capped && !above) bounds.lowerHi(at(c.cap!, lastS, lastT, lastExact), lastExact);
      tierDone = -1;
      capDone = false;
      continue;
    }

    if (tierDone !== k || (capped && !capDone)) {
      if (tierDone !== k) {
        bounds.raiseLo(at(c.from[k]!), exact);
        const top = c.to[k];
        if (top !== null && top !== undefined) bounds.lowerHi(at(top), exact);
        tierDone = k;
      }
      if (capped && !capDone) {
        if (above) bounds.raiseLo(at(c.cap!), exact);
        else bounds.lowerHi(at(c.cap!), exact);
        capDone = true;
      }
    }
    accrue(regime, m);
    if (c.credits[m]) credit();
    m++;
  }
  return { firstS, firstT, grossS, grossT, taxS, taxT };
}

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

export function makePiece(entry: Entry, bounds: Bounds, actual: AffineRun, comparable: AffineRun | null): Piece {
  const c = entry.compiled;
  const cmp = comparable ?? actual;
  const nominal = actual.firstT.isZero() ? actual.firstS.times(TWELVE_HUNDRED) : null;
  const comparableS = ONE.plus(cmp.grossS);
  const comparableT = cmp.grossT;
  const netS = comparableS.minus(cmp.taxS);
  const netT = cmp.grossT.minus(cmp.taxT).minus(c.fees);
  let unsafe = false;
  let comparableYield: Decimal | null = null;
  let perYear: Decimal | null = null;
  if (comparableT.isZero()) {
    perYear = yearlyGain(comparableS, c.months);
    if (perYear === null) unsafe = true;
    else comparableYield = perYear.times(HUNDRED);
  }
  let effectiveRate: Decimal | null = null;
  if (netT.isZero()) {
    const gain = yearlyGain(netS, c.months);
    if (gain === null) unsafe = true;
    else effectiveRate = gain.times(HUNDRED);
  }
  unsafe ||=
    (nominal !== null && centsAmbiguous(nominal)) ||
    (comparableYield !== null && centsAmbiguous(comparableYield)) ||
    (effectiveRate !== null && centsAmbiguous(effectiveRate));
  return {
    entry,
    lo: bounds.lo,
    hi: bounds.hi,
    loExact: bounds.loExact,
    hiExact: bounds.hiExact,
    safeLo: bounds.lo === null || bounds.loExact ? bounds.lo : widen(bounds.lo, true),
    safeHi: bounds.hi === null || bounds.hiExact ? bounds.hi : widen(bounds.hi, false),
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
    comparableYield,
    perYear,
    effectiveRate,
    unsafe,
  };
}

function affineAt(s: Decimal, t: Decimal | null, amount: Decimal): Decimal {
  const st = s.times(amount);
  return t === null ? st : st.plus(t);
}

type InverseOf = (amount: Decimal) => Decimal;

/** Whether the amount lies in the part of the piece that needs no reference (see the file comment). */
export function answers(piece: Piece, amount: Decimal): boolean {
  if (piece.unsafe) return false;
  if (piece.safeLo !== null && compareDecimals(amount, piece.safeLo) < 0) return false;
  return piece.safeHi === null || compareDecimals(amount, piece.safeHi) < 0;
}

/** The yields from a piece (after `answers`), or null where the reference must answer. */
export function yieldsOf(piece: Piece, amount: Decimal, inverseOf: InverseOf): CalcYields | null {
  const c = piece.entry.compiled;
  let comparableYield = piece.comparableYield;
  let perYear = piece.perYear;
  if (perYear === null) {
    // (A + G*)/A = s + t/A: with 1/A worked out once per amount
    perYear = yearlyGain(piece.comparableS.plus(piece.comparableT.times(inverseOf(amount))), c.months);
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
  const returnPerYear = returnPerYearOf(amount, comparableYield!);
  if (centsAmbiguous(returnPerYear, amount.e)) return null;
  return { amount, months: c.months, comparableYield: comparableYield!, effectiveRate, returnPerYear };
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
