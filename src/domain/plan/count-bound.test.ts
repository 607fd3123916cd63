import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { marginalTiers } from '../__tests__/plan-fixtures.js';
import { countBound, countScratch } from './count-bound.js';
import { PartialPlan } from './partial.js';
import { GroupRooms } from './rooms.js';
import { completions, pickPartial, problemArb, spaceFor } from './__tests__/problems.js';
import type { SearchSpace } from './space.js';
import type { Item, PlanStats } from './types.js';

/** countBound over a space and partial plan, as the bound calls it; and what the chosen parts hold at least. */
function counted(space: SearchSpace, plan: PartialPlan, i: number, need: number, lambda: number) {
  const stats: PlanStats = { candidates: 0, kept: 0, nodes: 0, leaves: 0, refinements: 0, work: 0 };
  const { cands, tables, limits } = space;
  const rooms = new GroupRooms(limits.groupLimits, plan);
  const ctx = {
    cands,
    bySteepest: tables.bySteepest,
    groupLimits: limits.groupLimits,
    plan,
    rooms,
    stats,
    ...countScratch(),
  };
  const chosenItems: Item[] = plan.parts
    .map(({ cand, seg }) => ({
      slope: seg.slope,
      width: seg.hi - seg.lo,
      group: cand.group,
      flexible: cand.flexible,
      chosen: true,
    }))
    .sort((x, y) => y.slope - x.slope);
  const m = limits.maxParts - plan.parts.length;
  const fixedRoom = limits.maxNonFlexible - plan.sumLoFixed;
  const forced = plan.parts.reduce((s, { seg }) => s + seg.slope * seg.lo + seg.intercept, 0);
  return { bound: countBound(ctx, chosenItems, i, m, need, lambda, fixedRoom), forced, stats };
}

describe('countBound', () => {
  it('property: at any non-flexible multiplier, above every completion placing exactly that much more', () => {
    fc.assert(
      fc.property(
        fc.oneof(problemArb(), problemArb({ wide: true })),
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.integer({ min: 0, max: 80 }),
        (p, at, picks, lambda4) => {
          const space = spaceFor(p);
          if (space === null) return;
          const plan = new PartialPlan(p.groupLimits.length);
          const i = at % (space.cands.length + 1);
          pickPartial(space, plan, i, picks);
          if (plan.parts.length >= p.maxParts) return;
          for (const [placed, value] of completions(space, plan, i)) {
            const need = placed - plan.sumLo;
            if (need <= 0) continue;
            const { bound, forced } = counted(space, plan, i, need, lambda4 / 4);
            expect(value - forced).toBeLessThanOrEqual(bound.value + 1e-9 * (1 + bound.abs));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the part count where the greedy would not: one part left, two offers with a steep first tier', () => {
    // b and c (two institutions) pay 10 a unit on their first 2 units and 1 above: placing 4, a greedy
    // over both takes 2 of each (40), but one part holds all 4 (20 + 2 = 22). Priced at 1 a unit, b alone
    // gains 18 above the price, and 4 + 18 = 22: the bound is the best plan.
    const space = spaceFor({
      candidates: [
        marginalTiers(
          'b',
          0,
          [
            [0, '10'],
            [2, '1'],
          ],
          1,
          10,
        ),
        marginalTiers(
          'c',
          1,
          [
            [0, '10'],
            [2, '1'],
          ],
          1,
          10,
        ),
      ],
      groupLimits: [20, 20],
      total: 20,
      maxParts: 1,
      maxNonFlexible: 20,
    })!;
    const { bound, stats } = counted(space, new PartialPlan(2), 0, 4, 0);
    expect(bound.value).toBeGreaterThanOrEqual(22 - 1e-9);
    expect(bound.value).toBeLessThan(22 + 1e-3);
    expect(stats.work).toBeGreaterThan(0);
  });
});
