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
import { roughNumber, type Decimal } from './decimal.js';
import { calculate } from './calc.js';
import { createPrefixes } from './fast-calc-prefix.js';
import { Shadows } from './fast-calc-shadows.js';
import { amountShown, type AmountShown, presentedOf } from './fast-present.js';
import type { PresentedCalc } from './present.js';
import { LazyRankYields } from './rough.js';
import { Bounds, compile, traceRuns } from './fast-calc-trace.js';
import {
  answers,
  findPiece,
  insertPiece,
  makePiece,
  ONE,
  sameMode,
  SMALLEST_AMOUNT,
  sameTerms,
  summaryOf,
  rankYieldsOf,
  roughRankOf,
  settleConstants,
  yieldsOf,
  type Entry,
  type ExactResult,
  type Piece,
} from './fast-calc-pieces.js';
import type { CalcInput, CalcSummary, CalcYields, RankYields } from './types.js';
import type { Calculator, CalculatorOptions, PieceShape } from './fast-calc-api.js';

export type { Calculator, CalculatorOptions, CalculatorStats, PieceShape } from './fast-calc-api.js';

export function createCalculator(options: CalculatorOptions = {}): Calculator {
  const budgetPieces = options.maxPieces ?? 50_000;
  const maxExact = options.maxExact ?? 5_000;
  const roughly = options.rough ?? true;
  if (!(budgetPieces >= 1) || !(maxExact >= 0)) throw new RangeError('maxPieces must be ≥ 1 and maxExact ≥ 0');
  let maxPieces = budgetPieces;
  const entries = new Map<string, Entry>();
  // The first months a horizon shares with its neighbours (fast-calc-prefix.ts): a prefix is about the
  // size of a piece, and serves a few horizons' pieces.
  const prefixes = createPrefixes(Math.ceil(budgetPieces / 8));
  const shadows = new Shadows(options.maxShadows ?? 8 * budgetPieces);
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
  // Traces run (by evaluate, evaluateYields and pieceAt alike): with the reference runs, the calculator's work.
  let traces = 0;
  let exactHits = 0;
  let shadowed = 0;
  let unpieceable = 0;
  let guarded = 0;
  // A list request asks every offer about one amount: its 1/A (a division, the costliest operation here)
  // is worked out once, in decimals and as a float (for the rough yields, rough.ts: toNumber rounds the
  // decimal once), each when first needed.
  let lastAmount: Decimal | null = null;
  let lastInverse: Decimal | undefined;
  let lastRoughInverse: number | undefined;
  let lastRoughAmount: number | undefined;
  const asked = (amount: Decimal): void => {
    if (lastAmount === null || (amount !== lastAmount && !amount.eq(lastAmount))) {
      lastAmount = amount;
      lastInverse = lastRoughInverse = lastRoughAmount = undefined;
    }
  };
  const inverseOf = (amount: Decimal): Decimal => {
    asked(amount);
    return (lastInverse ??= ONE.div(amount));
  };
  const roughAmountOf = (amount: Decimal): number => {
    asked(amount);
    return (lastRoughAmount ??= amount.toNumber());
  };
  const roughInverseOf = (amount: Decimal): number => {
    const a = roughAmountOf(amount); // the memo of this amount, made anew when the amount is
    return (lastRoughInverse ??= 1 / a);
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
    // The oldest uses found by sorting the numbers alone (a typed array's native sort), not the pieces by a
    // comparator: a horizon moving with every list keeps the pieces churning, and sorting the objects was
    // ≈4 % of such a list's CPU. Uses are distinct (one tick of the clock each), so the count-th oldest
    // use says which pieces go.
    const uses = new Float64Array(pieceCount);
    let n = 0;
    for (const entry of entries.values()) for (const piece of entry.pieces) uses[n++] = piece.used;
    const count = Math.min(n, Math.max(pieceCount - maxPieces, Math.ceil(maxPieces / 10)));
    if (count === 0) return;
    const last = uses.subarray(0, n).sort()[count - 1]!;
    let gone = 0;
    for (const entry of entries.values()) {
      if (!entry.pieces.some((piece) => piece.used <= last)) continue;
      for (const piece of entry.pieces) if (piece.used <= last) shadows.keep(entry.key, piece);
      const kept = entry.pieces.filter((piece) => piece.used > last);
      gone += entry.pieces.length - kept.length;
      entry.pieces = kept;
      // An emptied key goes too, so that keys (client-chosen horizons) cannot pile up.
      if (kept.length === 0) entries.delete(entry.key);
    }
    pieceCount -= gone;
    evictions += gone;
  }

  function build(entry: Entry, amount: Decimal): Piece | null {
    traces++;
    const c = entry.compiled;
    const bounds = new Bounds();
    // Untouched when it answers undefined: the trace then starts at month 1.
    const shared = prefixes.trace(c, amount, bounds);
    const runs = shared === undefined ? traceRuns(c, amount, bounds) : shared;
    if (runs === null) return null;
    const { actual, comparable } = runs;
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
    checkInput(input);
    const entry = entryFor(key, input);
    return resolveAt(key, input, entry, entry === undefined ? undefined : findPiece(entry.pieces, input.amount));
  }

  /** resolve, once the key's entry and the amount's piece in it have been looked up. */
  function resolveAt(
    key: string,
    input: CalcInput,
    known: Entry | undefined,
    found: Piece | undefined,
  ): Piece | CalcSummary {
    const { amount } = input;
    let entry = known;
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
    // Built at an amount its bounds leave out: one in a rounding sliver beside a piece, or one that stays
    // on a tier bound every month, whose tier rounding decides (the reference has it on the bound).
    const { amount } = input;
    if ((piece.lo !== null && amount.lt(piece.lo)) || (piece.hi !== null && amount.gte(piece.hi))) return null;
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

  // A list shows its rows at one amount.
  let shownAmount: AmountShown | null = null;
  function present(key: string, input: CalcInput): PresentedCalc | null {
    const resolved = resolve(key, input);
    if (!('entry' in resolved)) return null;
    if (shownAmount?.value !== input.amount) shownAmount = amountShown(input.amount);
    return presentedOf(resolved, shownAmount);
  }

  function evaluateYields(key: string, input: CalcInput): CalcYields {
    const resolved = resolve(key, input);
    const summary = 'entry' in resolved ? (yieldsOf(resolved, input.amount, inverseOf) ?? guard(key, input)) : resolved;
    const { amount, months, comparableYield, effectiveRate, returnPerYear } = summary;
    return { amount, months, comparableYield, effectiveRate, returnPerYear };
  }

  /**
   * The exact rank yields at a resolved piece (or the reference's answer); with the piece's floats of them
   * where given (a worked-out constant's), which a list's comparisons would otherwise take from the Decimals
   * each time (sort.ts).
   */
  function exactRank(
    key: string,
    input: CalcInput,
    resolved: Piece | CalcSummary,
    floats: { comparable: number; effective: number } | null = null,
  ): RankYields {
    const exact = 'entry' in resolved ? rankYieldsOf(resolved, input.amount, inverseOf) : resolved;
    const { comparableYield, effectiveRate } = exact ?? guard(key, input);
    return exact !== null && floats !== null
      ? { comparableYield, effectiveRate, roughComparable: floats.comparable, roughEffective: floats.effective }
      : { comparableYield, effectiveRate };
  }

  /**
   * What a float-ranked offer works out when read. It resolves the piece again rather than keep it: the
   * rank may be kept (calc-service's recent amounts) long after the piece is evicted, and would hold it.
   * A piece built again has the same digits.
   */
  const laterRank = (key: string, input: CalcInput) => () => exactRank(key, input, resolve(key, input));

  function evaluateRank(key: string, input: CalcInput): RankYields {
    checkInput(input);
    const entry = entryFor(key, input);
    const found = entry === undefined ? undefined : findPiece(entry.pieces, input.amount);
    if (found === undefined && roughly && shadows.size > 0) {
      // An evicted piece's floats rank the offer as the piece would (fast-calc-shadows.ts).
      const rough = shadows.rank(key, input, roughAmountOf(input.amount), roughInverseOf(input.amount));
      if (rough !== null) {
        shadowed++;
        return new LazyRankYields(rough.comparable, rough.effective, laterRank(key, input));
      }
    }
    const resolved = resolveAt(key, input, entry, found);
    if (!('entry' in resolved)) return exactRank(key, input, resolved);
    // A piece's constant yields, asked for a second amount, are worked out: from then on they cost a lookup
    // (and calc-service keeps them for every amount), where a float would cost an object per list. A piece
    // of a horizon asked once (a client moving the horizon) is ranked by its floats alone.
    if (resolved.pending && resolved.rankedAt !== undefined && !resolved.rankedAt.eq(input.amount))
      settleConstants(resolved);
    resolved.rankedAt ??= input.amount;
    const constant =
      !resolved.pending && resolved.comparableYield !== null && (resolved.effectiveRate !== null || resolved.sameRatio);
    // Floats order the offer until a close call or a shown value needs the roots (src/domain/rough.ts); a
    // constant's roots are worked out already.
    const rough = roughly ? roughRankOf(resolved, input.amount, inverseOf, roughInverseOf(input.amount)) : null;
    if (rough === null || constant) return exactRank(key, input, resolved, rough);
    return new LazyRankYields(rough.comparable, rough.effective, laterRank(key, input));
  }

  function constantYields(key: string, input: CalcInput): RankYields | null {
    const entry = entryFor(key, input);
    // Only once worked out: a constant not yet known to be safe is not kept for every amount.
    const piece = entry?.pieces.length === 1 && !entry.pieces[0]!.pending ? entry.pieces[0]! : undefined;
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
    if (!comparableYield || !effectiveRate) return null;
    // With their floats (within 1e-14, far inside ROUGH_ERROR), which a list would otherwise take from the
    // Decimals at each of its comparisons (sort.ts): a constant is compared in every list at its period.
    // Not on the all-Decimal path (`rough: false`), which the float path is held to.
    return roughly
      ? {
          comparableYield,
          effectiveRate,
          roughComparable: roughNumber(comparableYield),
          roughEffective: roughNumber(effectiveRate),
        }
      : { comparableYield, effectiveRate };
  }

  return {
    evaluate,
    evaluateYields,
    present,
    evaluateRank,
    constantYields,
    pieceAt,
    work: () => traces + fallbacks,
    holdAtLeast: (pieces) => {
      maxPieces = Math.max(budgetPieces, Math.ceil(pieces));
    },
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
      shadows: shadows.size,
      shadowed,
    }),
    clear: () => {
      entries.clear();
      prefixes.clear();
      shadows.clear();
      pieceCount = 0;
      exact.clear();
      hits = misses = evictions = fallbacks = exactHits = unpieceable = guarded = shadowed = 0;
    },
  };
}
