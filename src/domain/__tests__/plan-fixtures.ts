// Test doubles for the plan optimizer: candidates from plain functions (lines, tiers, curves) and the
// exhaustive search every property test compares the optimizer with.
import { compareDecimals, Decimal, ZERO } from '../decimal.js';
import type { PlanCandidate, PlanPart, PlanProblem, PlanSegment } from '../plan.js';

const dec = (v: number | string | Decimal) => (v instanceof Decimal ? v : new Decimal(v));

/** A line through (k0, f(k0)) and (k1, f(k1)). */
function through(f: (k: number) => Decimal, k0: number, k1: number): { slope: Decimal; intercept: Decimal } {
  const slope = f(k1)
    .minus(f(k0))
    .div(k1 - k0);
  return { slope, intercept: f(k0).minus(slope.times(k0)) };
}

export type Shape = 'exact' | 'concave' | 'convex';

/** A piece of a candidate: value f over [lo, hi], whose shape decides the bound the optimizer sees. */
export interface PieceSpec {
  lo: number;
  hi: number;
  f: (k: number) => Decimal;
  shape: Shape;
}

function segmentOf(p: PieceSpec, lo: number, hi: number): PlanSegment {
  if (p.shape === 'exact' || lo === hi) {
    const line = lo === hi ? { slope: ZERO, intercept: p.f(lo) } : through(p.f, lo, hi);
    return { lo, hi, ...line, exact: true };
  }
  if (p.shape === 'convex') return { lo, hi, ...through(p.f, lo, hi), exact: false }; // the chord is above
  // concave: the secant of two neighbouring grid points is above f at every grid point
  const m = Math.floor((lo + hi) / 2);
  return { lo, hi, ...through(p.f, m, m + 1), exact: false };
}

/**
 * A candidate made of pieces (ascending, contiguous). An 'exact' piece must be affine in k: its line is
 * read off its ends.
 */
export function candidate(id: string, group: number, pieces: PieceSpec[], flexible = false): PlanCandidate {
  const owner = new Map<PlanSegment, PieceSpec>();
  const segmentsOf = (p: PieceSpec, lo: number, hi: number) => {
    const s = segmentOf(p, lo, hi);
    owner.set(s, p);
    return s;
  };
  const segments = pieces.map((p) => segmentsOf(p, p.lo, p.hi));
  return {
    id,
    group,
    flexible,
    segments,
    value(k) {
      const p = pieces.find((q) => q.lo <= k && k <= q.hi);
      if (!p) throw new RangeError(`${id} does not accept ${k}`);
      return p.f(k);
    },
    refine(segment, k) {
      const p = owner.get(segment)!;
      const out: PlanSegment[] = [];
      if (segment.lo <= k - 1) out.push(segmentsOf(p, segment.lo, k - 1));
      out.push(segmentsOf(p, k, k));
      if (k + 1 <= segment.hi) out.push(segmentsOf(p, k + 1, segment.hi));
      return out;
    },
  };
}

/** value = rate·k on [lo, hi] (a single-tier offer; rate per unit). */
export function line(id: string, group: number, rate: string, lo: number, hi: number, flexible = false): PlanCandidate {
  const r = dec(rate);
  return candidate(id, group, [{ lo, hi, f: (k) => r.times(k), shape: 'exact' }], flexible);
}

/**
 * Whole tiers: rate r_i on the whole amount from `from_i` (the first from `lo`). value = r(k)·k: a
 * jump at each bound.
 */
export function wholeTiers(
  id: string,
  group: number,
  tiers: [from: number, rate: string][],
  hi: number,
  flexible = false,
): PlanCandidate {
  const pieces: PieceSpec[] = tiers.map(([from, rate], i) => {
    const r = dec(rate);
    const to = i + 1 < tiers.length ? tiers[i + 1]![0] - 1 : hi;
    return { lo: from, hi: to, f: (k: number) => r.times(k), shape: 'exact' as const };
  });
  return candidate(id, group, pieces, flexible);
}

/** Marginal tiers: each slice earns its tier's rate; continuous and piecewise affine. */
export function marginalTiers(
  id: string,
  group: number,
  tiers: [from: number, rate: string][],
  lo: number,
  hi: number,
  flexible = false,
): PlanCandidate {
  const f = (k: number) => {
    let sum = ZERO;
    tiers.forEach(([from, rate], i) => {
      const to = i + 1 < tiers.length ? tiers[i + 1]![0] : Infinity;
      if (k > from) sum = sum.plus(dec(rate).times(Math.min(k, to) - from));
    });
    return sum;
  };
  const bounds = tiers.map(([from]) => from).filter((b) => b > lo && b <= hi);
  const edges = [lo, ...bounds, hi + 1];
  const pieces: PieceSpec[] = [];
  for (let i = 0; i + 1 < edges.length; i++) pieces.push({ lo: edges[i]!, hi: edges[i + 1]! - 1, f, shape: 'exact' });
  return candidate(
    id,
    group,
    pieces.filter((p) => p.lo <= p.hi),
    flexible,
  );
}

export interface BruteForce {
  placed: number;
  value: Decimal;
  parts: PlanPart[];
}

/** Every plan on the grid: each candidate 0 or any amount it accepts, every limit checked. */
export function bruteForcePlan(problem: PlanProblem): BruteForce {
  const { candidates, groupLimits, total, maxParts, maxNonFlexible } = problem;
  const accepted = candidates.map((c) => {
    const lo = c.segments[0]?.lo ?? 1;
    const hi = c.segments[c.segments.length - 1]?.hi ?? 0;
    const out: number[] = [];
    for (let k = Math.max(1, lo); k <= hi; k++) out.push(k);
    return out;
  });
  const memo = candidates.map(() => new Map<number, Decimal>());
  const valueOf = (i: number, k: number) => {
    let v = memo[i]!.get(k);
    if (v === undefined) memo[i]!.set(k, (v = problem.placementOnly ? ZERO : candidates[i]!.value(k)));
    return v;
  };
  let best: BruteForce = { placed: 0, value: ZERO, parts: [] };
  const used = groupLimits.map(() => 0);
  const x = candidates.map(() => 0);
  const walk = (i: number, placed: number, fixed: number, parts: number) => {
    if (i === candidates.length) {
      let value = ZERO;
      x.forEach((k, j) => {
        if (k > 0) value = value.plus(valueOf(j, k));
      });
      if (placed > best.placed || (placed === best.placed && compareDecimals(value, best.value) > 0)) {
        best = {
          placed,
          value,
          parts: x.flatMap((k, j) => (k > 0 ? [{ candidate: j, units: k, value: valueOf(j, k) }] : [])),
        };
      }
      return;
    }
    walk(i + 1, placed, fixed, parts);
    if (parts >= maxParts) return;
    const c = candidates[i]!;
    for (const k of accepted[i]!) {
      if (
        placed + k > total ||
        used[c.group]! + k > groupLimits[c.group]! ||
        (!c.flexible && fixed + k > maxNonFlexible)
      )
        break;
      used[c.group]! += k;
      x[i] = k;
      walk(i + 1, placed + k, c.flexible ? fixed : fixed + k, parts + 1);
      x[i] = 0;
      used[c.group]! -= k;
    }
  };
  walk(0, 0, 0, 0);
  return best;
}
