import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { line } from '../__tests__/plan-fixtures.js';
import { PartialPlan } from './partial.js';
import { GroupRooms } from './rooms.js';
import { problemArb, spaceFor } from './__tests__/problems.js';
import type { Chosen } from './types.js';

describe('PartialPlan', () => {
  it('property: its sums are those of its parts after any pushes, pops and sets', () => {
    fc.assert(
      fc.property(problemArb(), fc.array(fc.option(fc.nat(), { nil: null }), { maxLength: 30 }), (p, ops) => {
        const space = spaceFor(p, false);
        if (space === null) return;
        const plan = new PartialPlan(p.groupLimits.length);
        const all: Chosen[] = space.cands.flatMap((cand) => cand.segs.map((seg) => ({ cand, seg })));
        for (const op of ops) {
          if (op === null) plan.pop();
          else if (op % 7 === 0) plan.set(all.filter((_, k) => (op >> k) & 1));
          else plan.push(all[op % all.length]!);
          const groupLo = p.groupLimits.map(() => 0);
          let sumLo = 0;
          let sumLoFixed = 0;
          for (const { cand, seg } of plan.parts) {
            groupLo[cand.group]! += seg.lo;
            sumLo += seg.lo;
            if (!cand.flexible) sumLoFixed += seg.lo;
          }
          expect([...plan.groupLo]).toEqual(groupLo);
          expect([plan.sumLo, plan.sumLoFixed]).toEqual([sumLo, sumLoFixed]);
        }
      }),
    );
  });
});

describe('GroupRooms', () => {
  it('each pass starts every room at its limit less what the chosen parts hold at least', () => {
    const space = spaceFor({
      candidates: [line('a', 0, '1', 2, 5), line('b', 1, '1', 3, 5)],
      groupLimits: [10, 7],
      total: 17,
      maxParts: 2,
      maxNonFlexible: 17,
    })!;
    const plan = new PartialPlan(2);
    const rooms = new GroupRooms([10, 7], plan);
    plan.push({ cand: space.cands[0]!, seg: space.cands[0]!.segs[0]! });
    rooms.next();
    expect(rooms.touch(0)).toBe(true);
    expect(rooms.touch(0)).toBe(false);
    rooms.room[0] = rooms.of(0) - 3;
    expect([rooms.of(0), rooms.of(1)]).toEqual([5, 7]);
    rooms.next();
    expect(rooms.of(0)).toBe(8);
  });
});
