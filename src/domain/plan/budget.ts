// When a search stops before it has proven its plan the best: the one thing the search loop asks before
// it explores a choice (search.ts). A deadline or a cancelled request would answer here too.
import type { PlanStats } from './types.js';

/**
 * The work a search may do, in steps of the bounds' inner loops: counted rather than timed, so the same
 * request gets the same plan on every machine. Plans over the sample market take well under a
 * hundredth of it; some requests for many parts with a large flexible share meet wide plateaus of
 * near-equal plans, and a request must end: then the best plan found is answered with the gap its
 * bounds leave (`proven: false`). Two to three seconds on our machines.
 */
export const WORK_BUDGET = 50_000_000;

/** When a search stops early, with the best plan found and the gap its bounds leave: asked per choice. */
export interface SearchBudget {
  spent(stats: PlanStats): boolean;
}

/** The default budget: `maxWork` steps of the bounds (deterministic: the same request, the same plan). */
export const workBudget = (maxWork: number): SearchBudget => ({ spent: (stats) => stats.work >= maxWork });
