import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bruteForcePlan, line } from '../__tests__/plan-fixtures.js';
import { workBudget, type SearchBudget } from './budget.js';
import { candidateFacts } from './candidates.js';
import { optimizePlan } from './search.js';
import { problemArb } from './__tests__/problems.js';
import type { PlanProblem, PlanSolution } from './types.js';

const summary = (s: PlanSolution) => ({
  ...s,
  value: s.value.toString(),
  parts: s.parts.map((x) => ({ ...x, value: x.value.toString() })),
});

describe('optimizePlan: the budget it asks', () => {
  it('property: stopped by any budget, a valid plan and a gap the best plan keeps within', () => {
    fc.assert(
      fc.property(problemArb(), fc.integer({ min: 0, max: 30 }), (p, asks) => {
        let asked = 0;
        let work = -1;
        const budget: SearchBudget = {
          spent(stats) {
            expect(stats.work).toBeGreaterThanOrEqual(work); // it sees the work grow
            work = stats.work;
            return asked++ >= asks;
          },
        };
        const s = optimizePlan(p, budget);
        const best = bruteForcePlan(p);
        expect(s.placed).toBeLessThanOrEqual(best.placed);
        if (s.proven) {
          expect(s.gap).toBe(0);
          expect(s.placed).toBe(best.placed);
          expect(best.value.minus(s.value).toNumber()).toBeLessThanOrEqual(1e-6);
        } else if (s.placed < best.placed) expect(s.gap).toBe(Infinity);
        else expect(best.value.minus(s.value).toNumber()).toBeLessThanOrEqual(s.gap + 1e-9);
        // it asks once per choice explored, and stops at the first "spent"
        if (!s.proven) expect(asked).toBe(asks + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('property: the same problem, the same plan and stats; the default budget is maxWork steps', () => {
    fc.assert(
      fc.property(problemArb(), fc.integer({ min: 1, max: 400 }), (p, maxWork) => {
        const limited: PlanProblem = { ...p, maxWork };
        const first = summary(optimizePlan(limited));
        expect(summary(optimizePlan(limited))).toEqual(first);
        expect(summary(optimizePlan(p, workBudget(maxWork)))).toEqual(first);
      }),
      { numRuns: 200 },
    );
  });

  it('property: given their facts, the segments of the candidates kept only are read, and the same plan', () => {
    fc.assert(
      fc.property(problemArb(), (p) => {
        const read = new Set<number>();
        const given: PlanProblem = {
          ...p,
          candidates: p.candidates.map((c, i) => ({
            ...c,
            facts: candidateFacts(c.segments),
            get segments() {
              read.add(i);
              return c.segments;
            },
          })),
        };
        const s = optimizePlan(given);
        expect(summary(s)).toEqual(summary(optimizePlan(p)));
        expect(read.size).toBeLessThanOrEqual(s.stats.kept);
      }),
      { numRuns: 300 },
    );
  });

  it('a budget spent at once answers the first plans, unproven, with the gap of the root', () => {
    // the first plans place all 100 in the flexible account (100 a year); the best plan puts 30 in a
    // deposit at 3 % (160 a year): the root's bound says at least 60 more may be possible
    const p: PlanProblem = {
      candidates: [line('a', 0, '3', 1, 30), line('b', 1, '3', 1, 30), line('c', 2, '1', 1, 100, true)],
      groupLimits: [100, 100, 100],
      total: 100,
      maxParts: 2,
      maxNonFlexible: 60,
    };
    const s = optimizePlan(p, { spent: () => true });
    expect(s.parts.map((x) => [x.candidate, x.units])).toEqual([[2, 100]]);
    expect(s.proven).toBe(false);
    expect(s.gap).toBeGreaterThanOrEqual(60);
    expect(s.gap).toBeLessThan(Infinity);
    const full = optimizePlan(p);
    expect([full.proven, full.value.toString()]).toEqual([true, '160']);
  });
});
