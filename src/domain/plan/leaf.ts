// A complete choice of parts (candidates and segments) solved for its amounts: the linear programme of
// lp.ts, the plan compared with the best one in Decimal, and where a chosen segment's line is only a
// bound above the value by more than EPSILON, the segment split there and each piece solved again.
import { compareDecimals, Decimal, ZERO } from '../decimal.js';
import { toSeg } from './candidates.js';
import type { Incumbent } from './incumbent.js';
import { solvePlanLp, type LpPart } from './lp.js';
import { EPSILON, type Cand, type PlanLimits, type PlanSegment, type PlanStats, type Seg } from './types.js';

/** A part of a complete choice: a candidate and the segment its amount lies in. */
export interface LeafPart {
  cand: Cand;
  seg: PlanSegment;
}

export class LeafSolver {
  /** The pieces of each segment split, per amount: splits are asked again from other choices. */
  private readonly refined = new WeakMap<PlanSegment, Map<number, PlanSegment[]>>();

  constructor(
    private readonly limits: PlanLimits,
    private readonly best: Incumbent,
    private readonly stats: PlanStats,
  ) {}

  private refine(cand: Cand, seg: PlanSegment, units: number): PlanSegment[] {
    let byUnits = this.refined.get(seg);
    if (!byUnits) this.refined.set(seg, (byUnits = new Map()));
    let parts = byUnits.get(units);
    if (!parts) {
      this.stats.refinements++;
      byUnits.set(units, (parts = cand.src.refine(seg, units)));
    }
    return parts;
  }

  /**
   * Solves the amounts of a choice, and offers the plan to the best one. A split segment replaces the
   * segment in its candidate's list too: the rest of the search sees the tighter pieces.
   */
  solve(first: LeafPart[]): void {
    const { limits, best, stats } = this;
    const { placementOnly } = limits;
    // Choices still to solve: this one, then those its refinements make (a stack, not recursion: a long
    // curve can take many splits).
    const work = [first];
    for (let parts = work.pop(); parts !== undefined; parts = work.pop()) {
      stats.leaves++;
      const lp: LpPart[] = parts.map(({ cand, seg }) => ({
        group: cand.group,
        flexible: cand.flexible,
        lo: Math.max(1, seg.lo),
        hi: Math.min(seg.hi, cand.hi),
        slope: seg.slope,
      }));
      if (lp.some((p) => p.lo > p.hi)) continue;
      const x = solvePlanLp(lp, limits);
      if (x === null) continue;
      let placed = 0;
      let bound = ZERO;
      let value = ZERO;
      let worst = -1;
      let worstGap = ZERO;
      const values: Decimal[] = [];
      parts.forEach(({ cand, seg }, p) => {
        const units = x[p]!;
        placed += units;
        const line = placementOnly ? ZERO : seg.slope.times(units).plus(seg.intercept);
        const v = placementOnly || seg.exact ? line : cand.src.value(units);
        bound = bound.plus(line);
        value = value.plus(v);
        values.push(v);
        const gap = line.minus(v);
        if (!seg.exact && compareDecimals(gap, worstGap) > 0) {
          worst = p;
          worstGap = gap;
        }
      });
      best.offer(placed, value, () =>
        parts
          .map(({ cand }, p) => ({ candidate: cand.index, units: x[p]!, value: values[p]! }))
          .sort((a, b) => a.candidate - b.candidate),
      );
      if (worst < 0 || !best.beatenBy(placed, bound) || compareDecimals(bound.minus(value), EPSILON) <= 0) continue;
      // The bound of this choice is above the best plan by more than EPSILON, and part of that is the
      // bound of a segment (a curve, or no closed form) at the amount chosen: split the segment and solve
      // each piece. At the amount chosen when it lies in the middle half of the segment, else in the
      // middle: a choice stuck at one end would otherwise shave off one unit per split.
      const { cand, seg } = parts[worst]!;
      const at = x[worst]!;
      const quarter = (seg.hi - seg.lo) / 4;
      const split = at - seg.lo >= quarter && seg.hi - at >= quarter ? at : Math.floor((seg.lo + seg.hi) / 2);
      const pieces = this.refine(cand, seg, split);
      // The rest of the search sees the pieces too (tighter bounds for every choice with this candidate).
      const k = cand.segs.findIndex((s) => s.src === seg);
      if (k >= 0) {
        const fresh: Seg[] = [];
        for (const piece of pieces) {
          const lo = Math.max(1, piece.lo);
          const hi = Math.min(piece.hi, cand.hi);
          if (lo <= hi) fresh.push(toSeg(piece, lo, hi));
        }
        cand.segs = [...cand.segs.slice(0, k), ...fresh, ...cand.segs.slice(k + 1)];
      }
      // the piece with the amount chosen is solved first (pushed last)
      pieces.sort((a, b) => Number(a.lo <= at && at <= a.hi) - Number(b.lo <= at && at <= b.hi));
      for (const piece of pieces) {
        const next = parts.slice();
        next[worst] = { cand, seg: piece };
        work.push(next);
      }
    }
  }
}
