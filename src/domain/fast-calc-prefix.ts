// A flexible or notice account is asked about at many horizons (a slider), and each horizon is a key of
// its own in the calculator. Where interest is credited every p months (quarterly, yearly), the trace for
// N months is the trace for L = ⌊N/p⌋·p months, then months L + 1 … N one by one with a credit at N: the
// crediting calendar and the runs of alike periods (compile) are the same up to L for both, so is every
// step taken there, and the last, shorter period is never part of a run. So the state after L months is
// kept once per amount range, and the p horizons from L to L + p − 1 go on from it instead of tracing the
// first L months again; the digits are those of a trace from month 1 (fast-calc-prefix.test.ts).
import { LRUCache } from 'lru-cache';
import { withPromotions } from './calc.js';
import type { Decimal } from './decimal.js';
import { Bounds, compile, trace, type Compiled, type TraceState } from './fast-calc-trace.js';
import { intervalOf } from './fast-calc-pieces.js';
import type { CalcTerms, Payout } from './types.js';

/** Months between two credits, where horizons can share a prefix (0: they cannot, or it would not pay). */
function creditPeriod(payout: Payout): number {
  switch (payout) {
    case 'QUARTERLY':
      return 3;
    case 'ANNUALLY':
    case 'OTHER':
      return 12;
    default:
      // monthly: every horizon is its own prefix; at maturity: nothing is credited before the end
      return 0;
  }
}

/** The first L months traced from one amount: valid for every amount in [safeLo, safeHi). */
interface Prefix {
  lo: Decimal | null;
  loExact: boolean;
  hi: Decimal | null;
  hiExact: boolean;
  safeLo: Decimal | null;
  safeHi: Decimal | null;
  actual: TraceState;
  /** The run with interest compounded, where the offer's own does not compound (contract §2). */
  comparable: TraceState | null;
}

export interface PrefixStats {
  /** Traces that went on from a kept prefix. */
  reused: number;
  /** Prefixes traced. */
  made: number;
}

export interface Prefixes {
  /**
   * The traces of `c` at `amount` (the offer's run, and the compounded one when its own does not
   * compound), with their bounds: from a kept prefix where one holds the amount. Undefined where horizons
   * share nothing (the caller traces from month 1); null where the amount has no piece.
   */
  trace(
    c: Compiled,
    amount: Decimal,
    bounds: Bounds,
  ): { actual: TraceState; comparable: TraceState | null } | null | undefined;
  stats(): PrefixStats & { lists: number };
  clear(): void;
}

const inside = (p: Prefix, amount: Decimal) =>
  (p.safeLo === null || amount.gte(p.safeLo)) && (p.safeHi === null || amount.lt(p.safeHi));

export function createPrefixes(maxLists: number): Prefixes {
  // By terms object (terms are interned: one object per content), mode and L; a list per amount range.
  const ids = new WeakMap<CalcTerms, number>();
  let lastId = 0;
  const kept = new LRUCache<string, Prefix[]>({ max: Math.max(1, maxLists) });
  let reused = 0;
  let made = 0;

  const keyOf = (c: Compiled, months: number) => {
    let id = ids.get(c.terms);
    if (id === undefined) ids.set(c.terms, (id = ++lastId));
    return `${id}|${withPromotions(c.mode) ? 1 : 0}|${months}`;
  };

  function make(c: Compiled, months: number, amount: Decimal): Prefix | null {
    const short = compile(c.terms, months, c.mode);
    const bounds = new Bounds();
    const actual = trace(short, amount, c.terms.interestCompounds, bounds);
    if (actual === null) return null;
    const comparable = c.terms.interestCompounds ? null : trace(short, amount, true, bounds);
    if (!c.terms.interestCompounds && comparable === null) return null;
    made++;
    return { ...intervalOf(bounds), actual, comparable };
  }

  return {
    trace(c, amount, bounds) {
      const p = creditPeriod(c.terms.payout);
      const months = p === 0 ? 0 : Math.floor(c.months / p) * p;
      if (months === 0) return undefined;
      const key = keyOf(c, months);
      let list = kept.get(key);
      let prefix = list?.find((candidate) => inside(candidate, amount));
      if (prefix === undefined) {
        const fresh = make(c, months, amount);
        // An amount on a bound its own trace rounded: left to a trace from month 1, like a piece's.
        if (fresh === null || !inside(fresh, amount)) return undefined;
        if (!list) kept.set(key, (list = []));
        list.push(fresh);
        prefix = fresh;
      } else reused++;
      if (prefix.lo !== null) bounds.raiseLo(prefix.lo, prefix.loExact);
      if (prefix.hi !== null) bounds.lowerHi(prefix.hi, prefix.hiExact);
      if (months === c.months) return { actual: prefix.actual, comparable: prefix.comparable };
      const actual = trace(c, amount, c.terms.interestCompounds, bounds, false, prefix.actual);
      if (actual === null) return null;
      if (prefix.comparable === null) return { actual, comparable: null };
      const comparable = trace(c, amount, true, bounds, false, prefix.comparable);
      return comparable === null ? null : { actual, comparable };
    },
    stats: () => ({ reused, made, lists: kept.size }),
    clear: () => {
      kept.clear();
      reused = made = 0;
    },
  };
}
