// The defaults that size the service: how many processes serve and the memory they share.
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { availableCores, defaultBudgetMb, defaultWorkers } from './defaults.js';
import { planMemory } from './memory.js';

describe('the defaults of WORKERS and MEMORY_BUDGET_MB', () => {
  it('leave the embedded database a core of its own and give PostgreSQL every core', () => {
    expect([1, 2, 3, 4].map((cores) => defaultWorkers(cores, true))).toEqual([1, 1, 2, 3]);
    expect([1, 2, 4].map((cores) => defaultWorkers(cores, false))).toEqual([1, 2, 4]);
  });

  it('budget the same share per serving process, so a default service holds a 20× sample market', () => {
    for (const embedded of [true, false])
      for (const workers of [1, 2, 3]) {
        const plan = planMemory({ budgetMb: defaultBudgetMb(workers, embedded), workers, embedded });
        expect(plan.shareMb).toBe(
          planMemory({ budgetMb: defaultBudgetMb(1, true), workers: 1, embedded: true }).shareMb,
        );
        expect(plan.maxOffers).toBeGreaterThan(13_611); // the sample at scale 20
      }
  });

  it('follow WORKERS and the database when MEMORY_BUDGET_MB is not given, and yield to it when it is', () => {
    const embedded = loadConfig({});
    expect(embedded.workers).toBe(defaultWorkers(availableCores(), true));
    expect(embedded.memoryBudgetMb).toBe(defaultBudgetMb(embedded.workers, true));
    expect(loadConfig({ WORKERS: '3', DATABASE_URL: 'postgresql://x@h/db' }).memoryBudgetMb).toBe(
      defaultBudgetMb(3, false),
    );
    expect(loadConfig({ WORKERS: '3', MEMORY_BUDGET_MB: '700' }).memoryBudgetMb).toBe(700);
  });
});
