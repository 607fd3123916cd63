// What placing an amount in one offer earns, as the plan optimizer (plan.ts) sees it: the exact value at
// any amount, and lines that bound it over segments of amounts, read off the fast evaluator's pieces.
//
// On a piece every amount A shares its regimes month by month, so the comparable run ends at
// A + G* = s·A + t (fast-calc.ts), and the value is A·((s + t/A)^(12/n) − 1) (returnPerYear; the net
// twin for `effective`). That is:
// - linear when t = 0 (one yield for every amount of the piece): the line is the value;
// - affine when n = 12 (the power is 1): (s − 1)·A + t, the line is the value again;
// - otherwise a curve: concave for n > 12 (x^(1−p)·(sx + t)^p is a weighted geometric mean of two
//   affine functions, p = 12/n < 1), convex for n < 12 (the perspective of u^p, p > 1). Above a concave
//   curve lies the line through two neighbouring grid points, above a convex one its chord;
// - a ratio ≤ 0 (fees or rates eating everything) is −100 %: the value is −A, a line.
// Where the evaluator has no piece (a month whose interest is not affine in the balance: marginal
// tiers with a capped `replace` promotion) the segment is "opaque": its line is bound from the
// comparable run's interest, which cannot fall as the amount grows when no rate is negative.
// Every bound is tightened on demand: `refine` splits a segment at the amount the optimizer chose.
import { calculate } from './calc.js';
import { Decimal, HUNDRED, ZERO } from './decimal.js';
import type { PieceShape } from './fast-calc.js';
import type { CalcYields } from './types.js';
import type { PlanSegment } from './plan.js';
import { annualGrowth } from './root.js';
import type { CalcInput, CalcTerms, PromotionsMode } from './types.js';

export type PlanObjective = 'return' | 'effective';

/** What the model asks of one offer's calculation (a period and promotions mode fixed). */
export interface OfferCalculation {
  terms: CalcTerms;
  months: number;
  promotions: PromotionsMode;
  pieceAt(amount: Decimal): PieceShape | null;
  yieldsAt(amount: Decimal): CalcYields;
  /** The comparable run's gross interest and its net (after tax and fees): G* and N* of contract §2. */
  comparableAt(amount: Decimal): { gross: Decimal; net: Decimal };
}

export interface OfferModel {
  /** Ascending and contiguous over [lo, hi] grid units. */
  segments: PlanSegment[];
  value(units: number): Decimal;
  refine(segment: PlanSegment, units: number): PlanSegment[];
}

type Kind = 'curve' | 'opaque';

/** How a non-exact segment was made, to make its parts. */
interface Shape {
  kind: Kind;
  /** concave (n > 12) or convex (n < 12) */
  concave: boolean;
}

const ONE = new Decimal(1);
const MINUS_ONE = new Decimal(-1);
/**
 * A stretch without a closed form is cut into segments whose ends differ by at most this factor (its
 * bound, from the interest at the top over the amount at the bottom, is that much above the value at
 * most, where a single wide segment would make the search chase a bound far above any plan)…
 */
const OPAQUE_RATIO = 1.01;
/** …and at most this many pieces per stretch. */
const OPAQUE_PIECES = 64;

/** fast-calc's margin around a piece bound computed with rounding. */
const BOUNDARY_MARGIN = new Decimal('1e-20');

/**
 * G* and N* at an amount (contract §2: the comparable run is the run with the interest assumed to stay
 * in), by the reference loop: asked only for the opaque stretches the evaluator has no closed form for.
 */
export function comparableTotals(input: CalcInput): { gross: Decimal; net: Decimal } {
  const run = calculate({ ...input, terms: { ...input.terms, interestCompounds: true } });
  return { gross: run.grossInterest, net: run.netInterest };
}

/** The objective's yield (a fraction per year) in the list's numbers. */
export function objectiveYield(y: CalcYields, objective: PlanObjective): Decimal {
  return (objective === 'return' ? y.comparableYield : y.effectiveRate).div(HUNDRED);
}

/** The objective's value: returnPerYear, or the amount at its effective rate. */
export function objectiveValue(y: CalcYields, objective: PlanObjective): Decimal {
  return objective === 'return' ? y.returnPerYear : y.amount.times(y.effectiveRate).div(HUNDRED);
}

/**
 * An upper bound of either yield (comparable or effective) at every amount: interest in a month is at
 * most B × r'/1200 with r' the best tier rate plus a bonus (or the better of it and a replacing rate),
 * so the comparable run grows at most as a monthly compounding at r'. Withholding and fees only lower it.
 */
export function yieldCeiling(terms: CalcTerms, promotions: PromotionsMode): Decimal {
  let best = terms.tiers.reduce((m, t) => Decimal.max(m, t.rate), terms.tiers[0]!.rate);
  const p = promotions === 'exclude' ? null : terms.promotion;
  if (p) best = p.kind === 'bonus' ? best.plus(Decimal.max(ZERO, p.rate)) : Decimal.max(best, p.rate);
  if (!best.isPositive() || best.isZero()) return ZERO;
  // a negative withholding (never seen) would add to the balance: bound it as extra rate
  const boost = ONE.plus(Decimal.max(ZERO, terms.withholdingRate.neg()).div(HUNDRED));
  return ONE.plus(best.times(boost).div(1200)).pow(12).minus(ONE);
}

/** Whether the comparable run's interest cannot fall as the amount grows (see `opaqueBound`). */
function interestNeverFalls(c: OfferCalculation): boolean {
  const { terms } = c;
  if (terms.tiers.some((t) => t.rate.isNegative())) return false;
  if (terms.tierMode === 'whole' && terms.tiers.some((t, i) => i > 0 && t.rate.lt(terms.tiers[i - 1]!.rate)))
    return false;
  const p = c.promotions === 'exclude' ? null : terms.promotion;
  if (p && p.rate.isNegative()) return false;
  return !terms.withholdingRate.isNegative() && terms.withholdingRate.lte(HUNDRED);
}

export function offerModel(
  c: OfferCalculation,
  objective: PlanObjective,
  unit: Decimal,
  lo: number,
  hi: number,
): OfferModel {
  const shapes = new WeakMap<PlanSegment, Shape>();
  const amountOf = (k: number) => unit.times(k);
  const value = (k: number) => objectiveValue(c.yieldsAt(amountOf(k)), objective);
  const monotone = interestNeverFalls(c);
  const ceiling = yieldCeiling(c.terms, c.promotions).times(unit);

  const point = (k: number): PlanSegment => ({ lo: k, hi: k, slope: ZERO, intercept: value(k), exact: true });
  const lineThrough = (k0: number, k1: number) => {
    const slope = value(k1)
      .minus(value(k0))
      .div(k1 - k0);
    return { slope, intercept: value(k0).minus(slope.times(k0)) };
  };

  function curve(a: number, b: number, concave: boolean): PlanSegment {
    if (a === b) return point(a);
    // concave: the line through two neighbouring grid points lies above every grid point; convex: the chord
    const m = Math.floor((a + b) / 2);
    const s: PlanSegment = { lo: a, hi: b, ...(concave ? lineThrough(m, m + 1) : lineThrough(a, b)), exact: false };
    shapes.set(s, { kind: 'curve', concave });
    return s;
  }

  /**
   * The comparable interest G (or its net N) cannot fall as the amount grows, so on [A_a, A_b] the
   * ratio (A + G(A))/A ≤ (A + G(A_b))/A, at most its value at A_a (G(A_b) ≥ 0) or at A_b (G(A_b) < 0),
   * and the yield is at most that ratio annualised. Without that monotony: the ceiling of every yield.
   */
  function opaque(a: number, b: number): PlanSegment {
    if (a === b) return point(a);
    let slope = ceiling;
    if (monotone) {
      const top = amountOf(b);
      const comparable = c.comparableAt(top);
      const g = objective === 'return' ? comparable.gross : comparable.net;
      const at = g.isNegative() ? top : amountOf(a);
      const ratio = at.plus(g).div(at);
      const y = !ratio.isPositive() || ratio.isZero() ? MINUS_ONE : annualGrowth(ratio, c.months).minus(ONE);
      slope = y.times(unit);
    }
    const s: PlanSegment = { lo: a, hi: b, slope, intercept: ZERO, exact: false };
    shapes.set(s, { kind: 'opaque', concave: false });
    return s;
  }

  /** The segments of an opaque stretch: ends at most OPAQUE_RATIO apart (OPAQUE_PIECES at most). */
  function opaqueSegments(a: number, b: number): PlanSegment[] {
    const pieces = Math.min(
      OPAQUE_PIECES,
      Math.max(1, Math.ceil(Math.log(b / Math.max(1, a)) / Math.log(OPAQUE_RATIO))),
    );
    const step = (b / Math.max(1, a)) ** (1 / pieces);
    const out: PlanSegment[] = [];
    for (let x = a, p = 1; x <= b; p++) {
      const y = p >= pieces ? b : Math.min(b, Math.max(x, Math.floor(Math.max(1, a) * step ** p)));
      out.push(opaque(x, y));
      x = y + 1;
    }
    return out;
  }

  /** The segments of one piece over [a, b] (ratio s + t/A). */
  function pieceSegments(shape: PieceShape, a: number, b: number, out: PlanSegment[]): void {
    const s = objective === 'return' ? shape.comparableS : shape.netS;
    const t = objective === 'return' ? shape.comparableT : shape.netT;
    const positive = (k: number) => {
      const r = s.plus(t.div(amountOf(k)));
      return r.isPositive() && !r.isZero();
    };
    // s + t/A is monotone in A: a ratio ≤ 0 (worth −100 %, the value −A) is a prefix or a suffix.
    let first = a;
    if (!positive(a) || !positive(b)) {
      if (!positive(a) && !positive(b)) {
        out.push({ lo: a, hi: b, slope: unit.neg(), intercept: ZERO, exact: true });
        return;
      }
      // binary search the switch
      let lo = a;
      let hi = b;
      const startsPositive = positive(a);
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (positive(mid) === startsPositive) lo = mid;
        else hi = mid;
      }
      if (startsPositive) {
        pieceSegments(shape, a, lo, out);
        out.push({ lo: hi, hi: b, slope: unit.neg(), intercept: ZERO, exact: true });
        return;
      }
      out.push({ lo: a, hi: lo, slope: unit.neg(), intercept: ZERO, exact: true });
      first = hi;
    }
    if (t.isZero()) {
      // one yield for every amount of the piece: the list's own number
      out.push({
        lo: first,
        hi: b,
        slope: objectiveYield(c.yieldsAt(amountOf(first)), objective).times(unit),
        intercept: ZERO,
        exact: true,
      });
    } else if (shape.months === 12) {
      out.push({ lo: first, hi: b, slope: s.minus(ONE).times(unit), intercept: t, exact: true });
    } else {
      out.push(curve(first, b, shape.months > 12));
    }
  }

  /** Whether grid point k lies within the rounding margin of a bound computed with rounding. */
  const nearBound = (k: number, bound: Decimal | null, exact: boolean) =>
    bound !== null &&
    !exact &&
    amountOf(k).minus(bound).abs().lte(bound.abs().times(BOUNDARY_MARGIN).plus(BOUNDARY_MARGIN));

  /** The next tier bound or promotion cap above an amount: where an opaque stretch is cut. */
  function nextLevel(amount: Decimal): Decimal | null {
    const levels = c.terms.tiers.flatMap((t) => (t.to === null ? [t.from] : [t.from, t.to]));
    const cap = c.promotions === 'exclude' ? null : (c.terms.promotion?.maxBalance ?? null);
    if (cap !== null) levels.push(cap);
    let best: Decimal | null = null;
    for (const level of levels) if (level.gt(amount) && (best === null || level.lt(best))) best = level;
    return best;
  }

  const segments: PlanSegment[] = [];
  for (let k = lo; k <= hi;) {
    const amount = amountOf(k);
    const shape = c.pieceAt(amount);
    if (shape === null) {
      const level = nextLevel(amount);
      // any stretch would do (the bound holds on every one); the structure's next level keeps it short
      const end = level === null ? hi : Math.max(k, Math.min(hi, level.div(unit).ceil().toNumber() - 1));
      segments.push(...opaqueSegments(k, end));
      k = end + 1;
      continue;
    }
    // the piece's grid points: amounts in [lo, hi)
    let end = hi;
    if (shape.hi !== null) {
      const top = shape.hi;
      end = top.div(unit).ceil().toNumber() - 1;
      while (amountOf(end).gte(top)) end--;
      while (amountOf(end + 1).lt(top)) end++;
      end = Math.max(k, Math.min(hi, end));
    }
    let start = k;
    // A grid point within the rounding margin of a bound may belong to either side: on its own, exact.
    if (nearBound(start, shape.lo, shape.loExact)) segments.push(point(start++));
    let stop = end;
    const tail = stop >= start && nearBound(stop, shape.hi, shape.hiExact);
    if (tail) stop--;
    if (start <= stop) pieceSegments(shape, start, stop, segments);
    if (tail) segments.push(point(end));
    k = end + 1;
  }

  function refine(segment: PlanSegment, k: number): PlanSegment[] {
    const shape = shapes.get(segment);
    if (!shape) throw new Error('refine: not a segment of this model, or already exact');
    const make = (a: number, b: number) => (shape.kind === 'curve' ? curve(a, b, shape.concave) : opaque(a, b));
    const out: PlanSegment[] = [];
    if (segment.lo <= k - 1) out.push(make(segment.lo, k - 1));
    out.push(point(k));
    if (k + 1 <= segment.hi) out.push(make(k + 1, segment.hi));
    return out;
  }

  return { segments, value, refine };
}
