import { describe, expect, it } from 'vitest';
import { budgetFor, planMemory } from '../memory.js';
import { activeOffers, capacityOf, checkCapacity, TooLarge } from './capacity.js';
import type { ChangeSet, CurrentState } from './diff.js';

type Row = { id: string; status: 'active' | 'removed' };
const state = (rows: Row[]) => ({ offers: new Map(rows.map((r) => [r.id, r])) }) as unknown as CurrentState;
const changes = (rows: Row[]) => ({ offers: rows }) as unknown as ChangeSet;
const active = (n: number, prefix = 'o') =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, status: 'active' as const }));

describe('the capacity check of a snapshot', () => {
  it('counts the active offers a change set leaves: new ones added, removed ones taken away, updates unchanged', () => {
    const now = state([...active(5), { id: 'gone', status: 'removed' }]);
    const set = changes([
      { id: 'o0', status: 'removed' }, // removed
      { id: 'o1', status: 'active' }, // updated
      { id: 'gone', status: 'active' }, // back
      ...active(3, 'new'),
    ]);
    expect(activeOffers(now, set)).toEqual({ before: 5, after: 8 });
  });

  it('refuses growth past the capacity; lets a shrinking snapshot through', () => {
    const capacity = { maxOffers: 4, describe: (n: number) => `holds 4, not ${n}` };
    expect(() => checkCapacity(state(active(3)), changes(active(5, 'n')), capacity)).toThrow(TooLarge);
    expect(() => checkCapacity(state(active(3)), changes(active(1, 'n')), capacity)).not.toThrow();
    // above the capacity already (ingested under a larger budget): the repair that removes offers passes
    const removing = active(6).map((o) => ({ ...o, status: 'removed' as const }));
    expect(() => checkCapacity(state(active(10)), changes(removing), capacity)).not.toThrow();
    expect(() => checkCapacity(state(active(10)), changes(active(5, 'n')), undefined)).not.toThrow();
  });

  it("names the configuration's limit and the smallest budget, in 64 MB steps, that holds the snapshot", () => {
    const config = { memoryBudgetMb: 896, workers: 2, databaseUrl: undefined, computeThread: true };
    const { maxOffers, describe } = capacityOf(config);
    expect(maxOffers).toBe(planMemory({ budgetMb: 896, workers: 2, embedded: true }).maxOffers);
    const needed = budgetFor(60_698, { workers: 2, embedded: true })!;
    expect(planMemory({ budgetMb: needed, workers: 2, embedded: true }).maxOffers).toBeGreaterThanOrEqual(60_698);
    expect(planMemory({ budgetMb: needed - 64, workers: 2, embedded: true }).maxOffers).toBeLessThan(60_698);
    expect(describe(60_698)).toContain(`need MEMORY_BUDGET_MB=${needed}`);
  });

  it('holds the sample market 20 times over at the default budget, on two workers or one', () => {
    for (const workers of [1, 2])
      expect(planMemory({ budgetMb: 896, workers, embedded: true }).maxOffers).toBeGreaterThan(14_000);
  });

  it('keeps a piece of the calculation per offer of the sample ×20 within 800 MB on one process', () => {
    const x20 = 13_611;
    const held = budgetFor(x20, { workers: 1, embedded: true, held: true })!;
    expect(held).toBeLessThanOrEqual(800);
    expect(planMemory({ budgetMb: held, workers: 1, embedded: true }).heldOffers).toBeGreaterThanOrEqual(x20);
    // the default serves it, without the pieces: fewer offers get them than it holds
    const byDefault = planMemory({ budgetMb: 544, workers: 1, embedded: true });
    expect(byDefault.heldOffers).toBeLessThan(x20);
    expect(byDefault.maxOffers).toBeGreaterThan(x20);
    expect(byDefault.heldOffers).toBeLessThan(byDefault.maxOffers);
  });
});
