// What the calculator offers (fast-calc.ts): its options, its figures, and the closed form it gives the
// savings plan. Apart so that fast-calc.ts holds the evaluator alone.
import type { Decimal } from './decimal.js';
import type { PresentedCalc } from './present.js';
import type { CalcInput, CalcSummary, CalcYields, RankYields } from './types.js';

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
  /** What ranks an evicted piece's offer (fast-calc-shadows.ts), kept for this many pieces. Default 8 × maxPieces. */
  maxShadows?: number;
  /**
   * Ranks with floats where they tell (rough.ts), the roots worked out when read. Default true; false: the
   * all-Decimal path the tests hold it to.
   */
  rough?: boolean;
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
  /** Evicted pieces whose offers can still be ranked without them (fast-calc-shadows.ts). */
  shadows: number;
  /** Offers ranked from those instead of a piece traced again. */
  shadowed: number;
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
   * What presentCalc(evaluate(key, input)) shows (no steps), from floats (fast-present.ts); null where a
   * float cannot decide a cent or no piece answers the amount: the caller then presents the summary.
   */
  present(key: string, input: CalcInput): PresentedCalc | null;
  /** comparableYield and effectiveRate alone, as evaluateYields gives them: what a list ranks every offer by. */
  evaluateRank(key: string, input: CalcInput): RankYields;
  /**
   * The comparable yield and effective rate when they are the same for every amount (the key has one
   * linear piece over all amounts and no fees), else null. Ask after an evaluation of the key.
   */
  constantYields(key: string, input: CalcInput): RankYields | null;
  /**
   * The piece that holds the amount (built when missing), or null when the amount has none: a month
   * whose interest is not affine in the balance (see the file comment). The values at any amount still
   * come from `evaluate`, which knows where a piece cannot be trusted to the last digit.
   */
  pieceAt(key: string, input: CalcInput): PieceShape | null;
  stats(): CalculatorStats;
  /** Pieces traced and reference runs so far: a caller working through many offers yields when it moves. */
  work(): number;
  /**
   * Keep at least this many pieces, whatever maxPieces says: the pieces one pass over a catalogue needs.
   * A list ranks every offer in turn; kept in least-recently-used order, pieces fewer than that pass
   * needs are each evicted just before the next list asks for them again, and every list traces them all.
   */
  holdAtLeast(pieces: number): void;
  clear(): void;
}
