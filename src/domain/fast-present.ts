// A list's shown rows without their Decimals: the cents a client sees of a piece's values (fast-calc-pieces.ts),
// decided from floats where the floats' error bound cannot reach a half cent, else null (the caller then
// presents the exact summary, present.ts). An export shows every offer of the market and a page fifty:
// the exact summary of a row is a dozen 34-digit operations and two roots, and its strings another dozen
// roundings; the floats are a few multiplications.
//
// Why a float may decide. Each coefficient c of a piece is read as roughNumber(c), within 1e-14 of it
// (relative: rough.ts); the amount A (two decimals) and 1/A are within 2⁻⁵² of theirs. An affine value
// v = s·A + t (or s + t/A) computed in floats is then within ERROR·(|s·A| + |t|) + 2⁻⁵²·|v| of the
// Decimal the exact path computes (whose own digits past the 30th are noise: 1e-24 at most, fast-calc.ts).
// A yield is ratio^(12/n) − 1 with the ratio so computed; where the ratio's two terms do not cancel
// (|s| + |t/A| ≤ 2·|ratio|) its relative error is below 3e-14, and rough.ts's argument, redone with that,
// leaves the yield within 6e-11·max(1, |yield|) percent: ROUGH_ERROR (1e-9) is kept as the bound.
//
// The exact path shows toCents(v): half-up at the kept digits (present.ts), then half-up at the cent.
// Those two roundings differ from one half-up at the cent only for a value less than one kept digit below
// a half cent. So wherever the float lies further than its bound plus one kept digit from every half cent,
// both the exact value and anything within its noise round to the float's cent: that cent is shown. Any
// value closer makes the whole row null. src/domain/fast-present.test.ts holds rows to presentCalc.
import { type Decimal, roughNumber } from './decimal.js';
import type { Piece } from './fast-calc-pieces.js';
import { moneyToCents, toCents, type PresentedCalc } from './present.js';
import { ROUGH_ERROR, roughAffineYield } from './rough.js';

/** How far a coefficient read by roughNumber may be from it, relative, with the float operations after. */
const ERROR = 2e-14;
const ULP = 2 ** -52;
/** Cents as integers stay exact below this. */
const MAX_CENTS = 1e15;

/** The floats of a piece's coefficients, and the cents of its constants: worked out once per piece. */
interface PieceFloats {
  grossS: number;
  grossT: number;
  taxS: number;
  taxT: number;
  nominalS: number;
  nominalT: number;
  comparableS: number;
  comparableT: number;
  netS: number;
  netT: number;
  /** The cents of piece.nominal, of its constant yields (once settled), of its fees at one amount scale. */
  nominal?: number;
  comparable?: ConstantYield;
  effective?: number;
  feesScale?: number;
  fees?: string;
}

/** A constant yield: its cents, its float and that float's bound (for returnPerYear). */
type ConstantYield = [cents: number, float: number, bound: number];

const floatsOf = new WeakMap<Piece, PieceFloats>();

function floats(piece: Piece): PieceFloats {
  let f = floatsOf.get(piece);
  if (f === undefined) {
    f = {
      grossS: roughNumber(piece.grossS),
      grossT: piece.grossT === null ? 0 : roughNumber(piece.grossT),
      taxS: roughNumber(piece.taxS),
      taxT: piece.taxT === null ? 0 : roughNumber(piece.taxT),
      nominalS: roughNumber(piece.nominalS),
      nominalT: roughNumber(piece.nominalT),
      comparableS: piece.roughComparableS,
      comparableT: piece.roughComparableT,
      netS: piece.roughNetS,
      netT: piece.roughNetT,
    };
    floatsOf.set(piece, f);
  }
  return f;
}

/** The amount a list asks about, as the rows need it: made once per amount. */
export interface AmountShown {
  value: Decimal;
  float: number;
  text: string;
  cents: number;
}

export function amountShown(amount: Decimal): AmountShown {
  const text = moneyToCents(amount, amount);
  return { value: amount, float: roughNumber(amount), text, cents: exactCents(text) };
}

/** The cents of a two-decimal string. */
const exactCents = (text: string) => Math.round(Number(text) * 100);

/**
 * The cents of a value whose exact counterpart is within `bound` of `v`, as toCents(exact, scaleExp) shows
 * them; NaN when a half cent (or the kept digits' rounding next to one) lies within reach.
 */
export function centsOf(v: number, bound: number, scaleExp: number): number {
  const size = Math.abs(v) + bound;
  if (!(size < MAX_CENTS / 100)) return NaN;
  // The exact value's exponent is at most this one's: fewer kept digits, a wider margin (present.ts).
  const exponent = size < 1 ? 0 : Math.floor(Math.log10(size)) + 1;
  const kept = Math.max(3, 15 - Math.max(exponent, scaleExp));
  const reach = (bound + 10 ** -kept) * 100 + ULP * 100 * size * 4;
  const x = Math.abs(v) * 100;
  const cents = Math.floor(x + 0.5);
  // x lies between two half cents, cents − 0.5 and cents + 0.5: it must be clear of both.
  if (x - (cents - 0.5) <= reach || cents + 0.5 - x <= reach) return NaN;
  return v < 0 ? -cents : cents;
}

/** Cents as present.ts writes them: no sign on zero. */
export function centsText(cents: number): string {
  const magnitude = Math.abs(cents);
  const euros = Math.floor(magnitude / 100);
  const rest = magnitude - euros * 100;
  const text = `${euros}.${rest < 10 ? '0' : ''}${rest}`;
  return cents < 0 ? `-${text}` : text;
}

/** v = s·A + t in floats, and how far the exact one may be from it. */
function affine(s: number, t: number, a: number): [number, number] {
  const v = s * a + t;
  return [v, ERROR * (Math.abs(s * a) + Math.abs(t)) + ULP * Math.abs(v)];
}

/** The yield in percent of the ratio s + t/A over `months` (rough.ts), and its bound; NaN where none is claimed. */
function yieldOf(s: number, t: number, inverse: number, months: number): [number, number] {
  const y = roughAffineYield(s, t, inverse, months);
  return Number.isNaN(y) ? [NaN, 0] : [y, ROUGH_ERROR * Math.max(1, Math.abs(y))];
}

function constantYield(y: Decimal): ConstantYield {
  const f = roughNumber(y);
  return [exactCents(toCents(y)), f, ERROR * Math.max(1, Math.abs(f))];
}

/**
 * What presentCalc shows of the piece's summary at `amount` (no steps), or null where a float cannot
 * decide a cent. The piece must answer the amount (fast-calc-pieces.ts `answers`) and have its constants
 * settled.
 */
export function presentedOf(piece: Piece, amount: AmountShown): PresentedCalc | null {
  const c = piece.entry.compiled;
  const f = floats(piece);
  const scale = amount.value.e;
  const a = amount.float;
  const inverse = 1 / a;

  const [g, gBound] = affine(f.grossS, f.grossT, a);
  const gross = centsOf(g, gBound, scale);
  let tax = 0;
  if (c.taxed) {
    const [t, tBound] = affine(f.taxS, f.taxT, a);
    tax = centsOf(t, tBound, scale);
  }
  let nominal: number;
  if (piece.nominal !== null) nominal = f.nominal ??= exactCents(toCents(piece.nominal));
  else {
    const [n, nBound] = affine(f.nominalT, f.nominalS, inverse);
    nominal = centsOf(n, nBound, 0);
  }
  if (Number.isNaN(gross + tax + nominal)) return null;

  let comparable: number;
  let yieldFloat: number;
  let yieldBound: number;
  if (piece.comparableYield !== null)
    [comparable, yieldFloat, yieldBound] = f.comparable ??= constantYield(piece.comparableYield);
  else {
    [yieldFloat, yieldBound] = yieldOf(f.comparableS, f.comparableT, inverse, c.months);
    comparable = centsOf(yieldFloat, yieldBound, 0);
  }
  let effective: number;
  if (piece.effectiveRate !== null) effective = f.effective ??= exactCents(toCents(piece.effectiveRate));
  else if (piece.sameRatio) effective = comparable;
  else {
    const [e, eBound] = yieldOf(f.netS, f.netT, inverse, c.months);
    effective = centsOf(e, eBound, 0);
  }
  // returnPerYear = A × comparableYield / 100 (calc.ts)
  const perYear = (a * yieldFloat) / 100;
  const returnPerYear = centsOf(perYear, (a * yieldBound) / 100 + 4 * ULP * Math.abs(perYear), scale);
  if (Number.isNaN(comparable + effective + returnPerYear)) return null;

  // The totals from the shown parts, as presentCalc makes them: sums of cents are exact.
  if (f.feesScale !== scale) [f.feesScale, f.fees] = [scale, moneyToCents(c.fees, amount.value)];
  const fees = f.fees!;
  const net = gross - tax - exactCents(fees);
  return {
    amount: amount.text,
    months: c.months,
    promotionApplied: c.promotionApplied,
    nominalRate: centsText(nominal),
    grossInterest: centsText(gross),
    withholdingTax: centsText(tax),
    fees,
    netInterest: centsText(net),
    endBalance: centsText(net + amount.cents),
    comparableYield: centsText(comparable),
    effectiveRate: centsText(effective),
    returnPerYear: centsText(returnPerYear),
    steps: [],
  };
}
