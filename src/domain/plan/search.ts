// The savings plan's optimizer (docs/calculation.md, "The savings plan"): split an amount over offers
// so that every part is fully covered by its institution's deposit guarantee, place as much as
// possible, and of those plans take the one with the highest total value (returnPerYear, or the net
// return under `sort=effective`).
//
// Over plain inputs, in whole grid units (the catalogue uses 1 €): each candidate offer belongs to a
// group (its institution, whose DGS limit its parts share) and says, for the amounts it accepts, how
// much placing k units earns (`value`) and an upper bound of that as lines over segments of amounts
// (exact where the return is linear or affine in the amount, a bound where it curves). The method is
// branch and bound over which offers, and which segment of each, a plan uses, best bound first. Composed
// here: the candidates and the bound's tables (space.ts), a choice's bound (bound.ts), the amounts of a
// complete choice (leaf.ts), first plans (seed.ts), when to stop (budget.ts). Floating point only bounds
// subtrees (with a margin larger than its error); every plan that is kept was compared in Decimal. Why
// this is optimal, and what it costs: see the docs.
import { ZERO } from '../decimal.js';
import { BoundEngine } from './bound.js';
import { Incumbent } from './incumbent.js';
import { LeafSolver } from './leaf.js';
import { PartialPlan } from './partial.js';
import { PriorityQueue } from './queue.js';
import { seedPlans } from './seed.js';
import { searchSpace } from './space.js';
import { WORK_BUDGET, workBudget, type SearchBudget } from './budget.js';
import type { Bound, Chosen, PlanProblem, PlanSolution, PlanStats } from './types.js';

/**
 * A choice still to explore: its parts (a chain through `parent`, so that a node costs the same
 * whatever its depth), the first candidate a next part may come from, and the bound of every plan it
 * leads to. `done`: no part is to be added, only its amounts to be solved.
 */
interface Node {
  parent: Node | null;
  part: Chosen | null;
  i: number;
  bound: Bound;
  done: boolean;
  /** Creation order: among equal bounds, the newest first (deeper, so complete plans come sooner). */
  seq: number;
}

/**
 * Steps of the bounds between two yields within a node's expansion (which may evaluate thousands of
 * bounds): about a millisecond. Counted, like the budget, so where the search pauses is the same
 * everywhere.
 */
const YIELD_WORK = 20_000;

/** Best bound first: more placed, then more earned. */
const before = (x: Node, y: Node) =>
  x.bound.placed !== y.bound.placed
    ? x.bound.placed > y.bound.placed
    : x.bound.value !== y.bound.value
      ? x.bound.value > y.bound.value
      : x.seq > y.seq;

/**
 * The search in steps: it yields between the choices it explores, so that whoever drives it may pause it
 * there (the service's CPU lane, src/catalog/lane.ts, lets other requests in between) and its answer does
 * not depend on where it was paused. `optimizePlan` runs it through.
 */
export function* planSearch(
  problem: PlanProblem,
  budget: SearchBudget = workBudget(problem.maxWork ?? WORK_BUDGET),
): Generator<void, PlanSolution, void> {
  const stats: PlanStats = { candidates: 0, kept: 0, nodes: 0, leaves: 0, refinements: 0, work: 0 };
  const space = yield* searchSpace(problem, stats);
  if (space === null) return { parts: [], placed: 0, value: ZERO, proven: true, gap: 0, stats };
  const { limits, cands } = space;
  const { groupLimits, total, maxParts, maxNonFlexible } = limits;
  const n = cands.length;
  const plan = new PartialPlan(groupLimits.length);
  const best = new Incumbent(limits.placementOnly);
  const engine = new BoundEngine(space, plan, best, stats);
  const leaf = new LeafSolver(limits, best, stats);
  const queue = new PriorityQueue<Node>(before);
  let seq = 0;
  let yieldAt = YIELD_WORK;

  /** Makes the partial plan that of a node. */
  const enter = (node: Node) => {
    const parts: Chosen[] = [];
    for (let at: Node | null = node; at !== null && at.part !== null; at = at.parent) parts.push(at.part);
    plan.set(parts.reverse());
  };

  /**
   * The children of a node (which passed its bound): the choice with a next part (candidate j ≥ i, one of
   * its segments), and the choice as it is, each kept while its bound can beat the best plan. The most
   * promising is returned, to be explored next; the others wait in the queue.
   */
  function* expand(node: Node): Generator<void, Node | undefined, void> {
    enter(node);
    let dive: Node | undefined;
    const offer = (child: Omit<Node, 'seq'>) => {
      const made = { ...child, seq: seq++ };
      if (dive === undefined) dive = made;
      else if (before(made, dive)) {
        queue.push(dive);
        dive = made;
      } else queue.push(made);
    };
    const { i } = node;
    if (plan.parts.length < maxParts) {
      for (let j = i; j < n; j++) {
        // with the candidates before j left out: once that cannot beat the best plan, no later j can
        if (j > i && best.prunes(engine.evaluate(j))) break;
        const cand = cands[j]!;
        const g = cand.group;
        for (const seg of cand.segs) {
          if (plan.groupLo[g]! + seg.lo > groupLimits[g]! || plan.sumLo + seg.lo > total) continue;
          if (!cand.flexible && plan.sumLoFixed + seg.lo > maxNonFlexible) continue;
          if (stats.work >= yieldAt) {
            yieldAt = stats.work + YIELD_WORK;
            yield;
          }
          const part = { cand, seg };
          plan.push(part);
          const bound = engine.evaluate(j + 1);
          plan.pop();
          if (!best.prunes(bound)) offer({ parent: node, part, i: j + 1, bound, done: false });
        }
      }
    }
    if (plan.parts.length > 0) {
      const bound = engine.evaluate(n);
      if (!best.prunes(bound)) offer({ parent: node.parent, part: node.part, i: n, bound, done: true });
    }
    return dive;
  }

  // Best bound first, each explored choice followed at once down its most promising child ("plunging"):
  // complete plans, which prune the rest, come early, and no choice is explored whose bound is below the
  // best plan found by then.
  yield;
  yield* seedPlans(cands, limits, leaf);
  const root = engine.evaluate(0);
  if (!best.prunes(root)) queue.push({ parent: null, part: null, i: 0, bound: root, done: false, seq: seq++ });
  let left: Node | undefined;
  for (let node = queue.pop(); node !== undefined;) {
    if (best.prunes(node.bound)) {
      node = queue.pop(); // the best plan may have improved since it was made
      continue;
    }
    if (budget.spent(stats)) {
      left = node;
      break;
    }
    yield;
    if (node.done) {
      enter(node);
      leaf.solve(plan.parts.map((c) => ({ cand: c.cand, seg: c.seg.src })));
      node = queue.pop();
    } else node = (yield* expand(node)) ?? queue.pop();
  }
  // Out of budget: what the choices left could still earn above the best plan.
  let gap = 0;
  if (left) {
    for (const node of [left, ...queue.items()]) {
      if (best.prunes(node.bound)) continue;
      gap = Math.max(
        gap,
        node.bound.placed > best.placed ? Infinity : node.bound.value + node.bound.margin - best.valueFloat,
      );
    }
  }
  const proven = left === undefined || gap === 0;
  if (limits.placementOnly) return { parts: best.parts, placed: best.placed, value: ZERO, proven, gap: 0, stats };
  // An exact segment's line and the offer's own number differ at most in the last of 34 digits: the
  // plan reports the offer's numbers.
  const parts = best.parts.map((part) => ({ ...part, value: problem.candidates[part.candidate]!.value(part.units) }));
  return {
    parts,
    placed: best.placed,
    value: parts.reduce((sum, part) => sum.plus(part.value), ZERO),
    proven,
    gap,
    stats,
  };
}

/** The search run through at once, on the caller's stack. */
export function optimizePlan(problem: PlanProblem, budget?: SearchBudget): PlanSolution {
  return drain(planSearch(problem, budget));
}

/** A generator's return value, every step taken now. */
export function drain<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
