// A memoising evaluator for the offer list: the same numbers as `calculate` (calc.ts, its twin and
// reference) for any amount, at a few Decimal operations per offer instead of a month-by-month loop.
// src/domain/fast-calc.test.ts holds the two equal ("property: fast == reference ..."); what follows
// the monthly loop (net, end balance, return per year) is calc.ts's `settle`, shared by both.
//
// Why it is exact: within a "regime" (each month the balance stays in the same tier and on the
// same side of the promotion's maxBalance; whether the promotion runs is fixed per month) a month's
// interest is a·B + c with a, c depending on the regime only. Crediting, withholding and
// compounding are affine too, so every balance, every total and both comparable totals are affine
// functions s·A + t of the amount A, exactly (not to first order). One pass of the §2 loop with
// every quantity held as such a pair (s, t) yields the coefficients and, month by month, the
// interval of amounts for which the balance stays in that month's regime: (L − t)/s ≤ A < (H − t)/s.
// Their intersection is a "piece"; every amount in it is then computed by evaluating the pairs.
// The pairs depend on the regime sequence only, never on the amount that first built the piece, so
// an amount gets the same digits whichever amounts were asked before it.
//
// Where the two computations could still disagree it falls back to the reference, for that amount:
// - a month whose interest is not affine in B (marginal tiers + replace promotion above its
//   maxBalance: base(B)·R/B has a c·cap/B term);
// - an amount within 1e-20 (relative) of a piece boundary that was computed with rounding
//   (boundaries from a balance that is still exactly A are exact and need no margin);
// - a value a client sees in cents that lies so close to a half cent that the last digits, where the
//   two computations differ, could decide the cent (present.ts: never for a value that is exactly a
//   half cent; in practice never at all, the band is 1e-16 wide);
// - a balance slope s ≤ 0 (only with rates below −100 %): the interval would flip.
import { LRUCache } from 'lru-cache';
import { compareDecimals, Decimal, HUNDRED, ZERO } from './decimal.js';
import { calculate, creditsInMonth, feesFor, returnPerYearOf, settle, withPromotions } from './calc.js';
import { centsAmbiguous } from './present.js';
import { yearlyGain as gainPerYear } from './root.js';
import type { CalcInput, CalcResult, CalcTerms, PromotionsMode } from './types.js';

/** CalcResult without the monthly steps: what the list needs. */
export type CalcSummary = Omit<CalcResult, 'steps'>;

/** What ranking an offer needs (sort keys, term curve, type maxima): cheaper than a summary. */
export type CalcYields = Pick<CalcSummary, 'amount' | 'months' | 'comparableYield' | 'effectiveRate' | 'returnPerYear'>;

/**
 * The closed form of the calculation over one piece: every amount A in [lo, hi) shares its regimes month
 * by month, so (A + G*)/A = comparableS + comparableT/A and (A + N*)/A = netS + netT/A exactly (G*, N*
 * the comparable run's gross and net interest, contract §2). The savings plan reads the shape of an
 * offer's return over the amounts from these (linear when the T is 0, affine over 12 months, curved
 * otherwise).
 */
export interface PieceShape {
  /** Inclusive lower bound of the amounts; null: unbounded. */
  lo: Decimal | null;
  /** Exclusive upper bound; null: unbounded. */
  hi: Decimal | null;
  /** A bound computed with rounding: an amount within 1e-20 (relative) of it may belong to the neighbour. */
  loExact: boolean;
  hiExact: boolean;
  months: number;
  comparableS: Decimal;
  comparableT: Decimal;
  netS: Decimal;
  netT: Decimal;
}

export interface CalculatorOptions {
  /** Pieces kept over all keys; the least recently used is evicted beyond this. Default 50,000. */
  maxPieces?: number;
  /** Exact results kept for amounts the pieces cannot answer. Default 5,000. */
  maxExact?: number;
}

export interface CalculatorStats {
  keys: number;
  pieces: number;
  /** Evaluations answered from a cached piece. */
  hits: number;
  /** Evaluations that found no piece (one was built, or the amount cannot be pieced). */
  misses: number;
  /** Pieces dropped to stay within maxPieces. */
  evictions: number;
  /** Runs of the reference loop (for the two kinds below, unless the exact cache had the amount). */
  fallbacks: number;
  /** Evaluations with no piece possible: a month not affine in B (or a balance slope ≤ 0). */
  unpieceable: number;
  /**
   * Evaluations a piece could not answer: the amount at a rounded boundary, a shown value next to a half cent, a ratio
   * near 0.
   */
  guarded: number;
  /** Evaluations answered from the exact-result cache. */
  exactHits: number;
  exactEntries: number;
}

export interface Calculator {
  /**
   * The summary of `calculate(input)`. `key` must identify (terms, months, promotions mode): the
   * same key with other terms drops that key's pieces and starts again.
   */
  evaluate(key: string, input: CalcInput): CalcSummary;
  /**
   * Only comparableYield, effectiveRate and returnPerYear, the same values `evaluate` gives: a
   * list can rank every offer with this and summarise only the page it shows.
   */
  evaluateYields(key: string, input: CalcInput): CalcYields;
  /**
   * The comparable yield and effective rate when they are the same for every amount (the key has one
   * linear piece over all amounts and no fees), else null. Ask after an evaluation of the key.
   */
  constantYields(key: string, input: CalcInput): { comparableYield: Decimal; effectiveRate: Decimal } | null;
  /**
   * The piece that holds the amount (built when missing), or null when the amount has none: a month
   * whose interest is not affine in the balance (see the file comment). The values at any amount still
   * come from `evaluate`, which knows where a piece cannot be trusted to the last digit.
   */
  pieceAt(key: string, input: CalcInput): PieceShape | null;
  stats(): CalculatorStats;
  clear(): void;
}

const ONE = new Decimal(1);
const TWELVE_HUNDRED = new Decimal(1200);
/** Amounts have at most two decimals and are positive. */
const SMALLEST_AMOUNT = new Decimal('0.01');
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
}

function compile(terms: CalcTerms, months: number, mode: PromotionsMode): Compiled {
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
  return {
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
class Bounds {
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
interface AffineRun {
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
 */
function trace(c: Compiled, anchor: Decimal, compounds: boolean, bounds: Bounds): AffineRun | null {
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
  for (let m = 1; m <= c.months; m++) {
    const k = tierIndex(c.from, balance);
    if (k < 0) return null;
    let regime: Affine | null;
    const promoted = m <= c.promotionMonths;
    const above = promoted && c.cap !== null && balance.gte(c.cap);
    if (!promoted) regime = c.base[k]!;
    else if (above) regime = c.capped[k]!;
    else regime = c.promoted[k]!;
    if (regime === null) return null;
    if (tierDone !== k || (promoted && c.cap !== null && !capDone)) {
      if (!bs.isPositive() || bs.isZero()) return null;
      const at = (level: Decimal) => (exact ? level : level.minus(bt).div(bs));
      if (tierDone !== k) {
        bounds.raiseLo(at(c.from[k]!), exact);
        const top = c.to[k];
        if (top !== null && top !== undefined) bounds.lowerHi(at(top), exact);
        tierDone = k;
      }
      if (promoted && c.cap !== null && !capDone) {
        if (above) bounds.raiseLo(at(c.cap), exact);
        else bounds.lowerHi(at(c.cap), exact);
        capDone = true;
      }
    }
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
    if (c.credits[m]) {
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
    }
  }
  return { firstS, firstT, grossS, grossT, taxS, taxT };
}

interface Piece {
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

interface ExactResult {
  terms: CalcTerms;
  months: number;
  mode: PromotionsMode;
  summary: CalcSummary;
}

interface Entry {
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

function makePiece(entry: Entry, bounds: Bounds, actual: AffineRun, comparable: AffineRun | null): Piece {
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
function answers(piece: Piece, amount: Decimal): boolean {
  if (piece.unsafe) return false;
  if (piece.safeLo !== null && compareDecimals(amount, piece.safeLo) < 0) return false;
  return piece.safeHi === null || compareDecimals(amount, piece.safeHi) < 0;
}

/** The yields from a piece (after `answers`), or null where the reference must answer. */
function yieldsOf(piece: Piece, amount: Decimal, inverseOf: InverseOf): CalcYields | null {
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
function summaryOf(piece: Piece, amount: Decimal, inverseOf: InverseOf): CalcSummary | null {
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
function sameMode(a: PromotionsMode, b: PromotionsMode): boolean {
  return withPromotions(a) === withPromotions(b);
}

function sameTerms(a: CalcTerms, b: CalcTerms): boolean {
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
function findPiece(pieces: readonly Piece[], amount: Decimal): Piece | undefined {
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

function insertPiece(pieces: Piece[], piece: Piece): void {
  let i = pieces.length;
  while (i > 0) {
    const prev = pieces[i - 1]!.lo;
    if (prev === null || (piece.lo !== null && prev.lte(piece.lo))) break;
    i--;
  }
  pieces.splice(i, 0, piece);
}

export function createCalculator(options: CalculatorOptions = {}): Calculator {
  const maxPieces = options.maxPieces ?? 50_000;
  const maxExact = options.maxExact ?? 5_000;
  if (!(maxPieces >= 1) || !(maxExact >= 0)) throw new RangeError('maxPieces must be ≥ 1 and maxExact ≥ 0');
  const entries = new Map<string, Entry>();
  // Least-recently-used by a use counter on each piece: a hit is one assignment, and eviction,
  // when the pieces exceed maxPieces, sorts them once and drops the oldest tenth in one go.
  let clock = 0;
  let pieceCount = 0;
  // Exact results by key and amount. Each remembers what it was computed from: a key whose entry
  // is gone (evicted, or never pieceable) may come back with other terms.
  const exact = new LRUCache<string, ExactResult>({ max: Math.max(1, maxExact) });
  let hits = 0;
  let misses = 0;
  let evictions = 0;
  let fallbacks = 0;
  let exactHits = 0;
  let unpieceable = 0;
  let guarded = 0;
  // A list request asks every offer about one amount: its 1/A (a division, the costliest
  // operation here) is worked out once.
  let lastAmount: Decimal | null = null;
  let lastInverse = ONE;
  const inverseOf = (amount: Decimal): Decimal => {
    if (lastAmount === null || (amount !== lastAmount && !amount.eq(lastAmount))) {
      lastAmount = amount;
      lastInverse = ONE.div(amount);
    }
    return lastInverse;
  };

  /** The key's entry if it was built for these terms (an entry for other terms is dropped). */
  function entryFor(key: string, input: CalcInput): Entry | undefined {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    const c = entry.compiled;
    const sameRun = c.months === input.months && sameMode(c.mode, input.promotions);
    if (sameRun && c.terms === input.terms) return entry;
    if (sameRun && sameTerms(c.terms, input.terms)) {
      c.terms = input.terms; // equal content: remember this object, the next check is one ===
      return entry;
    }
    drop(entry);
    return undefined;
  }

  function drop(entry: Entry): void {
    // Its exact results stay: each is checked against the terms it was computed from.
    pieceCount -= entry.pieces.length;
    entries.delete(entry.key);
  }

  function evictOldest(): void {
    const all: Piece[] = [];
    for (const entry of entries.values()) for (const piece of entry.pieces) all.push(piece);
    all.sort((x, y) => x.used - y.used);
    const count = Math.max(pieceCount - maxPieces, Math.ceil(maxPieces / 10));
    const gone = new Set(all.slice(0, count));
    for (const entry of [...entries.values()]) {
      const kept = entry.pieces.filter((piece) => !gone.has(piece));
      if (kept.length === entry.pieces.length) continue;
      entry.pieces = kept;
      // An emptied key goes too, so that keys (client-chosen horizons) cannot pile up.
      if (kept.length === 0) entries.delete(entry.key);
    }
    pieceCount -= gone.size;
    evictions += gone.size;
  }

  function build(entry: Entry, amount: Decimal): Piece | null {
    const c = entry.compiled;
    const bounds = new Bounds();
    const actual = trace(c, amount, c.terms.interestCompounds, bounds);
    if (actual === null) return null;
    let comparable: AffineRun | null = null;
    if (!c.terms.interestCompounds) {
      comparable = trace(c, amount, true, bounds);
      if (comparable === null) return null;
    }
    // The pairs depend only on the regime sequence: a piece with these bounds already exists
    // when the amount sat in a rounding sliver next to it.
    const twin = entry.pieces.find(
      (p) =>
        (p.lo === null ? bounds.lo === null : bounds.lo !== null && p.lo.eq(bounds.lo)) &&
        (p.hi === null ? bounds.hi === null : bounds.hi !== null && p.hi.eq(bounds.hi)),
    );
    if (twin !== undefined) return twin;
    const piece = makePiece(entry, bounds, actual, comparable);
    piece.used = ++clock;
    insertPiece(entry.pieces, piece);
    pieceCount++;
    if (pieceCount > maxPieces) evictOldest();
    return piece;
  }

  function cachedExact(id: string, input: CalcInput): CalcSummary | undefined {
    const cached = exact.get(id);
    if (cached === undefined) return undefined;
    if (
      cached.months !== input.months ||
      !sameMode(cached.mode, input.promotions) ||
      !sameTerms(cached.terms, input.terms)
    ) {
      exact.delete(id);
      return undefined;
    }
    return cached.summary;
  }

  function reference(key: string, input: CalcInput): CalcSummary {
    const id = `${key}\u0000${input.amount.toString()}`;
    const cached = cachedExact(id, input);
    if (cached !== undefined) {
      exactHits++;
      return cached;
    }
    fallbacks++;
    const { steps: _steps, ...summary } = calculate(input);
    if (maxExact > 0) {
      exact.set(id, { terms: input.terms, months: input.months, mode: input.promotions, summary });
    }
    return summary;
  }

  /** The piece that holds the amount (built when missing), or the reference's answer. */
  function checkInput({ amount, months }: CalcInput): void {
    if (!Number.isInteger(months) || months < 1)
      throw new RangeError(`months must be a positive integer, got ${months}`);
    if (!amount.isPositive() || amount.isZero()) throw new RangeError('amount must be > 0');
  }

  function resolve(key: string, input: CalcInput): Piece | CalcSummary {
    const { amount } = input;
    checkInput(input);
    let entry = entryFor(key, input);
    const found = entry === undefined ? undefined : findPiece(entry.pieces, amount);
    if (found !== undefined) {
      hits++;
      found.used = ++clock;
    } else {
      misses++;
      if (exact.size > 0 && exact.has(`${key}\u0000${amount.toString()}`)) return reference(key, input);
      if (entry === undefined) {
        entry = { key, compiled: compile(input.terms, input.months, input.promotions), pieces: [] };
        entries.set(key, entry);
      }
      const built = build(entry, amount);
      if (built === null) {
        // Recompiling is cheap next to the reference: a key without pieces should not hold memory.
        if (entry.pieces.length === 0) entries.delete(key);
        unpieceable++;
        return reference(key, input);
      }
      return answers(built, input.amount) ? built : guard(key, input);
    }
    return answers(found, input.amount) ? found : guard(key, input);
  }

  function pieceAt(key: string, input: CalcInput): PieceShape | null {
    checkInput(input);
    let entry = entryFor(key, input);
    let piece = entry === undefined ? undefined : findPiece(entry.pieces, input.amount);
    if (piece === undefined) {
      if (entry === undefined) {
        entry = { key, compiled: compile(input.terms, input.months, input.promotions), pieces: [] };
        entries.set(key, entry);
      }
      const built = build(entry, input.amount);
      if (built === null) {
        if (entry.pieces.length === 0) entries.delete(key);
        return null;
      }
      piece = built;
    }
    piece.used = ++clock;
    return {
      lo: piece.lo,
      hi: piece.hi,
      loExact: piece.loExact,
      hiExact: piece.hiExact,
      months: piece.entry.compiled.months,
      comparableS: piece.comparableS,
      comparableT: piece.comparableT,
      netS: piece.netS,
      netT: piece.netT,
    };
  }

  function guard(key: string, input: CalcInput): CalcSummary {
    guarded++;
    return reference(key, input);
  }

  function evaluate(key: string, input: CalcInput): CalcSummary {
    const resolved = resolve(key, input);
    if (!('entry' in resolved)) return resolved;
    return summaryOf(resolved, input.amount, inverseOf) ?? guard(key, input);
  }

  function evaluateYields(key: string, input: CalcInput): CalcYields {
    const resolved = resolve(key, input);
    const summary = 'entry' in resolved ? (yieldsOf(resolved, input.amount, inverseOf) ?? guard(key, input)) : resolved;
    const { amount, months, comparableYield, effectiveRate, returnPerYear } = summary;
    return { amount, months, comparableYield, effectiveRate, returnPerYear };
  }

  function constantYields(key: string, input: CalcInput): { comparableYield: Decimal; effectiveRate: Decimal } | null {
    const entry = entryFor(key, input);
    const piece = entry?.pieces.length === 1 ? entry.pieces[0]! : undefined;
    // Every amount a client can ask for (≥ 0.01) falls in it: no upper bound, and a lower one (the first
    // tier's 0, widened by the rounding margin) below the smallest amount.
    const fromZero = (bound: Decimal | null) => bound === null || bound.lt(SMALLEST_AMOUNT);
    if (
      !piece ||
      piece.unsafe ||
      piece.hi !== null ||
      piece.safeHi !== null ||
      !fromZero(piece.lo) ||
      !fromZero(piece.safeLo)
    )
      return null;
    const comparableYield = piece.comparableYield;
    const effectiveRate = piece.effectiveRate ?? (piece.sameRatio ? comparableYield : null);
    return comparableYield && effectiveRate ? { comparableYield, effectiveRate } : null;
  }

  return {
    evaluate,
    evaluateYields,
    constantYields,
    pieceAt,
    stats: () => ({
      keys: entries.size,
      pieces: pieceCount,
      hits,
      misses,
      evictions,
      fallbacks,
      unpieceable,
      guarded,
      exactHits,
      exactEntries: exact.size,
    }),
    clear: () => {
      entries.clear();
      pieceCount = 0;
      exact.clear();
      hits = misses = evictions = fallbacks = exactHits = unpieceable = guarded = 0;
    },
  };
}
