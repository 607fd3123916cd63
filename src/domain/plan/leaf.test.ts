import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidate } from '../__tests__/plan-fixtures.js';
import { compareDecimals, Decimal, ZERO } from '../decimal.js';
import { Incumbent } from './incumbent.js';
import { LeafSolver } from './leaf.js';
import { PartialPlan } from './partial.js';
import { pickPartial, problemArb, spaceFor } from './__tests__/problems.js';
import type { SearchSpace } from './space.js';
import { EPSILON, type Chosen, type PlanStats } from './types.js';

const newStats = (): PlanStats => ({ candidates: 0, kept: 0, nodes: 0, leaves: 0, refinements: 0, work: 0 });

/** Every amount of each chosen part within its segment: the most placed, then the most earned (Decimal). */
function bestOf(space: SearchSpace, parts: readonly Chosen[]) {
  const { limits } = space;
  let best: { placed: number; value: Decimal } | null = null;
  const perGroup = limits.groupLimits.map(() => 0);
  const walk = (k: number, placed: number, fixed: number, value: Decimal) => {
    if (k === parts.length) {
      if (best === null || placed > best.placed || (placed === best.placed && compareDecimals(value, best.value) > 0))
        best = { placed, value };
      return;
    }
    const { cand, seg } = parts[k]!;
    for (let u = seg.lo; u <= seg.hi; u++) {
      if (placed + u > limits.total || perGroup[cand.group]! + u > limits.groupLimits[cand.group]!) break;
      if (!cand.flexible && fixed + u > limits.maxNonFlexible) break;
      perGroup[cand.group]! += u;
      const v = limits.placementOnly ? ZERO : cand.src.value(u);
      walk(k + 1, placed + u, cand.flexible ? fixed : fixed + u, value.plus(v));
      perGroup[cand.group]! -= u;
    }
  };
  walk(0, 0, 0, ZERO);
  return best as { placed: number; value: Decimal } | null;
}

describe('LeafSolver.solve', () => {
  it('property: the best amounts of a choice (to EPSILON), a valid plan, segments split where loose', () => {
    fc.assert(
      fc.property(
        fc.oneof(problemArb(), problemArb({ placementOnly: true })),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        (p, picks) => {
          const space = spaceFor(p, false);
          if (space === null) return;
          const plan = new PartialPlan(p.groupLimits.length);
          pickPartial(space, plan, space.cands.length, picks);
          if (plan.parts.length === 0) return;
          const parts = [...plan.parts];
          const want = bestOf(space, parts);
          const stats = newStats();
          const best = new Incumbent(space.limits.placementOnly);
          new LeafSolver(space.limits, best, stats).solve(parts.map(({ cand, seg }) => ({ cand, seg: seg.src })));
          expect(stats.leaves).toBeGreaterThan(0);
          if (want === null || want.placed === 0) {
            expect(best.placed).toBe(0);
            return;
          }
          expect(best.placed).toBe(want.placed);
          expect(want.value.minus(best.value).lte(EPSILON)).toBe(true);
          // the plan: the chosen candidates in candidate order, each within its segment, valued by the offer
          expect(best.parts.map((x) => x.candidate)).toEqual(parts.map((x) => x.cand.index).sort((a, b) => a - b));
          for (const part of best.parts) {
            const { cand, seg } = parts.find((x) => x.cand.index === part.candidate)!;
            expect(part.units).toBeGreaterThanOrEqual(seg.lo);
            expect(part.units).toBeLessThanOrEqual(seg.hi);
            expect(part.value.toString()).toBe(
              space.limits.placementOnly ? '0' : cand.src.value(part.units).toString(),
            );
          }
          expect(best.parts.reduce((s, x) => s.plus(x.value), ZERO).eq(best.value)).toBe(true);
          // a candidate's segments still cover its amounts, in order, without gaps
          for (const { cand } of parts) {
            expect(cand.segs[0]!.lo).toBe(cand.lo);
            expect(cand.segs[cand.segs.length - 1]!.hi).toBe(cand.hi);
            cand.segs.forEach((s, k) => k > 0 && expect(s.lo).toBe(cand.segs[k - 1]!.hi + 1));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('splits a curve at the amount chosen until its line is within EPSILON, and remembers the split', () => {
    // one concave offer, 10k − k²/10 on 1..100, 40 to place: the secant through the middle is far above
    // the value at 40; split there, the piece [40, 40] is exact
    const c = candidate('a', 0, [
      { lo: 1, hi: 100, f: (k) => new Decimal(10 * k).minus(new Decimal(k * k).div(10)), shape: 'concave' },
    ]);
    const space = spaceFor({ candidates: [c], groupLimits: [100], total: 40, maxParts: 1, maxNonFlexible: 40 })!;
    const [cand] = space.cands;
    const stats = newStats();
    const best = new Incumbent(false);
    const leaf = new LeafSolver(space.limits, best, stats);
    const whole = cand!.segs[0]!.src;
    leaf.solve([{ cand: cand!, seg: whole }]);
    expect([best.placed, best.value.toString()]).toEqual([40, '240']);
    // split once, at 40: [1, 39], [40, 40] (exact, solved first) and [41, 100], cut at the amount
    expect(stats.refinements).toBe(1);
    expect(cand!.segs.map((s) => [s.lo, s.hi])).toEqual([
      [1, 39],
      [40, 40],
    ]);
    // asked again (another choice with the whole segment): the pieces come from the memo
    leaf.solve([{ cand: cand!, seg: whole }]);
    expect(stats.refinements).toBe(1);
  });
});
