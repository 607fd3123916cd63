// The savings plan's optimizer (docs/calculation.md, "The savings plan"): split an amount over offers
// so that every part is fully covered by its institution's deposit guarantee, place as much as
// possible, and of those plans take the one with the highest total value (returnPerYear, or the net
// return under `sort=effective`).
//
// Over plain inputs, in whole grid units (the catalogue uses 1 €): each candidate offer belongs to a
// group (its institution, whose DGS limit its parts share) and says, for the amounts it accepts, how
// much placing k units earns (`value`) and an upper bound of that as lines over segments of amounts
// (exact where the return is linear or affine in the amount, a bound where it curves). The method is
// branch and bound over which offers, and which segment of each, a plan uses; for a given choice the
// amounts are a small linear programme solved exactly (plan-lp.ts); where a chosen segment's line is
// only a bound, the segment is split at the amount chosen until the bound is within EPSILON of the value.
// Floating point only bounds subtrees (with a margin larger than its error); every plan that is kept
// was compared in Decimal. Why this is optimal, and what it costs: see the docs.
import { compareDecimals, Decimal, ZERO } from './decimal.js';
import { solvePlanLp, type LpPart } from './plan-lp.js';

export interface PlanSegment {
  /** Grid units, lo ≤ hi. */
  lo: number;
  hi: number;
  /** value(k) ≤ slope·k + intercept at every grid point k of [lo, hi]. */
  slope: Decimal;
  intercept: Decimal;
  /** The line is the value itself (up to the last of 34 digits): a linear or affine piece. */
  exact: boolean;
}

export interface PlanCandidate {
  id: string;
  /** Index into `groupLimits`. */
  group: number;
  flexible: boolean;
  /** Ascending and contiguous: they cover every amount the offer accepts, without gaps. */
  segments: readonly PlanSegment[];
  /** The objective's value of placing k grid units in the offer (exact, Decimal). */
  value(units: number): Decimal;
  /**
   * Splits a segment whose line is only a bound at k: [lo, k − 1], [k, k] (exact) and [k + 1, hi], the
   * empty ones left out, each with a bound at least as tight.
   */
  refine(segment: PlanSegment, units: number): PlanSegment[];
}

export interface PlanProblem {
  candidates: readonly PlanCandidate[];
  /** Per group (institution): the units its parts may add up to (its DGS limit). */
  groupLimits: readonly number[];
  /** The units to place, at most. */
  total: number;
  maxParts: number;
  /** The units the non-flexible parts may add up to (the amount less the flexible reserve). */
  maxNonFlexible: number;
  /** Maximise the placement only, whatever it earns: what the diagnosis of an unplaced rest asks. */
  placementOnly?: boolean;
}

export interface PlanPart {
  /** Index into `candidates`. */
  candidate: number;
  units: number;
  value: Decimal;
}

export interface PlanStats {
  /** Candidates with an amount they accept within the limits. */
  candidates: number;
  /** Left after removing those that can always be replaced by a better one (dominance). */
  kept: number;
  /** Search nodes bounded. */
  nodes: number;
  /** Choices of parts whose amounts were solved. */
  leaves: number;
  /** Segments split because their bound was not tight enough. */
  refinements: number;
}

export interface PlanSolution {
  /** In candidate order. */
  parts: PlanPart[];
  placed: number;
  value: Decimal;
  stats: PlanStats;
}

/** A plan's value is taken as optimal once no bound exceeds it by more than this (euros per year). */
export const EPSILON = new Decimal('1e-9');

/** Relative margin added to every floating-point bound: far above its rounding error (≈1e-14). */
const FLOAT_MARGIN = 1e-10;

interface Seg {
  src: PlanSegment;
  lo: number;
  hi: number;
  slope: number;
  intercept: number;
}

interface Cand {
  index: number;
  src: PlanCandidate;
  group: number;
  flexible: boolean;
  lo: number;
  hi: number;
  segs: Seg[];
  /** The same, the one with the most value at its top first: the order the search tries them in. */
  tryOrder: Seg[];
  /** Upper bound of value(k)/k over every k the candidate accepts (margin included). */
  yieldHi: number;
  /** Lower bound of value(k)/k (margin included); −Infinity unless every segment is exact. */
  yieldLo: number;
  /** Every segment exact, through the origin and with the same slope: value(k) = slope·k. */
  constantSlope: Decimal | null;
}

interface Chosen {
  cand: Cand;
  seg: Seg;
}

/** slope·k + intercept over [lo, hi], divided by k, is monotone in k: its largest value is at an end. */
function yieldRange(s: Seg): [number, number] {
  const a = s.slope + s.intercept / s.lo;
  const b = s.slope + s.intercept / s.hi;
  return a < b ? [a, b] : [b, a];
}

const up = (v: number) => v + Math.abs(v) * FLOAT_MARGIN + 1e-300;
const down = (v: number) => v - Math.abs(v) * FLOAT_MARGIN - 1e-300;

function prepare(problem: PlanProblem): Cand[] {
  const out: Cand[] = [];
  problem.candidates.forEach((src, index) => {
    const limit = problem.groupLimits[src.group] ?? 0;
    const cap = Math.min(limit, problem.total, src.flexible ? Infinity : problem.maxNonFlexible);
    const segs: Seg[] = [];
    for (const s of src.segments) {
      if (s.lo > cap) break;
      const lo = Math.max(1, s.lo);
      const hi = Math.min(s.hi, cap);
      if (lo > hi) continue;
      segs.push({ src: s, lo, hi, slope: s.slope.toNumber(), intercept: s.intercept.toNumber() });
    }
    if (segs.length === 0) return;
    let yieldHi = -Infinity;
    let yieldLo = Infinity;
    const exact = src.segments.every((s) => s.exact);
    let constantSlope: Decimal | null = src.segments[0]!.slope;
    for (const s of segs) {
      const [lo, hi] = yieldRange(s);
      yieldHi = Math.max(yieldHi, hi);
      yieldLo = Math.min(yieldLo, lo);
      if (constantSlope !== null && (!s.src.exact || !s.src.intercept.isZero() || !s.src.slope.eq(constantSlope))) constantSlope = null;
    }
    if (problem.placementOnly) {
      // Only the units count: one exact segment of value 0 over everything the offer accepts.
      const whole: PlanSegment = { lo: segs[0]!.lo, hi: segs[segs.length - 1]!.hi, slope: ZERO, intercept: ZERO, exact: true };
      segs.splice(0, segs.length, { src: whole, lo: whole.lo, hi: whole.hi, slope: 0, intercept: 0 });
      yieldHi = yieldLo = 0;
      constantSlope = ZERO;
    }
    out.push({
      index,
      src,
      group: src.group,
      flexible: src.flexible,
      lo: segs[0]!.lo,
      hi: segs[segs.length - 1]!.hi,
      segs,
      tryOrder: [...segs].sort((a, b) => b.slope * b.hi + b.intercept - (a.slope * a.hi + a.intercept)),
      yieldHi: up(yieldHi),
      yieldLo: exact || problem.placementOnly ? down(yieldLo) : -Infinity,
      constantSlope,
    });
  });
  return out;
}

/**
 * Whether j can stand in for i in any plan: same institution and kind (the limits stay the same), every
 * amount i accepts j accepts too, and j earns at least as much on each. Equal offers are ordered by
 * index, so that of several identical offers the first ones stay.
 */
function dominates(j: Cand, i: Cand): boolean {
  if (j.lo > i.lo || j.hi < i.hi) return false;
  if (j.yieldLo >= i.yieldHi) return true;
  if (j.constantSlope === null || i.constantSlope === null) return false;
  const c = compareDecimals(j.constantSlope, i.constantSlope);
  return c > 0 || (c === 0 && j.index < i.index);
}

/**
 * Removes every candidate that at least maxParts others dominate: a plan has at most maxParts parts, so
 * one of those others is unused and takes the dominated part's amount at no loss.
 */
function removeDominated(cands: Cand[], maxParts: number): Cand[] {
  const byClass = new Map<string, Cand[]>();
  for (const c of cands) {
    const key = `${c.group}:${c.flexible ? 1 : 0}`;
    const list = byClass.get(key);
    if (list) list.push(c);
    else byClass.set(key, [c]);
  }
  const kept: Cand[] = [];
  for (const list of byClass.values()) {
    // Dominators have a high lower yield: scan in that order and stop once they cannot dominate.
    const byLow = [...list].sort((a, b) => b.yieldLo - a.yieldLo || a.index - b.index);
    for (const i of list) {
      // Below this no j can dominate i, by its bounds or (for equal constant yields, whose bounds
      // straddle each other by the margins) by its exact slope.
      const threshold = i.yieldHi - 3 * (Math.abs(i.yieldHi) * FLOAT_MARGIN + 1e-300);
      let count = 0;
      for (const j of byLow) {
        if (j.yieldLo < threshold) break;
        if (j !== i && dominates(j, i) && ++count >= maxParts) break;
      }
      if (count < maxParts) kept.push(i);
    }
  }
  return kept;
}

const better = (placed: number, value: Decimal, bestPlaced: number, bestValue: Decimal) =>
  placed > bestPlaced || (placed === bestPlaced && compareDecimals(value, bestValue) > 0);

export function optimizePlan(problem: PlanProblem): PlanSolution {
  const { groupLimits, maxParts } = problem;
  const total = Math.max(0, problem.total);
  const maxNonFlexible = Math.max(0, Math.min(problem.maxNonFlexible, total));
  const all = prepare({ ...problem, total, maxNonFlexible });
  const stats: PlanStats = { candidates: all.length, kept: 0, nodes: 0, leaves: 0, refinements: 0 };
  let bestPlaced = 0;
  let bestValue = ZERO;
  let bestParts: PlanPart[] = [];
  if (total === 0 || maxParts < 1 || all.length === 0) return { parts: [], placed: 0, value: ZERO, stats };

  const cands = removeDominated(all, maxParts);
  stats.kept = cands.length;

  // Institutions in order of the best yield they could offer, and within one its offers likewise: the
  // search meets good plans first, and good plans make the bounds cut early.
  const groupBest = new Map<number, number>();
  for (const c of cands) groupBest.set(c.group, Math.max(groupBest.get(c.group) ?? -Infinity, c.yieldHi));
  const groups = [...groupBest.keys()].sort((a, b) => groupBest.get(b)! - groupBest.get(a)! || a - b);
  const rank = new Map(groups.map((g, r) => [g, r]));
  cands.sort((a, b) => rank.get(a.group)! - rank.get(b.group)! || b.yieldHi - a.yieldHi || a.index - b.index);
  const n = cands.length;
  const G = groupLimits.length;

  // Per position i: the best yield and the largest amount still to come in i's institution, per kind.
  const remYield = new Float64Array(2 * n).fill(-Infinity);
  const remHi = new Float64Array(2 * n);
  for (let i = n - 1; i >= 0; i--) {
    const c = cands[i]!;
    const same = i + 1 < n && cands[i + 1]!.group === c.group;
    for (let k = 0; k < 2; k++) {
      remYield[2 * i + k] = same ? remYield[2 * (i + 1) + k]! : -Infinity;
      remHi[2 * i + k] = same ? remHi[2 * (i + 1) + k]! : 0;
    }
    const k = c.flexible ? 1 : 0;
    remYield[2 * i + k] = Math.max(remYield[2 * i + k]!, c.yieldHi);
    remHi[2 * i + k] = Math.max(remHi[2 * i + k]!, c.hi);
  }
  // Per institution rank r: the institutions after it, one item per kind, steepest first.
  interface Later {
    slope: Float64Array;
    hi: Float64Array;
    group: Int32Array;
    flexible: Uint8Array;
  }
  const later: Later[] = [];
  {
    const groupItems = groups.map((g) => {
      const items: { slope: number; hi: number; group: number; flexible: number }[] = [];
      for (const flexible of [0, 1]) {
        let slope = -Infinity;
        let hi = 0;
        for (const c of cands) {
          if (c.group !== g || Number(c.flexible) !== flexible) continue;
          slope = Math.max(slope, c.yieldHi);
          hi = Math.max(hi, c.hi);
        }
        if (hi > 0) items.push({ slope, hi, group: g, flexible });
      }
      return items;
    });
    for (let r = 0; r <= groups.length; r++) {
      const items = groupItems.slice(r).flat().sort((a, b) => b.slope - a.slope);
      later.push({
        slope: Float64Array.from(items, (x) => x.slope),
        hi: Float64Array.from(items, (x) => x.hi),
        group: Int32Array.from(items, (x) => x.group),
        flexible: Uint8Array.from(items, (x) => x.flexible),
      });
    }
  }
  // Per position i: Σ of the m largest amounts among candidates i.., for m = 0..maxParts.
  const K = maxParts;
  const topSum = new Float64Array((n + 1) * (K + 1));
  {
    let top: number[] = [];
    for (let i = n; i >= 0; i--) {
      if (i < n) {
        top.push(cands[i]!.hi);
        top.sort((a, b) => b - a);
        if (top.length > K) top = top.slice(0, K);
      }
      let sum = 0;
      for (let m = 1; m <= K; m++) {
        sum += top[m - 1] ?? 0;
        topSum[i * (K + 1) + m] = sum;
      }
    }
  }

  // Search state.
  const chosen: Chosen[] = [];
  const groupLo = new Float64Array(G);
  let sumLo = 0;
  let sumLoFixed = 0;
  // Scratch for the bound.
  const stamp = new Int32Array(G);
  const scratchRoom = new Float64Array(G);
  const scratchCap = new Float64Array(G);
  let stampNow = 0;
  const extraSlope: number[] = [];
  const extraCap: number[] = [];
  const extraGroup: number[] = [];
  const extraFlexible: number[] = [];
  const extraOrder: number[] = [];

  /** Whether no completion of the current choice (candidates from position i on) can beat the best plan. */
  function cannotBeat(i: number): boolean {
    stats.nodes++;
    const m = maxParts - chosen.length;
    stampNow++;
    extraSlope.length = extraCap.length = extraGroup.length = extraFlexible.length = 0;
    let forced = 0;
    let forcedAbs = 0;
    let chosenExtra = 0;
    for (const { seg, cand } of chosen) {
      const v = seg.slope * seg.lo + seg.intercept;
      forced += v;
      forcedAbs += Math.abs(v);
      extraSlope.push(seg.slope);
      extraCap.push(seg.hi - seg.lo);
      extraGroup.push(cand.group);
      extraFlexible.push(cand.flexible ? 1 : 0);
      chosenExtra += seg.hi - seg.lo;
    }
    let laterItems: Later | null = null;
    if (m > 0 && i < n) {
      const g = cands[i]!.group;
      for (let k = 0; k < 2; k++) {
        if (remHi[2 * i + k]! > 0) {
          extraSlope.push(remYield[2 * i + k]!);
          extraCap.push(Math.min(m * remHi[2 * i + k]!, groupLimits[g]!));
          extraGroup.push(g);
          extraFlexible.push(k);
        }
      }
      laterItems = later[rank.get(g)! + 1]!;
    }
    // How much more could be placed: within every institution's room, within m new parts, within the
    // non-flexible limit, within the amount.
    const room = (g: number) => {
      if (stamp[g] !== stampNow) {
        stamp[g] = stampNow;
        scratchRoom[g] = groupLimits[g]! - groupLo[g]!;
        scratchCap[g] = 0;
      }
    };
    let flexCap = 0;
    let fixedCap = 0;
    const addCap = (g: number, cap: number, flexible: number) => {
      room(g);
      scratchCap[g] = scratchCap[g]! + cap;
      if (flexible) flexCap += cap;
      else fixedCap += cap;
    };
    for (let e = 0; e < extraCap.length; e++) addCap(extraGroup[e]!, extraCap[e]!, extraFlexible[e]!);
    if (laterItems) for (let e = 0; e < laterItems.hi.length; e++) addCap(laterItems.group[e]!, Math.min(m * laterItems.hi[e]!, groupLimits[laterItems.group[e]!]!), laterItems.flexible[e]!);
    let groupCap = 0;
    const seen = stampNow;
    for (let e = 0; e < extraCap.length; e++) {
      const g = extraGroup[e]!;
      if (stamp[g] === seen) {
        groupCap += Math.min(scratchRoom[g]!, scratchCap[g]!);
        stamp[g] = -1;
      }
    }
    if (laterItems) {
      for (let e = 0; e < laterItems.hi.length; e++) {
        const g = laterItems.group[e]!;
        if (stamp[g] === seen) {
          groupCap += Math.min(scratchRoom[g]!, scratchCap[g]!);
          stamp[g] = -1;
        }
      }
    }
    const partsCap = chosenExtra + (m > 0 && i < n ? topSum[i * (K + 1) + Math.min(m, K)]! : 0);
    const classCap = flexCap + Math.min(maxNonFlexible - sumLoFixed, fixedCap);
    const placedBound = sumLo + Math.max(0, Math.min(total - sumLo, groupCap, partsCap, classCap));
    if (placedBound < bestPlaced) return true;
    if (placedBound > bestPlaced) return false;
    if (problem.placementOnly) return true;

    // The same placement at best: bound the value of placing exactly bestPlaced, steepest first within
    // each institution's room (the non-flexible limit and the part count relaxed).
    stampNow++;
    let need = bestPlaced - sumLo;
    let value = forced;
    let absSum = forcedAbs;
    extraOrder.length = 0;
    for (let e = 0; e < extraSlope.length; e++) extraOrder.push(e);
    extraOrder.sort((a, b) => extraSlope[b]! - extraSlope[a]!);
    let a = 0;
    let b = 0;
    const laterCount = laterItems ? laterItems.slope.length : 0;
    while (need > 0 && (a < extraOrder.length || b < laterCount)) {
      let slope: number;
      let cap: number;
      let g: number;
      if (b >= laterCount || (a < extraOrder.length && extraSlope[extraOrder[a]!]! >= laterItems!.slope[b]!)) {
        const e = extraOrder[a++]!;
        slope = extraSlope[e]!;
        cap = extraCap[e]!;
        g = extraGroup[e]!;
      } else {
        slope = laterItems!.slope[b]!;
        g = laterItems!.group[b]!;
        cap = Math.min(m * laterItems!.hi[b]!, groupLimits[g]!);
        b++;
      }
      if (stamp[g] !== stampNow) {
        stamp[g] = stampNow;
        scratchRoom[g] = groupLimits[g]! - groupLo[g]!;
      }
      const take = Math.min(cap, scratchRoom[g]!, need);
      if (take <= 0) continue;
      scratchRoom[g] = scratchRoom[g]! - take;
      need -= take;
      value += take * slope;
      absSum += Math.abs(take * slope);
    }
    if (need > 0) return true; // cannot even place bestPlaced
    return value + (absSum + Math.abs(bestValueFloat)) * FLOAT_MARGIN < bestValueFloat;
  }

  let bestValueFloat = 0;
  const refined = new WeakMap<PlanSegment, Map<number, PlanSegment[]>>();
  const refine = (cand: Cand, seg: PlanSegment, units: number): PlanSegment[] => {
    let byUnits = refined.get(seg);
    if (!byUnits) refined.set(seg, (byUnits = new Map()));
    let parts = byUnits.get(units);
    if (!parts) {
      stats.refinements++;
      byUnits.set(units, (parts = cand.src.refine(seg, units)));
    }
    return parts;
  };

  /** Solves the amounts of a choice of (candidate, segment) pairs; splits bounds that are not tight enough. */
  function leaf(parts: { cand: Cand; seg: PlanSegment }[]): void {
    stats.leaves++;
    const lp: LpPart[] = parts.map(({ cand, seg }) => ({
      group: cand.group,
      flexible: cand.flexible,
      lo: Math.max(1, seg.lo),
      hi: Math.min(seg.hi, cand.hi),
      slope: seg.slope,
    }));
    if (lp.some((p) => p.lo > p.hi)) return;
    const x = solvePlanLp(lp, { groupLimits, total, maxNonFlexible });
    if (x === null) return;
    let placed = 0;
    let bound = ZERO;
    let value = ZERO;
    let worst = -1;
    let worstGap = ZERO;
    const values: Decimal[] = [];
    parts.forEach(({ cand, seg }, p) => {
      const units = x[p]!;
      placed += units;
      const line = problem.placementOnly ? ZERO : seg.slope.times(units).plus(seg.intercept);
      const v = problem.placementOnly || seg.exact ? line : cand.src.value(units);
      bound = bound.plus(line);
      value = value.plus(v);
      values.push(v);
      const gap = line.minus(v);
      if (!seg.exact && compareDecimals(gap, worstGap) > 0) {
        worst = p;
        worstGap = gap;
      }
    });
    if (better(placed, value, bestPlaced, bestValue)) {
      bestPlaced = placed;
      bestValue = value;
      bestValueFloat = value.toNumber();
      bestParts = parts.map(({ cand }, p) => ({ candidate: cand.index, units: x[p]!, value: values[p]! })).sort((a, b) => a.candidate - b.candidate);
    }
    if (worst < 0 || !better(placed, bound, bestPlaced, bestValue) || compareDecimals(bound.minus(value), EPSILON) <= 0) return;
    // The bound of this choice is above the best plan by more than EPSILON, and some of it is a bound
    // of a curved segment at the amount chosen: split that segment there and solve each side.
    const { cand, seg } = parts[worst]!;
    for (const piece of refine(cand, seg, x[worst]!)) {
      const next = parts.slice();
      next[worst] = { cand, seg: piece };
      leaf(next);
    }
  }

  function search(i: number): void {
    if (cannotBeat(i)) return;
    if (i === n || chosen.length === maxParts) {
      leaf(chosen.map(({ cand, seg }) => ({ cand, seg: seg.src })));
      return;
    }
    const cand = cands[i]!;
    const firstOfGroup = i === 0 || cands[i - 1]!.group !== cand.group;
    // The institution's best offer is tried in the plan first, its others out of it first: plans with
    // one offer per institution are the common answer, and finding them early tightens the bounds.
    if (!firstOfGroup) search(i + 1);
    const g = cand.group;
    for (const seg of cand.tryOrder) {
      if (groupLo[g]! + seg.lo > groupLimits[g]! || sumLo + seg.lo > total) continue;
      if (!cand.flexible && sumLoFixed + seg.lo > maxNonFlexible) continue;
      chosen.push({ cand, seg });
      groupLo[g] = groupLo[g]! + seg.lo;
      sumLo += seg.lo;
      if (!cand.flexible) sumLoFixed += seg.lo;
      search(i + 1);
      chosen.pop();
      groupLo[g] = groupLo[g]! - seg.lo;
      sumLo -= seg.lo;
      if (!cand.flexible) sumLoFixed -= seg.lo;
    }
    if (firstOfGroup) search(i + 1);
  }

  search(0);
  if (problem.placementOnly) return { parts: bestParts, placed: bestPlaced, value: ZERO, stats };
  // An exact segment's line and the offer's own number differ at most in the last of 34 digits: the
  // plan reports the offer's numbers.
  const parts = bestParts.map((part) => ({ ...part, value: problem.candidates[part.candidate]!.value(part.units) }));
  return { parts, placed: bestPlaced, value: parts.reduce((sum, part) => sum.plus(part.value), ZERO), stats };
}
