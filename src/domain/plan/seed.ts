// First plans, so that the search has something to beat from its root: a few quick greedy choices of
// parts, their amounts solved exactly (leaf.ts).
import type { LeafPart, LeafSolver } from './leaf.js';
import type { Cand, PlanLimits, Seg } from './types.js';

/**
 * The best candidate of each institution in turn from each list (at most its number of parts from
 * each), in the segment that earns most on what is left, until the amount or the parts run out.
 */
function seed(lists: readonly (readonly [readonly Cand[], number])[], limits: PlanLimits, leaf: LeafSolver): void {
  const { total, maxNonFlexible, maxParts } = limits;
  const parts: LeafPart[] = [];
  const used = new Set<number>();
  let left = total;
  let fixedLeft = maxNonFlexible;
  for (const [list, most] of lists) {
    let taken = 0;
    for (let j = 0; j < list.length && taken < most && left > 0 && parts.length < maxParts; j++) {
      const cand = list[j]!;
      if (used.has(cand.group)) continue;
      const room = cand.flexible ? left : Math.min(left, fixedLeft);
      let best: Seg | null = null;
      let bestValue = -Infinity;
      for (const seg of cand.segs) {
        if (seg.lo > room) continue;
        const v = seg.slope * Math.min(seg.hi, room) + seg.intercept;
        if (v > bestValue) {
          best = seg;
          bestValue = v;
        }
      }
      if (best === null) continue;
      const units = Math.min(best.hi, room);
      parts.push({ cand, seg: best.src });
      used.add(cand.group);
      taken++;
      left -= units;
      if (!cand.flexible) fixedLeft -= units;
    }
  }
  if (parts.length > 0) leaf.solve(parts);
}

/** The bound's value of k units (k within the candidate's segments), in floating point. */
const valueAt = (c: Cand, k: number): number => {
  const seg = c.segs.find((sg) => sg.lo <= k && k <= sg.hi);
  return seg ? seg.slope * k + seg.intercept : -Infinity;
};

/**
 * The first plans of a search over candidates in search order: the best offer of each institution in
 * turn, by the bound of its yield and by what it earns per euro when full; with a flexible reserve
 * also, for each number of flexible parts, that many of the best flexible offers and then the best
 * others (the best offers are often deposits, and deposits alone leave the reserve unplaced).
 */
export function* seedPlans(cands: readonly Cand[], limits: PlanLimits, leaf: LeafSolver): Generator<void, void, void> {
  const { maxParts } = limits;
  seed([[cands, maxParts]], limits, leaf);
  yield;
  // by what they earn per euro when full (a yield bound can be high for a small amount only)
  const full = new Map(cands.map((c) => [c, valueAt(c, c.hi) / c.hi]));
  const byYield = [...cands].sort((a, b) => full.get(b)! - full.get(a)! || a.index - b.index);
  seed([[byYield, maxParts]], limits, leaf);
  yield;
  if (!(limits.maxNonFlexible < limits.total)) return;
  const flexible = byYield.filter((c) => c.flexible);
  const fixed = byYield.filter((c) => !c.flexible);
  for (let mx = 1; mx <= Math.min(maxParts, flexible.length); mx++) {
    seed(
      [
        [flexible, mx],
        [fixed, maxParts],
        [flexible, maxParts],
      ],
      limits,
      leaf,
    );
    yield;
  }
}
