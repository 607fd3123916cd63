// What a search works over, made once per request: the limits as it reads them, the candidates it keeps
// in the order it takes them (with their segments and envelopes), and the bound's tables.
import { prepare, removeDominated, searchOrder, segmentsOf } from './candidates.js';
import { openTables, type OpenTables } from './envelope.js';
import type { Cand, GroupOrder, PlanLimits, PlanProblem, PlanStats } from './types.js';

export interface SearchSpace {
  limits: PlanLimits;
  /** In search order. */
  cands: Cand[];
  order: GroupOrder;
  tables: OpenTables;
  /** How many candidates the problem has (the bound marks them by index). */
  candidates: number;
}

/** The problem's limits, the amount and the non-flexible room at least 0, the latter within the amount. */
export function limitsOf(problem: PlanProblem): PlanLimits {
  const total = Math.max(0, problem.total);
  return {
    groupLimits: problem.groupLimits,
    total,
    maxParts: problem.maxParts,
    maxNonFlexible: Math.max(0, Math.min(problem.maxNonFlexible, total)),
    placementOnly: problem.placementOnly === true,
  };
}

/**
 * The space of a problem with something to search (an amount, a part, a candidate), and the first
 * counts of its stats; null when there is nothing to search. It yields after each candidate it keeps is
 * given its segments: a caller that gave `facts` may make the segments then (an offer's model), so only
 * the candidates kept cost that, between pauses.
 */
export function* searchSpace(problem: PlanProblem, stats: PlanStats): Generator<void, SearchSpace | null, void> {
  const limits = limitsOf(problem);
  const all = prepare(problem.candidates, limits);
  stats.candidates = all.length;
  if (limits.total === 0 || limits.maxParts < 1 || all.length === 0) return null;
  const cands = removeDominated(all, limits.maxParts);
  stats.kept = cands.length;
  for (const c of cands) {
    segmentsOf(c, limits.placementOnly);
    yield;
  }
  return ordered(cands, limits, problem.candidates.length);
}

/** The space over these candidates (prepared, in any order): they are sorted and given their envelopes. */
export function spaceOf(cands: Cand[], limits: PlanLimits, candidates: number): SearchSpace {
  for (const c of cands) segmentsOf(c, limits.placementOnly);
  return ordered(cands, limits, candidates);
}

/** The space over candidates with their segments: in search order, with the bound's tables. */
function ordered(cands: Cand[], limits: PlanLimits, candidates: number): SearchSpace {
  const order = searchOrder(cands);
  return { limits, cands, order, tables: openTables(cands, order, limits), candidates };
}
