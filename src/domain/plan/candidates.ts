// The candidates a search works with: each offer's segments read once into floating point, cut to what
// the request's limits allow, those that another offer can always replace removed (dominance), and the
// rest put in the order the search takes them.
import { compareDecimals, Decimal, ZERO } from '../decimal.js';
import { envelope } from './envelope.js';
import {
  down,
  FLOAT_MARGIN,
  up,
  type Cand,
  type CandidateFacts,
  type GroupOrder,
  type PlanCandidate,
  type PlanLimits,
  type PlanSegment,
  type Seg,
} from './types.js';

/** A segment within [lo, hi], its line in floating point. */
export const toSeg = (src: PlanSegment, lo: number, hi: number): Seg => ({
  src,
  lo,
  hi,
  slope: src.slope.toNumber(),
  intercept: src.intercept.toNumber(),
});

/** slope·k + intercept over [lo, hi], divided by k, is monotone in k: its largest value is at an end. */
function yieldRange(s: Seg): [number, number] {
  const a = s.slope + s.intercept / s.lo;
  const b = s.slope + s.intercept / s.hi;
  return a < b ? [a, b] : [b, a];
}

// What a candidate's segments say whatever the request: kept per segment list (offer models are cached).
const SEGS = new WeakMap<readonly PlanSegment[], Seg[]>();
const FACTS = new WeakMap<readonly PlanSegment[], CandidateFacts>();

/** The segments from one unit on, in floating point. */
function segsOf(segments: readonly PlanSegment[]): Seg[] {
  let segs = SEGS.get(segments);
  if (segs) return segs;
  segs = [];
  for (const s of segments) {
    const lo = Math.max(1, s.lo);
    if (lo <= s.hi) segs.push(toSeg(s, lo, s.hi));
  }
  SEGS.set(segments, segs);
  return segs;
}

/** What the search reads of a candidate before it knows whether it keeps it (see CandidateFacts). */
export function candidateFacts(segments: readonly PlanSegment[]): CandidateFacts {
  let facts = FACTS.get(segments);
  if (facts) return facts;
  const segs = segsOf(segments);
  let yieldHi = -Infinity;
  let yieldLo = Infinity;
  let constantSlope: Decimal | null = segments[0]?.slope ?? null;
  for (const seg of segs) {
    const [a, b] = yieldRange(seg);
    yieldHi = Math.max(yieldHi, b);
    yieldLo = Math.min(yieldLo, a);
    const s = seg.src;
    if (constantSlope !== null && (!s.exact || !s.intercept.isZero() || !s.slope.eq(constantSlope)))
      constantSlope = null;
  }
  const exact = segments.every((s) => s.exact);
  facts = {
    lo: segs[0]?.lo ?? 1,
    top: segs[segs.length - 1]?.hi ?? 0,
    yieldHi: up(yieldHi),
    yieldLo: exact ? down(yieldLo) : -Infinity,
    constantSlope,
  };
  FACTS.set(segments, facts);
  return facts;
}

/**
 * The candidates with some amount within their caps (institution, amount, non-flexible limit). Their
 * bounds of value(k)/k are those of all their segments: still bounds on the part within the caps.
 */
export function prepare(candidates: readonly PlanCandidate[], limits: PlanLimits): Cand[] {
  const out: Cand[] = [];
  candidates.forEach((src, index) => {
    const facts = src.facts ?? candidateFacts(src.segments);
    const { lo, top } = facts;
    if (lo > top) return;
    const limit = limits.groupLimits[src.group] ?? 0;
    const cap = Math.min(limit, limits.total, src.flexible ? Infinity : limits.maxNonFlexible);
    if (lo > cap) return;
    const only = limits.placementOnly;
    out.push({
      index,
      src,
      group: src.group,
      flexible: src.flexible,
      lo,
      hi: Math.min(top, cap),
      segs: [],
      yieldHi: only ? 0 : facts.yieldHi,
      yieldLo: only ? 0 : facts.yieldLo,
      constantSlope: only ? ZERO : facts.constantSlope,
      reachesCap: top >= cap,
      steps: [],
    });
  });
  return out;
}

/** The candidate's segments within [lo, hi] (placementOnly: one of value 0), and their envelope. */
export function segmentsOf(c: Cand, placementOnly: boolean): void {
  if (placementOnly) {
    const whole: PlanSegment = { lo: c.lo, hi: c.hi, slope: ZERO, intercept: ZERO, exact: true };
    c.segs = [{ src: whole, lo: c.lo, hi: c.hi, slope: 0, intercept: 0 }];
  } else {
    const all = segsOf(c.src.segments);
    c.segs =
      all[all.length - 1]!.hi <= c.hi
        ? all
        : all.filter((s) => s.lo <= c.hi).map((s) => (s.hi <= c.hi ? s : { ...s, hi: c.hi }));
  }
  c.steps = envelope(c);
}

/**
 * Whether j can stand in for i in any plan: same institution and kind (the limits stay the same), every
 * amount i accepts j accepts too, and j earns at least as much on each. Equal offers are ordered by
 * index, so that of several identical offers the first ones stay.
 */
export function dominates(j: Cand, i: Cand): boolean {
  if (j.lo > i.lo || j.hi < i.hi) return false;
  // strictly: no two candidates dominate each other (equal ones are ordered below)
  if (j.yieldLo > i.yieldHi) return true;
  if (j.constantSlope === null || i.constantSlope === null) return false;
  const c = compareDecimals(j.constantSlope, i.constantSlope);
  return c > 0 || (c === 0 && j.index < i.index);
}

/**
 * Whether j can take i's part in any plan, even while j holds a part of its own: j earns one yield on
 * every amount up to its institution's cap, so j's part and i's merged earn at least what the two did,
 * within every limit, with one part fewer.
 */
export function absorbs(j: Cand, i: Cand): boolean {
  return j.constantSlope !== null && j.reachesCap && dominates(j, i);
}

/**
 * Removes every candidate that one offer absorbs, or that at least maxParts others dominate: a plan has
 * at most maxParts parts, so one of those others is unused and takes the dominated part at no loss.
 * Same institution and kind only (see `dominates`); the order of the rest is by institution and kind.
 */
export function removeDominated(cands: Cand[], maxParts: number): Cand[] {
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
        if (j === i || !dominates(j, i)) continue;
        if (absorbs(j, i)) {
          count = maxParts;
          break;
        }
        if (++count >= maxParts) break;
      }
      if (count < maxParts) kept.push(i);
    }
  }
  return kept;
}

/**
 * Sorts the candidates for the search: institutions in order of the best yield they could offer, and
 * within one its offers likewise. The search meets good plans first, and good plans make the bounds cut
 * early.
 */
export function searchOrder(cands: Cand[]): GroupOrder {
  const groupBest = new Map<number, number>();
  for (const c of cands) groupBest.set(c.group, Math.max(groupBest.get(c.group) ?? -Infinity, c.yieldHi));
  const groups = [...groupBest.keys()].sort((a, b) => groupBest.get(b)! - groupBest.get(a)! || a - b);
  const rank = new Map(groups.map((g, r) => [g, r]));
  cands.sort((a, b) => rank.get(a.group)! - rank.get(b.group)! || b.yieldHi - a.yieldHi || a.index - b.index);
  return { groups, rank };
}
