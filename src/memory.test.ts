import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMBEDDED_DATABASE_MB,
  FRONT_THREAD_MB,
  OUTSIDE_HEAP_MB,
  OWN_HEAP_MB,
  planMemory,
  PRIMARY_MB,
  YOUNG_GENERATION_MB,
  type MemoryPlan,
} from './memory.js';

const MB = 1024 * 1024;
const cachesMb = (plan: MemoryPlan) => Object.values(plan.caches).reduce((a, b) => a + b, 0) / MB;
/** What the kernel will count for one serving process of the plan, at most. */
const resident = (plan: MemoryPlan) => OUTSIDE_HEAP_MB + YOUNG_GENERATION_MB + plan.caches.bodies / MB + plan.heapMb;

const setting = fc.record({
  budgetMb: fc.integer({ min: 128, max: 64 * 1024 }),
  workers: fc.integer({ min: 1, max: 64 }),
  embedded: fc.boolean(),
  frontThread: fc.boolean(),
});

describe('planMemory', () => {
  it('property: the processes together, at their most, stay within the budget whenever it holds them', () => {
    fc.assert(
      fc.property(setting, ({ budgetMb, workers, embedded, frontThread }) => {
        const plan = planMemory({ budgetMb, workers, embedded, frontThread });
        const fixed =
          (embedded ? EMBEDDED_DATABASE_MB : 0) +
          (workers > 1 ? PRIMARY_MB : 0) +
          (workers === 1 && frontThread ? FRONT_THREAD_MB : 0);
        expect(resident(plan)).toBeLessThanOrEqual(plan.shareMb + 1);
        const smallest = planMemory({ budgetMb: 0, workers: 1, embedded: false }).shareMb;
        if ((budgetMb - fixed) / workers >= smallest)
          expect(fixed + workers * plan.shareMb).toBeLessThanOrEqual(budgetMb);
      }),
    );
  });

  it('property: the heap bound holds the process, the caches that live in the heap and as much garbage', () => {
    fc.assert(
      fc.property(setting, (s) => {
        const plan = planMemory(s);
        const inHeap = (cachesMb(plan) * MB - plan.caches.bodies) / MB;
        expect(plan.heapMb).toBeGreaterThanOrEqual(2 * (OWN_HEAP_MB + inHeap) - 1);
      }),
    );
  });

  it('property: more budget never means smaller caches, more workers never larger ones each', () => {
    fc.assert(
      fc.property(setting, fc.integer({ min: 1, max: 4096 }), ({ budgetMb, workers, embedded }, more) => {
        const base = planMemory({ budgetMb, workers, embedded });
        expect(cachesMb(planMemory({ budgetMb: budgetMb + more, workers, embedded }))).toBeGreaterThanOrEqual(
          cachesMb(base),
        );
        expect(cachesMb(planMemory({ budgetMb, workers: workers + 1, embedded }))).toBeLessThanOrEqual(cachesMb(base));
      }),
    );
  });

  it("gives the sample market's default budget, two workers on the embedded database, caches of tens of MB", () => {
    const plan = planMemory({ budgetMb: 896, workers: 2, embedded: true });
    expect(plan.shareMb).toBe(343);
    expect(Math.round(cachesMb(plan))).toBe(66);
    expect(plan.caches.bodies).toBeGreaterThan(plan.caches.calc); // finished answers first, then calculations
    expect(plan.heapMb).toBe(200);
  });

  it('still leaves a tiny budget its smallest caches, beyond the budget rather than without any', () => {
    const plan = planMemory({ budgetMb: 128, workers: 4, embedded: true });
    expect(cachesMb(plan)).toBeGreaterThanOrEqual(7.9);
  });
});
