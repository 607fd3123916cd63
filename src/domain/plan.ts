// The savings plan's optimizer, its front door: what callers (src/catalog/plan.ts, the offer models of
// plan-model.ts) import. The optimizer lives in ./plan/: the search (search.ts) and the parts it
// composes, each tested on its own; docs/architecture.md has the map.
export { EPSILON } from './plan/types.js';
export type {
  CandidateFacts,
  PlanCandidate,
  PlanPart,
  PlanProblem,
  PlanSegment,
  PlanSolution,
  PlanStats,
} from './plan/types.js';
export { WORK_BUDGET, workBudget, type SearchBudget } from './plan/budget.js';
export { drain, optimizePlan, planSearch } from './plan/search.js';
export { candidateFacts } from './plan/candidates.js';
