import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { line } from '../__tests__/plan-fixtures.js';
import { BoundEngine } from './bound.js';
import { Incumbent } from './incumbent.js';
import { LeafSolver } from './leaf.js';
import { PartialPlan } from './partial.js';
import { seedPlans } from './seed.js';
import { drain } from './search.js';
import { completions, pickPartial, problemArb, spaceFor } from './__tests__/problems.js';
import { EPSILON_FLOAT, type PlanStats } from './types.js';

const newStats = (): PlanStats => ({ candidates: 0, kept: 0, nodes: 0, leaves: 0, refinements: 0, work: 0 });

describe('BoundEngine.evaluate', () => {
  it('property: never below a completion of the partial plan (as much placed or more; as much, as much earned)', () => {
    fc.assert(
      fc.property(
        fc.oneof(problemArb(), problemArb({ wide: true }), problemArb({ placementOnly: true })),
        fc.boolean(),
        fc.boolean(),
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 4 }),
        (problem, dominance, seeded, at, picks) => {
          const space = spaceFor(problem, dominance);
          if (space === null) return;
          const stats = newStats();
          const plan = new PartialPlan(problem.groupLimits.length);
          const best = new Incumbent(space.limits.placementOnly);
          // Seeding solves a few plans: segments get split (refined) and the best plan is no longer empty.
          if (seeded) drain(seedPlans(space.cands, space.limits, new LeafSolver(space.limits, best, stats)));
          const engine = new BoundEngine(space, plan, best, stats);
          const i = at % (space.cands.length + 1);
          pickPartial(space, plan, i, picks);
          const bound = engine.evaluate(i);
          const byPlaced = completions(space, plan, i);
          for (const [placed, value] of byPlaced) {
            expect(placed).toBeLessThanOrEqual(bound.placed);
            // a bound whose placement cannot reach the best plan's needs no value
            if (bound.value === -Infinity) expect(bound.placed).toBeLessThan(best.placed);
            else if (placed === bound.placed) expect(value).toBeLessThanOrEqual(bound.value + bound.margin);
            // what the search does with it: a pruned choice holds nothing better than the best plan
            if (best.prunes(bound)) {
              const beats =
                placed > best.placed ||
                (placed === best.placed && !space.limits.placementOnly && value > best.valueFloat + EPSILON_FLOAT);
              expect(beats).toBe(false);
            }
          }
        },
      ),
      { numRuns: 600 },
    );
  });

  it('prices the part count in: a wide chosen part and two steep open offers for one part left', () => {
    // a2 (1 a unit, up to 20) is chosen; b (5) and c (4) are open, one part left: the plain greedy would
    // fill b and c (1 + 50 + 36 = 87); no plan holds both, and priced at 4 a unit the new part holds 10 at
    // most: a2 at 10 and b at 10 earn 60, which is the bound.
    const problem = {
      candidates: [
        line('a1', 0, '10', 1, 3),
        line('a2', 0, '1', 1, 20),
        line('b', 1, '5', 1, 10),
        line('c', 2, '4', 1, 10),
      ],
      groupLimits: [20, 20, 20],
      total: 20,
      maxParts: 2,
      maxNonFlexible: 20,
    };
    const space = spaceFor(problem, false)!;
    expect(space.cands.map((c) => c.src.id)).toEqual(['a1', 'a2', 'b', 'c']);
    const plan = new PartialPlan(3);
    const engine = new BoundEngine(space, plan, new Incumbent(false), newStats());
    plan.set([{ cand: space.cands[1]!, seg: space.cands[1]!.segs[0]! }]);
    const bound = engine.evaluate(2);
    expect(bound.placed).toBe(20);
    expect(bound.value).toBeCloseTo(60, 9);
    expect(Math.max(...completions(space, plan, 2).values())).toBeCloseTo(60, 9);
  });

  it("leaving a short first stretch out, takes what the institution's limit had cut in its place", () => {
    // Institution 1 may hold 5: a (3 at most, 111.8 a unit), b (exactly 2, 110.1), c (exactly 1, 108.5).
    // Its merged steps cut at 5 would end with b's, so the bound that leaves b out (b taken short of its
    // minimum) would miss c: a at 3 and c at 1, 443.9, is the best plan (found by the property below).
    const problem = {
      candidates: [
        line('b', 1, '110.1', 2, 2),
        line('c', 1, '108.5', 1, 1),
        line('z', 0, '0', 1, 1, false),
        line('a', 1, '111.8', 1, 3),
      ],
      groupLimits: [1, 5],
      total: 4,
      maxParts: 2,
      maxNonFlexible: 4,
    };
    const space = spaceFor(problem, false)!;
    const engine = new BoundEngine(space, new PartialPlan(2), new Incumbent(false), newStats());
    const root = engine.evaluate(0);
    expect(root.placed).toBe(4);
    expect(root.value + root.margin).toBeGreaterThanOrEqual(443.9);
  });

  it('counts its work and nodes, and leaves the partial plan as it found it', () => {
    const problem = {
      candidates: [line('a', 0, '30', 1, 10), line('b', 1, '20', 1, 10), line('c', 1, '10', 1, 10)],
      groupLimits: [10, 10],
      total: 15,
      maxParts: 2,
      maxNonFlexible: 15,
    };
    const space = spaceFor(problem)!;
    const stats = newStats();
    const plan = new PartialPlan(2);
    const engine = new BoundEngine(space, plan, new Incumbent(false), stats);
    plan.set([{ cand: space.cands[0]!, seg: space.cands[0]!.segs[0]! }]);
    const root = engine.evaluate(1);
    // 10 units at 30 and 5 at 20: the greedy is exact for lines within nested limits
    expect(root.placed).toBe(15);
    expect(root.value).toBeCloseTo(400, 6);
    expect(stats.nodes).toBe(1);
    expect(stats.work).toBeGreaterThanOrEqual(100);
    expect([plan.sumLo, plan.parts.length, ...plan.groupLo]).toEqual([1, 1, 1, 0]);
  });
});
