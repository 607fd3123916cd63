import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryCase } from './__tests__/arbitraries.js';
import { Decimal } from './decimal.js';
import { createPrefixes } from './fast-calc-prefix.js';
import { Bounds, compile, trace, type AffineRun } from './fast-calc-trace.js';

const run = (r: AffineRun | null) =>
  r && [r.firstS, r.firstT, r.grossS, r.grossT, r.taxS, r.taxT].map((d) => d.toString()).join(' ');
const bounds = (b: Bounds) => [b.lo?.toString(), b.loExact, b.hi?.toString(), b.hiExact];

describe('traces that go on from the first months another horizon traced', () => {
  it('property: the same digits and bounds as a trace from month 1, whichever amount traced the prefix', () => {
    fc.assert(
      fc.property(
        arbitraryCase().filter((c) => c.terms.payout !== 'MONTHLY'),
        arbitraryCase(),
        fc.integer({ min: 1, max: 11 }),
        fc.integer({ min: 1, max: 100_000_000 }),
        ({ amount, months, promotions, terms }, neighbour, extra, otherCents) => {
          const prefixes = createPrefixes(16);
          // Another amount and a neighbouring horizon first, and other terms (kept apart by theirs): they
          // may leave the prefix this one goes on from.
          const other = new Decimal(otherCents).div(100);
          prefixes.trace(compile(neighbour.terms, months, promotions), amount, new Bounds());
          for (const [a, m] of [
            [other, months + extra],
            [amount, months + extra],
            [other, months],
          ] as const)
            prefixes.trace(compile(terms, m, promotions), a, new Bounds());

          const c = compile(terms, months, promotions);
          const fresh = new Bounds();
          const actual = trace(c, amount, terms.interestCompounds, fresh);
          const comparable = actual && !terms.interestCompounds ? trace(c, amount, true, fresh) : null;
          const resumed = new Bounds();
          const shared = prefixes.trace(c, amount, resumed);
          if (shared === undefined) return; // nothing shared here: the caller traces from month 1
          if (actual === null || (!terms.interestCompounds && comparable === null)) {
            expect(shared).toBeNull();
            return;
          }
          expect(shared).not.toBeNull();
          expect(run(shared!.actual)).toBe(run(actual));
          expect(run(shared!.comparable)).toBe(run(comparable));
          expect(bounds(resumed)).toEqual(bounds(fresh));
        },
      ),
      { numRuns: 500 },
    );
  });
});
