// A flexible or notice account is asked about at many horizons (a slider), and each horizon is a key of
// its own in the calculator. Where interest is credited every p months (quarterly, yearly), the trace for
// N months is the trace for L = ⌊N/p⌋·p months, then months L + 1 … N one by one with a credit at N: the
// crediting calendar and the runs of alike periods (compile) are the same up to L for both, so is every
// step taken there, and the last, shorter period is never part of a run. So the state after L months is
// kept once per amount range, and the p horizons from L to L + p − 1 go on from it instead of tracing the
// first L months again; the digits are those of a trace from month 1 (fast-calc-prefix.test.ts).
import { LRUCache } from 'lru-cache';
import { creditPeriodOf, withPromotions } from './calc.js';
import type { Decimal } from './decimal.js';
import { Bounds, compile, traceRuns, type Compiled, type TracedRuns } from './fast-calc-trace.js';
import { holdsSafely, intervalOf, type Interval } from './fast-calc-pieces.js';
import type { CalcTerms } from './types.js';

/** The first L months traced from one amount: valid for every amount in [safeLo, safeHi). */
type Prefix = Interval & TracedRuns;

export interface Prefixes {
  /**
   * The traces of `c` at `amount` (see traceRuns), with their bounds: from a kept prefix where one holds the
   * amount. Undefined where horizons share nothing (the caller traces from month 1); null where the amount
   * has no piece.
   */
  trace(c: Compiled, amount: Decimal, bounds: Bounds): TracedRuns | null | undefined;
  clear(): void;
}

export function createPrefixes(maxLists: number): Prefixes {
  // By terms object (terms are interned: one object per content), mode and L; a list per amount range.
  const ids = new WeakMap<CalcTerms, number>();
  let lastId = 0;
  const kept = new LRUCache<string, Prefix[]>({ max: Math.max(1, maxLists) });

  const keyOf = (c: Compiled, months: number) => {
    let id = ids.get(c.terms);
    if (id === undefined) ids.set(c.terms, (id = ++lastId));
    return `${id}|${withPromotions(c.mode) ? 1 : 0}|${months}`;
  };

  function make(c: Compiled, months: number, amount: Decimal): Prefix | null {
    const bounds = new Bounds();
    const runs = traceRuns(compile(c.terms, months, c.mode), amount, bounds);
    return runs && { ...intervalOf(bounds), ...runs };
  }

  return {
    trace(c, amount, bounds) {
      // Monthly: every horizon is its own prefix; at maturity: nothing is credited before the end.
      const period = creditPeriodOf(c.terms.payout);
      const months = period === null || period === 1 ? 0 : Math.floor(c.months / period) * period;
      if (months === 0) return undefined;
      const key = keyOf(c, months);
      let list = kept.get(key);
      let prefix = list?.find((candidate) => holdsSafely(candidate, amount));
      if (prefix === undefined) {
        const fresh = make(c, months, amount);
        // An amount on a bound its own trace rounded: left to a trace from month 1, like a piece's.
        if (fresh === null || !holdsSafely(fresh, amount)) return undefined;
        if (!list) kept.set(key, (list = []));
        list.push(fresh);
        prefix = fresh;
      }
      if (prefix.lo !== null) bounds.raiseLo(prefix.lo, prefix.loExact);
      if (prefix.hi !== null) bounds.lowerHi(prefix.hi, prefix.hiExact);
      if (months === c.months) return { actual: prefix.actual, comparable: prefix.comparable };
      return traceRuns(c, amount, bounds, prefix);
    },
    clear: () => kept.clear(),
  };
}
