import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { line } from '../__tests__/plan-fixtures.js';
import { ZERO } from '../decimal.js';
import { Incumbent } from './incumbent.js';
import { LeafSolver } from './leaf.js';
import { seedPlans } from './seed.js';
import { drain } from './search.js';
import { problemArb, spaceFor } from './__tests__/problems.js';
import type { PlanProblem, PlanStats } from './types.js';

function seeded(p: PlanProblem) {
  const space = spaceFor(p)!;
  const stats: PlanStats = { candidates: 0, kept: 0, nodes: 0, leaves: 0, refinements: 0, work: 0 };
  const best = new Incumbent(space.limits.placementOnly);
  drain(seedPlans(space.cands, space.limits, new LeafSolver(space.limits, best, stats)));
  return { best, stats };
}

describe('seedPlans', () => {
  it('property: a plan within every limit, at most one part per institution, valued by its offers', () => {
    fc.assert(
      fc.property(problemArb(), (p) => {
        if (spaceFor(p) === null) return;
        const { best } = seeded(p);
        const groups = best.parts.map((x) => p.candidates[x.candidate]!.group);
        expect(new Set(groups).size).toBe(groups.length);
        expect(best.parts.length).toBeLessThanOrEqual(p.maxParts);
        let placed = 0;
        let fixed = 0;
        let value = ZERO;
        for (const part of best.parts) {
          const c = p.candidates[part.candidate]!;
          expect(part.units).toBeGreaterThanOrEqual(c.segments[0]!.lo);
          expect(part.units).toBeLessThanOrEqual(
            Math.min(c.segments[c.segments.length - 1]!.hi, p.groupLimits[c.group]!),
          );
          expect(part.value.toString()).toBe(c.value(part.units).toString());
          placed += part.units;
          if (!c.flexible) fixed += part.units;
          value = value.plus(part.value);
        }
        expect(placed).toBe(best.placed);
        expect(placed).toBeLessThanOrEqual(p.total);
        expect(fixed).toBeLessThanOrEqual(p.maxNonFlexible);
        expect(value.eq(best.value)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('with a flexible reserve, also tries the flexible offers first', () => {
    // two deposits of 30 at most and a flexible account, two parts, 40 % in flexible accounts: the best
    // offers first place 60 (both deposits); the flexible one first places all 100
    const { best, stats } = seeded({
      candidates: [line('a', 0, '3', 1, 30), line('b', 1, '3', 1, 30), line('c', 2, '1', 1, 100, true)],
      groupLimits: [100, 100, 100],
      total: 100,
      maxParts: 2,
      maxNonFlexible: 60,
    });
    expect(best.placed).toBe(100);
    expect(stats.leaves).toBeGreaterThanOrEqual(3);
  });
});
