// The savings plan's optimizer (docs/calculation.md, "The savings plan"): split an amount over offers
// so that every part is fully covered by its institution's deposit guarantee, place as much as
// possible, and of those plans take the one with the highest total value (returnPerYear, or the net
// return under `sort=effective`).
//
// Over plain inputs, in whole grid units (the catalogue uses 1 €): each candidate offer belongs to a
// group (its institution, whose DGS limit its parts share) and says, for the amounts it accepts, how
// much placing k units earns (`value`) and an upper bound of that as lines over segments of amounts
// (exact where the return is linear or affine in the amount, a bound where it curves). The method is
// branch and bound over which offers, and which segment of each, a plan uses, best bound first; a
// choice's bound is a greedy over the concave envelopes of what is still open, with the part count and
// the flexible reserve priced in by Lagrange multipliers. For a given choice the amounts are a small
// linear programme solved exactly (plan-lp.ts); where a chosen segment's line is only a bound, the
// segment is split at the amount chosen until the bound is within EPSILON of the value.
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
  /** The work the search may do before it stops with the best plan found (default WORK_BUDGET). */
  maxWork?: number;
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
  /** Steps of the bounds' inner loops (stretches looked at, offers priced): what the budget counts. */
  work: number;
}

export interface PlanSolution {
  /** In candidate order. */
  parts: PlanPart[];
  placed: number;
  value: Decimal;
  /** The search ended with every choice pruned: no plan places more, or as much and earns more (to EPSILON). */
  proven: boolean;
  /**
   * Unproven (the work budget ran out): the most any plan could earn above this one per year, from the
   * bounds of the choices left. 0 when proven.
   */
  gap: number;
  stats: PlanStats;
}

/**
 * The work a search may do, in steps of the bounds' inner loops: counted rather than timed, so the same
 * request gets the same plan on every machine. Plans over the sample market take well under a
 * hundredth of it; some requests for many parts with a large flexible share meet wide plateaus of
 * near-equal plans, and a request must end: then the best plan found is answered with the gap its
 * bounds leave (`proven: false`). Two to three seconds on our machines.
 */
export const WORK_BUDGET = 50_000_000;
/** What a bound costs beyond its loops' steps, in the same steps (its setup, its node in the search). */
const WORK_PER_BOUND = 100;

/** A plan's value is taken as optimal once no bound exceeds it by more than this (euros per year). */
export const EPSILON = new Decimal('1e-6');
/**
 * A choice whose bound is at most EPSILON above the best plan is dropped: plans that tie with the best
 * one (offers of equal rates at several institutions make many) need not be explored one by one.
 */
const EPSILON_FLOAT = EPSILON.toNumber();

/**
 * Relative margin added to every floating-point bound: far above its rounding error (a bound adds up at
 * most a few hundred products, ≈1e-14 of their sum) and far enough below EPSILON that ties are dropped.
 */
const FLOAT_MARGIN = 1e-12;

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
  /** Its segments within [lo, hi]: made for the candidates the search keeps (see `segmentsOf`). */
  segs: Seg[];
  /** Upper bound of value(k)/k over every k the candidate accepts (margin included). */
  yieldHi: number;
  /** Lower bound of value(k)/k (margin included); −Infinity unless every segment is exact. */
  yieldLo: number;
  /** Every segment exact, through the origin and with the same slope: value(k) = slope·k. */
  constantSlope: Decimal | null;
  /** It accepts every amount up to what its institution, the amount and its kind's cap allow. */
  reachesCap: boolean;
  /** Upper concave envelope steps of its bound (see `envelope`). */
  steps: Item[];
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

/** What a candidate's segments say whatever the request: kept per segment list (offer models are cached). */
interface SegmentFacts {
  segs: Seg[];
  yieldHi: number;
  yieldLo: number;
  constantSlope: Decimal | null;
}

const FACTS = new WeakMap<readonly PlanSegment[], SegmentFacts>();

function factsOf(segments: readonly PlanSegment[]): SegmentFacts {
  let facts = FACTS.get(segments);
  if (facts) return facts;
  const segs: Seg[] = [];
  let yieldHi = -Infinity;
  let yieldLo = Infinity;
  let constantSlope: Decimal | null = segments[0]?.slope ?? null;
  for (const s of segments) {
    const lo = Math.max(1, s.lo);
    if (lo > s.hi) continue;
    const seg = { src: s, lo, hi: s.hi, slope: s.slope.toNumber(), intercept: s.intercept.toNumber() };
    segs.push(seg);
    const [a, b] = yieldRange(seg);
    yieldHi = Math.max(yieldHi, b);
    yieldLo = Math.min(yieldLo, a);
    if (constantSlope !== null && (!s.exact || !s.intercept.isZero() || !s.slope.eq(constantSlope)))
      constantSlope = null;
  }
  const exact = segments.every((s) => s.exact);
  facts = { segs, yieldHi: up(yieldHi), yieldLo: exact ? down(yieldLo) : -Infinity, constantSlope };
  FACTS.set(segments, facts);
  return facts;
}

/**
 * The candidates with some amount within their caps (institution, amount, non-flexible limit). Their
 * bounds of value(k)/k are those of all their segments: still bounds on the part within the caps.
 */
function prepare(problem: PlanProblem): Cand[] {
  const out: Cand[] = [];
  problem.candidates.forEach((src, index) => {
    const facts = factsOf(src.segments);
    if (facts.segs.length === 0) return;
    const limit = problem.groupLimits[src.group] ?? 0;
    const cap = Math.min(limit, problem.total, src.flexible ? Infinity : problem.maxNonFlexible);
    const lo = facts.segs[0]!.lo;
    const top = facts.segs[facts.segs.length - 1]!.hi;
    if (lo > cap) return;
    const only = problem.placementOnly === true;
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
function segmentsOf(c: Cand, placementOnly: boolean): void {
  if (placementOnly) {
    const whole: PlanSegment = { lo: c.lo, hi: c.hi, slope: ZERO, intercept: ZERO, exact: true };
    c.segs = [{ src: whole, lo: c.lo, hi: c.hi, slope: 0, intercept: 0 }];
  } else {
    const all = factsOf(c.src.segments).segs;
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
function dominates(j: Cand, i: Cand): boolean {
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
function absorbs(j: Cand, i: Cand): boolean {
  return j.constantSlope !== null && j.reachesCap && dominates(j, i);
}

/**
 * Removes every candidate that one offer absorbs, or that at least maxParts others dominate: a plan has
 * at most maxParts parts, so one of those others is unused and takes the dominated part at no loss.
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

/** A stretch of amounts and the most each of its units could earn, for the bounds. */
interface Item {
  slope: number;
  width: number;
  group: number;
  flexible: boolean;
  /** A stretch of a part already chosen (else of candidates still open, which new parts must hold). */
  chosen?: boolean;
  /** The candidate's index, for an open one. */
  cand?: number;
  /**
   * A candidate's first stretch when its minimum is above one unit: a part holds none of it or at least
   * this many units (the bound takes it whole or not at all where it would take less).
   */
  floor?: number;
}

const NO_ITEMS: readonly Item[] = [];

/**
 * The upper concave envelope of a candidate's bound through (0, 0): its lines' ends are the points, the
 * envelope's steps (slope per unit, width) are the items. Any part of the candidate earns at most the
 * envelope at its amount; parts of several candidates together at most the merged steps (the max-plus
 * convolution of concave functions), whatever their number.
 */
function envelope(c: Cand): Item[] {
  const xs: number[] = [0];
  const ys: number[] = [0];
  for (const s of c.segs) {
    for (const x of s.lo === s.hi ? [s.lo] : [s.lo, s.hi]) {
      const y = s.slope * x + s.intercept;
      // upper hull, left to right: drop the last point while it lies below the chord to the new one
      while (xs.length >= 2) {
        const k = xs.length - 1;
        if ((ys[k]! - ys[k - 1]!) * (x - xs[k - 1]!) > (y - ys[k - 1]!) * (xs[k]! - xs[k - 1]!)) break;
        xs.pop();
        ys.pop();
      }
      xs.push(x);
      ys.push(y);
    }
  }
  const items: Item[] = [];
  for (let k = 1; k < xs.length; k++) {
    const width = xs[k]! - xs[k - 1]!;
    const floor = k === 1 && c.lo > 1 ? Math.min(c.lo, width) : undefined;
    items.push({
      slope: up((ys[k]! - ys[k - 1]!) / width),
      width,
      group: c.group,
      flexible: c.flexible,
      cand: c.index,
      ...(floor ? { floor } : {}),
    });
  }
  return items;
}

/** Steps of one institution's candidates (each kind steepest first), each kind cut at its limit, merged. */
function cutAndMerge(fixed: readonly Item[], flexible: readonly Item[], limit: number): Item[] {
  const out: Item[] = [];
  for (const steps of [fixed, flexible]) {
    let left = limit;
    for (const step of steps) {
      if (left <= 0) break;
      out.push(step.width <= left ? step : { ...step, width: left });
      left -= step.width;
    }
  }
  return out.sort((a, b) => b.slope - a.slope);
}

/** Inserts steps into a list kept steepest first. */
function insertSteps(list: Item[], steps: readonly Item[]): void {
  for (const step of steps) {
    let k = list.length;
    while (k > 0 && list[k - 1]!.slope < step.slope) k--;
    list.splice(k, 0, step);
  }
}

const better = (placed: number, value: Decimal, bestPlaced: number, bestValue: Decimal) =>
  placed > bestPlaced || (placed === bestPlaced && compareDecimals(value, bestValue) > 0);

export function optimizePlan(problem: PlanProblem): PlanSolution {
  const { groupLimits, maxParts } = problem;
  const total = Math.max(0, problem.total);
  const maxNonFlexible = Math.max(0, Math.min(problem.maxNonFlexible, total));
  const all = prepare({ ...problem, total, maxNonFlexible });
  const stats: PlanStats = { candidates: all.length, kept: 0, nodes: 0, leaves: 0, refinements: 0, work: 0 };
  let bestPlaced = 0;
  let bestValue = ZERO;
  let bestParts: PlanPart[] = [];
  if (total === 0 || maxParts < 1 || all.length === 0)
    return { parts: [], placed: 0, value: ZERO, proven: true, gap: 0, stats };

  const cands = removeDominated(all, maxParts);
  stats.kept = cands.length;
  for (const c of cands) segmentsOf(c, problem.placementOnly === true);

  // Institutions in order of the best yield they could offer, and within one its offers likewise: the
  // search meets good plans first, and good plans make the bounds cut early.
  const groupBest = new Map<number, number>();
  for (const c of cands) groupBest.set(c.group, Math.max(groupBest.get(c.group) ?? -Infinity, c.yieldHi));
  const groups = [...groupBest.keys()].sort((a, b) => groupBest.get(b)! - groupBest.get(a)! || a - b);
  const rank = new Map(groups.map((g, r) => [g, r]));
  cands.sort((a, b) => rank.get(a.group)! - rank.get(b.group)! || b.yieldHi - a.yieldHi || a.index - b.index);
  const n = cands.length;
  const G = groupLimits.length;

  // What the candidates not yet decided could add, for the bounds: per institution, the merged upper
  // concave envelopes of its candidates (envelope()), cut at its limit. Per position i: those of i's
  // institution from i on; per institution rank r: those of the institutions after it, steepest first.
  const suffixItems: Item[][] = new Array(n);
  const whole: Item[][] = [];
  {
    let fixed: Item[] = [];
    let flexible: Item[] = [];
    for (let i = n - 1; i >= 0; i--) {
      const c = cands[i]!;
      if (i === n - 1 || cands[i + 1]!.group !== c.group) {
        fixed = [];
        flexible = [];
      }
      insertSteps(c.flexible ? flexible : fixed, c.steps);
      suffixItems[i] = cutAndMerge(fixed, flexible, groupLimits[c.group]!);
      if (i === 0 || cands[i - 1]!.group !== c.group) whole[rank.get(c.group)!] = suffixItems[i]!;
    }
  }
  const later: Item[][] = [];
  /** Per rank r, what the institutions after it could place: within their limits, per kind. */
  const laterCaps: { group: number; flexible: number; fixed: number }[] = [];
  {
    for (let r = 0; r <= groups.length; r++)
      later.push(
        whole
          .slice(r)
          .flat()
          .sort((a, b) => b.slope - a.slope),
      );
    const caps = { group: 0, flexible: 0, fixed: 0 };
    laterCaps[groups.length] = { ...caps };
    for (let r = groups.length - 1; r >= 0; r--) {
      const items = whole[r]!;
      const width = items.reduce((sum, it) => sum + it.width, 0);
      caps.group += Math.min(groupLimits[groups[r]!]!, width);
      for (const it of items) {
        if (it.flexible) caps.flexible += it.width;
        else caps.fixed += it.width;
      }
      laterCaps[r] = { ...caps };
    }
  }
  // Per position i: Σ of the m largest amounts among candidates i.., for m = 0..maxParts; of all of them,
  // of the flexible ones and of the others.
  const K = maxParts;
  const topSums = (keep: (c: Cand) => boolean): Float64Array => {
    const sums = new Float64Array((n + 1) * (K + 1));
    let top: number[] = [];
    for (let i = n; i >= 0; i--) {
      if (i < n && keep(cands[i]!)) {
        top.push(cands[i]!.hi);
        top.sort((a, b) => b - a);
        if (top.length > K) top = top.slice(0, K);
      }
      let sum = 0;
      for (let m = 1; m <= K; m++) {
        sum += top[m - 1] ?? 0;
        sums[i * (K + 1) + m] = sum;
      }
    }
    return sums;
  };
  const topSum = topSums(() => true);
  const reserved = maxNonFlexible < total;
  const topFlexible = reserved ? topSums((c) => c.flexible) : topSum;
  const topFixed = reserved ? topSums((c) => !c.flexible) : topSum;

  // Search state.
  const chosen: Chosen[] = [];
  const groupLo = new Float64Array(G);
  let sumLo = 0;
  let sumLoFixed = 0;
  // Scratch for the bound.
  const stamp = new Int32Array(G);
  // Per candidate (by its index in the problem): the greedy run that last took from it.
  const candRun = new Int32Array(problem.candidates.length);
  let greedyRuns = 0;
  // Positions in the search order, steepest first step first (countBound stops where none can gain).
  const bySteepest = cands.map((_, j) => j).sort((a, b) => cands[b]!.steps[0]!.slope - cands[a]!.steps[0]!.slope);
  const scratchRoom = new Float64Array(G);
  const scratchCap = new Float64Array(G);
  const scratchExtra = new Float64Array(G);
  let stampNow = 0;
  const touched: number[] = [];

  /** A bound of every completion of the current choice: the most it places, and the most it earns doing so. */
  interface Bound {
    placed: number;
    value: number;
    /** Above the floating-point error of `value`. */
    margin: number;
  }

  /** Whether no completion with this bound can beat the best plan (more placed, or as much and more earned). */
  const prunable = (b: Bound) =>
    b.placed < bestPlaced ||
    (b.placed === bestPlaced &&
      (problem.placementOnly === true || b.value + b.margin <= bestValueFloat + EPSILON_FLOAT));

  const chosenItems: Item[] = [];

  // The lists the bound's greedy merges ("streams"), each sorted steepest first: the chosen parts' rest,
  // the current institution's open candidates, the later institutions'. Split by kind when the
  // non-flexible limit is priced in (its multiplier lowers the non-flexible ones only, which would
  // break a mixed list's order).
  const MAX_STREAMS = 6;
  const streamItems: (readonly Item[])[] = [];
  const streamOpen: boolean[] = [];
  const streamFixed: boolean[] = [];
  const streamAt = new Int32Array(MAX_STREAMS);
  const split = new WeakMap<readonly Item[], { flexible: Item[]; fixed: Item[] }>();
  const splitOf = (items: readonly Item[]) => {
    let parts = split.get(items);
    if (!parts)
      split.set(
        items,
        (parts = { flexible: items.filter((it) => it.flexible), fixed: items.filter((it) => !it.flexible) }),
      );
    return parts;
  };
  function setStreams(current: readonly Item[], rest: readonly Item[], byKind: boolean): void {
    streamItems.length = 0;
    streamOpen.length = 0;
    streamFixed.length = 0;
    const add = (items: readonly Item[], open: boolean, fixed: boolean) => {
      if (items.length === 0) return;
      streamItems.push(items);
      streamOpen.push(open);
      streamFixed.push(fixed);
    };
    if (!byKind) {
      add(chosenItems, false, false);
      add(current, true, false);
      add(rest, true, false);
      return;
    }
    // The chosen parts' list is made per bound; the others are fixed lists, split once.
    add(
      chosenItems.filter((it) => it.flexible),
      false,
      false,
    );
    add(
      chosenItems.filter((it) => !it.flexible),
      false,
      true,
    );
    for (const items of [current, rest]) {
      const { flexible, fixed } = splitOf(items);
      add(flexible, true, false);
      add(fixed, true, true);
    }
  }

  interface Greedy {
    value: number;
    abs: number;
    /** The (lowered) slope of the last open stretch taken. */
    lastOpen: number;
    openUsed: number;
    fixedUsed: number;
    /** An open first stretch taken in part, below its candidate's minimum (the last one). */
    short: Item | null;
    /** Open candidates it took from: the new parts it makes. */
    newParts: number;
  }

  /**
   * Steepest first within each institution's room: the most Σ slope·take placing exactly `need` more,
   * the open candidates' slopes lowered by mu (a Lagrange multiplier of "new parts hold at most newCap")
   * and the non-flexible ones by lambda (one of "non-flexible parts hold at most what the flexible
   * reserve leaves"). Institutions inside the total are nested limits, so this greedy order is optimal
   * for them; for any mu, lambda ≥ 0 the result plus mu·newCap plus lambda·(the non-flexible room) is
   * an upper bound of the plan with both limits kept (weak duality). `without`: a candidate left out;
   * `forced`: a first stretch whose floor is taken before anything else.
   */
  function greedy(
    need: number,
    mu: number,
    lambda: number,
    newCap: number,
    without = -1,
    forced: Item | null = null,
  ): Greedy {
    stampNow++;
    let value = 0;
    let abs = 0;
    let lastOpen = -Infinity;
    let openUsed = 0;
    let fixedUsed = 0;
    let short: Item | null = null;
    let forcedTaken = 0;
    let newParts = 0;
    const run = ++greedyRuns;
    const take = (it: Item, units: number, slope: number) => {
      scratchRoom[it.group] = scratchRoom[it.group]! - units;
      need -= units;
      value += units * slope;
      abs += Math.abs(units * slope);
      if (!it.flexible) fixedUsed += units;
      if (!it.chosen) {
        openUsed += units;
        lastOpen = slope;
        if (it.cand !== undefined && candRun[it.cand] !== run) {
          candRun[it.cand] = run;
          newParts++;
        }
      }
    };
    const roomOf = (g: number) => {
      if (stamp[g] !== stampNow) {
        stamp[g] = stampNow;
        scratchRoom[g] = groupLimits[g]! - groupLo[g]!;
      }
      return scratchRoom[g]!;
    };
    if (forced) {
      forcedTaken = Math.min(forced.floor ?? forced.width, forced.width, roomOf(forced.group), need);
      take(forced, forcedTaken, forced.slope - mu - (forced.flexible ? 0 : lambda));
    }
    const streams = streamItems.length;
    streamAt.fill(0);
    while (need > 0) {
      // the steepest head of the streams, each lowered by its multipliers
      let pick = -1;
      let slope = -Infinity;
      for (let k = 0; k < streams; k++) {
        const items = streamItems[k]!;
        const at = streamAt[k]!;
        if (at >= items.length) continue;
        const s = items[at]!.slope - (streamOpen[k] ? mu : 0) - (streamFixed[k] ? lambda : 0);
        if (pick < 0 || s > slope) {
          pick = k;
          slope = s;
        }
      }
      if (pick < 0) break;
      stats.work += streams;
      const it = streamItems[pick]![streamAt[pick]!++]!;
      if (it.cand === without && without >= 0) continue;
      const width = it === forced ? it.width - forcedTaken : it.width;
      const units = Math.min(width, roomOf(it.group), need, it.chosen || mu > 0 ? Infinity : newCap - openUsed);
      if (units <= 0) continue;
      if (it.floor !== undefined && it !== forced && units < it.floor) short = it;
      take(it, units, slope);
    }
    return { value: need > 0 ? Infinity : value, abs, lastOpen, openUsed, fixedUsed, short, newParts };
  }

  /**
   * A bound that keeps the number of new parts, where the greedy's bound makes more of them than m (it
   * takes the steep first stretches of many offers: promotions and first tiers for small balances): the
   * amount is priced instead (pi per unit, plus pi·need), so that the open candidates no longer share
   * it, and each earns on its own at most its gain (its envelope less pi per unit, within its
   * institution's room: nothing, or from its minimum up). The m largest gains, what the chosen parts'
   * rest earns at that price within their institutions' room, pi·need and lambda·fixedRoom bound every
   * completion (parts sharing a room earn at most what each earns alone). The smallest over pi, found by
   * bisection.
   */
  function countBound(
    i: number,
    m: number,
    need: number,
    lambda: number,
    fixedRoom: number,
  ): { value: number; abs: number } {
    const adjusted = (it: Item) => it.slope - (it.flexible ? 0 : lambda);
    const chosenByGain = [...chosenItems].sort((a, b) => adjusted(b) - adjusted(a));
    const top = new Float64Array(m);
    const topUnits = new Float64Array(m);
    const at = (pi: number) => {
      let value = pi * need + lambda * fixedRoom;
      let abs = Math.abs(pi * need) + Math.abs(lambda * fixedRoom);
      let units = 0;
      stampNow++;
      for (const it of chosenByGain) {
        const gain = adjusted(it) - pi;
        if (gain <= 0) break;
        const g = it.group;
        if (stamp[g] !== stampNow) {
          stamp[g] = stampNow;
          scratchRoom[g] = groupLimits[g]! - groupLo[g]!;
        }
        const t = Math.min(it.width, scratchRoom[g]!);
        if (t <= 0) continue;
        scratchRoom[g] = scratchRoom[g]! - t;
        value += t * gain;
        abs += Math.abs(t * it.slope);
        units += t;
      }
      top.fill(0);
      topUnits.fill(0);
      for (const j of bySteepest) {
        const c = cands[j]!;
        if (c.steps[0]!.slope - pi <= 0) break; // the rest earn even less per unit
        stats.work += c.steps.length;
        if (j < i) continue;
        const cap = Math.min(c.hi, groupLimits[c.group]! - groupLo[c.group]!);
        if (cap < c.lo) continue;
        let x = 0;
        let y = 0;
        let best = 0;
        let bestUnits = 0;
        for (const step of c.steps) {
          const w = Math.min(step.width, cap - x);
          if (w <= 0) break;
          const gain = step.slope - (c.flexible ? 0 : lambda) - pi;
          if (c.lo > x && c.lo <= x + w && y + (c.lo - x) * gain > best) {
            best = y + (c.lo - x) * gain;
            bestUnits = c.lo;
          }
          y += w * gain;
          x += w;
          if (x >= c.lo && y > best) {
            best = y;
            bestUnits = x;
          }
          if (gain <= 0 && x >= c.lo) break;
        }
        if (best <= top[m - 1]!) continue;
        let k = m - 1;
        while (k > 0 && top[k - 1]! < best) {
          top[k] = top[k - 1]!;
          topUnits[k] = topUnits[k - 1]!;
          k--;
        }
        top[k] = best;
        topUnits[k] = bestUnits;
      }
      for (let k = 0; k < m; k++) {
        value += top[k]!;
        abs += Math.abs(top[k]!) + Math.abs(pi * topUnits[k]!);
        units += topUnits[k]!;
      }
      return { value, abs, units };
    };
    let lo = -1;
    let hi = 1;
    for (const it of chosenItems) hi = Math.max(hi, it.slope + 1);
    for (const j of bySteepest) if (j >= i) hi = Math.max(hi, cands[j]!.steps[0]!.slope + 1);
    let best = { value: Infinity, abs: 0 };
    for (let step = 0; step < PI_STEPS; step++) {
      const mid = (lo + hi) / 2;
      const r = at(mid);
      if (r.value < best.value) best = r;
      if (r.units > need) lo = mid;
      else hi = mid;
    }
    return best;
  }

  /** Bisection steps for the non-flexible multiplier: any value gives a bound, these get close to the best. */
  const LAMBDA_STEPS = 16;
  /** Bisection steps for the price of the amount in `countBound`. */
  const PI_STEPS = 24;

  /** The bound of the current choice with the candidates from position i on still open. */
  function evaluate(i: number): Bound {
    stats.nodes++;
    stats.work += WORK_PER_BOUND;
    const m = maxParts - chosen.length;
    const open = m > 0 && i < n;
    const current = open ? suffixItems[i]! : NO_ITEMS;
    const r = open ? rank.get(cands[i]!.group)! + 1 : groups.length;
    const rest = open ? later[r]! : NO_ITEMS;
    chosenItems.length = 0;
    let forced = 0;
    let forcedAbs = 0;
    for (const { seg, cand } of chosen) {
      const v = seg.slope * seg.lo + seg.intercept;
      forced += v;
      forcedAbs += Math.abs(v);
      chosenItems.push({
        slope: seg.slope,
        width: seg.hi - seg.lo,
        group: cand.group,
        flexible: cand.flexible,
        chosen: true,
      });
    }
    chosenItems.sort((x, y) => y.slope - x.slope);

    // How much more could be placed: within every institution's room, within m new parts, within the
    // non-flexible limit, within the amount. Institutions after the current one are untouched: their
    // share is tallied once, in laterCaps.
    stampNow++;
    touched.length = 0;
    let chosenExtra = 0;
    const tally = (items: readonly Item[], extra: boolean) => {
      for (const it of items) {
        const g = it.group;
        if (stamp[g] !== stampNow) {
          stamp[g] = stampNow;
          scratchRoom[g] = groupLimits[g]! - groupLo[g]!;
          scratchCap[g] = 0;
          scratchExtra[g] = 0;
          touched.push(g);
        }
        scratchCap[g] = scratchCap[g]! + it.width;
        if (extra) scratchExtra[g] = scratchExtra[g]! + it.width;
      }
    };
    tally(chosenItems, true);
    tally(current, false);
    let groupCap = laterCaps[r]!.group;
    let flexCap = laterCaps[r]!.flexible;
    let fixedCap = laterCaps[r]!.fixed;
    for (const g of touched) {
      groupCap += Math.min(scratchRoom[g]!, scratchCap[g]!);
      chosenExtra += Math.min(scratchRoom[g]!, scratchExtra[g]!);
    }
    for (const it of chosenItems) {
      if (it.flexible) flexCap += it.width;
      else fixedCap += it.width;
    }
    for (const it of current) {
      if (it.flexible) flexCap += it.width;
      else fixedCap += it.width;
    }
    // at most m new parts, each at most its candidate's largest amount
    const newCap = open ? topSum[i * (K + 1) + Math.min(m, K)]! : 0;
    const classCap = flexCap + Math.min(maxNonFlexible - sumLoFixed, fixedCap);
    const placed = sumLo + Math.max(0, Math.min(total - sumLo, groupCap, chosenExtra + newCap, classCap));
    if (problem.placementOnly) return { placed, value: 0, margin: 0 };

    // The most it earns placing that much: without the part count and the non-flexible limit (nested
    // limits, greedy optimal), then with each priced in where the greedy breaks it (weak duality: for
    // every mu, lambda ≥ 0 the priced greedy plus mu·newCap plus lambda·fixedRoom is a bound too). The
    // smallest of those.
    const need = placed - sumLo;
    const fixedRoom = maxNonFlexible - sumLoFixed;
    const priced = pricedFixed(need, fixedRoom, current, rest);
    let best = priced.best;
    let bound = priced.value;
    const { lambda } = priced;
    let mu = 0;
    if (best.openUsed > newCap) {
      const capped = greedy(need, 0, lambda, newCap);
      // the price at which new parts stop beating the chosen ones: the last open slope the capped greedy
      // took against the best chosen slope it left (any mu ≥ 0 is valid; this one is usually tight)
      let leftChosen = -Infinity;
      for (const it of chosenItems) {
        const s = it.slope - (it.flexible ? 0 : lambda);
        if (s < capped.lastOpen && s > leftChosen) leftChosen = s;
      }
      const price = Math.max(0, capped.lastOpen - (leftChosen === -Infinity ? capped.lastOpen : leftChosen));
      if (price > 0) {
        const withPrice = greedy(need, price, lambda, Infinity);
        if (withPrice.value + price * newCap + lambda * fixedRoom < bound) {
          best = withPrice;
          mu = price;
          bound = withPrice.value + price * newCap + lambda * fixedRoom;
        }
      }
    }
    let abs = best.abs + mu * newCap + lambda * Math.abs(fixedRoom);
    // A first stretch taken in part, below its candidate's minimum: no plan holds that. A plan leaves the
    // candidate out, or holds at least its minimum; the larger of the two bounds is a bound.
    if (best.short !== null && open) {
      const short = best.short;
      const without = greedy(need, mu, lambda, Infinity, short.cand);
      const whole = greedy(need, mu, lambda, Infinity, -1, short);
      const either = Math.max(without.value, whole.value) + mu * newCap + lambda * fixedRoom;
      if (either < bound) {
        bound = either;
        abs = Math.max(without.abs, whole.abs) + mu * newCap + lambda * Math.abs(fixedRoom);
      }
    }
    if (open && best.newParts > m && need > 0) {
      const counted = countBound(i, m, need, lambda, fixedRoom);
      if (counted.value < bound) {
        bound = counted.value;
        abs = counted.abs;
      }
    }
    if (!open || lambda === 0)
      return { placed, value: forced + bound, margin: (forcedAbs + abs + Math.abs(bestValueFloat)) * FLOAT_MARGIN };

    // The non-flexible limit binds, and new parts are of one kind or the other: m new parts are mX
    // flexible ones and m − mX others, each kind holding at most its mX (or m − mX) largest amounts. A
    // plan is one of these splits, so the largest of their bounds is a bound, often much tighter: a
    // reserve that needs two flexible parts leaves the others one part fewer.
    let chosenFlexible = 0;
    let chosenFixed = 0;
    for (const it of chosenItems) {
      if (it.flexible) chosenFlexible += it.width;
      else chosenFixed += it.width;
    }
    const openFlexible = flexCap - chosenFlexible;
    const openFixed = fixedCap - chosenFixed;
    const row = i * (K + 1);
    let splitPlaced = -1;
    for (let mx = 0; mx <= m; mx++) splitPlaced = Math.max(splitPlaced, splitPlacement(mx));
    if (splitPlaced < bestPlaced) return { placed: splitPlaced, value: -Infinity, margin: 0 };
    // The bound of a split grows with the room it leaves the non-flexible parts, so the largest over the
    // splits that can place that much is the bound of the one that leaves them the most.
    let fixedLimit = -Infinity;
    for (let mx = 0; mx <= m; mx++) {
      if (splitPlacement(mx) < splitPlaced) continue;
      fixedLimit = Math.max(
        fixedLimit,
        Math.min(fixedRoom, chosenFixed + Math.min(openFixed, topFixed[row + m - mx]!)),
      );
    }
    const split = pricedFixed(splitPlaced - sumLo, fixedLimit, current, rest);
    const splitValue = split.value;
    abs = Math.max(abs, split.best.abs + split.lambda * Math.abs(fixedLimit));
    const value = splitPlaced < placed ? splitValue : Math.min(bound, splitValue);
    return {
      placed: splitPlaced,
      value: forced + value,
      margin: (forcedAbs + abs + Math.abs(bestValueFloat)) * FLOAT_MARGIN,
    };

    function splitPlacement(mx: number): number {
      const newFlexible = topFlexible[row + mx]!;
      const newFixed = topFixed[row + m - mx]!;
      const flexible = chosenFlexible + Math.min(openFlexible, newFlexible);
      const fixed = Math.min(fixedRoom, chosenFixed + Math.min(openFixed, newFixed));
      return sumLo + Math.max(0, Math.min(placed - sumLo, chosenExtra + newFlexible + newFixed, flexible + fixed));
    }
  }

  /**
   * The most Σ slope·take placing exactly `need` more with at most `fixedLimit` of it in non-flexible
   * parts: the greedy, and where it breaks the limit the greedy with the non-flexible slopes lowered by
   * lambda, plus lambda·fixedLimit, lambda found by bisection (any lambda ≥ 0 gives a bound, the
   * bisection gets close to the smallest). Leaves the streams set for `greedy` with that lambda.
   */
  function pricedFixed(
    need: number,
    fixedLimit: number,
    current: readonly Item[],
    rest: readonly Item[],
  ): { value: number; best: Greedy; lambda: number } {
    setStreams(current, rest, false);
    let best = greedy(need, 0, 0, Infinity);
    if (best.fixedUsed <= fixedLimit) return { value: best.value, best, lambda: 0 };
    setStreams(current, rest, true);
    // lambda between 0 (too much non-flexible) and the spread of slopes (non-flexible last)
    let top = -Infinity;
    let bottom = Infinity;
    for (let k = 0; k < streamItems.length; k++) {
      const items = streamItems[k]!;
      if (streamFixed[k]) top = Math.max(top, items[0]!.slope);
      else bottom = Math.min(bottom, items[items.length - 1]!.slope);
    }
    let lo = 0;
    let hi = Math.max(0, top - bottom) * (1 + 1e-9) + 1e-12;
    let value = best.value;
    let lambda = 0;
    for (let step = 0; step < LAMBDA_STEPS; step++) {
      const mid = (lo + hi) / 2;
      const g = greedy(need, 0, mid, Infinity);
      if (g.value + mid * fixedLimit < value) {
        best = g;
        lambda = mid;
        value = g.value + mid * fixedLimit;
      }
      if (g.fixedUsed > fixedLimit) lo = mid;
      else hi = mid;
    }
    return { value, best, lambda };
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
  function leaf(first: { cand: Cand; seg: PlanSegment }[]): void {
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
      const x = solvePlanLp(lp, { groupLimits, total, maxNonFlexible });
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
        bestParts = parts
          .map(({ cand }, p) => ({ candidate: cand.index, units: x[p]!, value: values[p]! }))
          .sort((a, b) => a.candidate - b.candidate);
      }
      if (
        worst < 0 ||
        !better(placed, bound, bestPlaced, bestValue) ||
        compareDecimals(bound.minus(value), EPSILON) <= 0
      )
        continue;
      // The bound of this choice is above the best plan by more than EPSILON, and part of that is the
      // bound of a segment (a curve, or no closed form) at the amount chosen: split the segment and solve
      // each piece. At the amount chosen when it lies in the middle half of the segment, else in the
      // middle: a choice stuck at one end would otherwise shave off one unit per split.
      const { cand, seg } = parts[worst]!;
      const at = x[worst]!;
      const quarter = (seg.hi - seg.lo) / 4;
      const split = at - seg.lo >= quarter && seg.hi - at >= quarter ? at : Math.floor((seg.lo + seg.hi) / 2);
      const pieces = refine(cand, seg, split);
      // The rest of the search sees the pieces too (tighter bounds for every choice with this candidate).
      const k = cand.segs.findIndex((s) => s.src === seg);
      if (k >= 0) {
        const fresh: Seg[] = [];
        for (const piece of pieces) {
          const lo = Math.max(1, piece.lo);
          const hi = Math.min(piece.hi, cand.hi);
          if (lo <= hi)
            fresh.push({ src: piece, lo, hi, slope: piece.slope.toNumber(), intercept: piece.intercept.toNumber() });
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

  const apply = (cand: Cand, seg: Seg, sign: 1 | -1) => {
    groupLo[cand.group] = groupLo[cand.group]! + sign * seg.lo;
    sumLo += sign * seg.lo;
    if (!cand.flexible) sumLoFixed += sign * seg.lo;
  };

  /**
   * A first plan, so that the search has something to beat from its root: the best candidate of each
   * institution in turn from each list (at most its number of parts from each), in the segment that
   * earns most on what is left, until the amount or the parts run out; the amounts then solved exactly.
   */
  function seed(lists: readonly (readonly [readonly Cand[], number])[]): void {
    const parts: { cand: Cand; seg: PlanSegment }[] = [];
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
    if (parts.length > 0) leaf(parts);
  }

  /** The bound's value of k units (k within the candidate's segments), in floating point. */
  const valueAt = (c: Cand, k: number): number => {
    const seg = c.segs.find((sg) => sg.lo <= k && k <= sg.hi);
    return seg ? seg.slope * k + seg.intercept : -Infinity;
  };

  /**
   * First plans: the best offer of each institution in turn, by the bound of its yield and by what it
   * earns per euro when full; with a flexible reserve also, for each
   * number of flexible parts, that many of the best flexible offers and then the best others (the
   * best offers are often deposits, and deposits alone leave the reserve unplaced).
   */
  function seeds(): void {
    seed([[cands, maxParts]]);
    // by what they earn per euro when full (a yield bound can be high for a small amount only)
    const full = new Map(cands.map((c) => [c, valueAt(c, c.hi) / c.hi]));
    const byYield = [...cands].sort((a, b) => full.get(b)! - full.get(a)! || a.index - b.index);
    seed([[byYield, maxParts]]);
    if (!reserved) return;
    const flexible = byYield.filter((c) => c.flexible);
    const fixed = byYield.filter((c) => !c.flexible);
    for (let mx = 1; mx <= Math.min(maxParts, flexible.length); mx++)
      seed([
        [flexible, mx],
        [fixed, maxParts],
        [flexible, maxParts],
      ]);
  }

  /**
   * A choice still to explore: its parts (a chain through `parent`, so that a node costs the same
   * whatever its depth), the first candidate a next part may come from, and the bound of every plan it
   * leads to. `done`: no part is to be added, only its amounts to be solved.
   */
  interface Node {
    parent: Node | null;
    part: Chosen | null;
    depth: number;
    i: number;
    bound: Bound;
    done: boolean;
    /** Creation order: among equal bounds, the newest first (deeper, so complete plans come sooner). */
    seq: number;
  }

  /** Best bound first: more placed, then more earned. */
  const before = (x: Node, y: Node) =>
    x.bound.placed !== y.bound.placed
      ? x.bound.placed > y.bound.placed
      : x.bound.value !== y.bound.value
        ? x.bound.value > y.bound.value
        : x.seq > y.seq;
  const heap: Node[] = [];
  let seq = 0;
  function push(node: Omit<Node, 'seq'>): void {
    pushNode({ ...node, seq: seq++ });
  }
  function pushNode(item: Node): void {
    let k = heap.push(item) - 1;
    while (k > 0) {
      const up = (k - 1) >> 1;
      if (!before(item, heap[up]!)) break;
      heap[k] = heap[up]!;
      k = up;
    }
    heap[k] = item;
  }
  function pop(): Node | undefined {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      let k = 0;
      for (;;) {
        const l = 2 * k + 1;
        if (l >= heap.length) break;
        const c = l + 1 < heap.length && before(heap[l + 1]!, heap[l]!) ? l + 1 : l;
        if (!before(heap[c]!, last)) break;
        heap[k] = heap[c]!;
        k = c;
      }
      heap[k] = last;
    }
    return top;
  }

  /** Makes the search state (chosen, groupLo, sums) that of a node. */
  function enter(node: Node): void {
    while (chosen.length > 0) {
      const { cand, seg } = chosen.pop()!;
      apply(cand, seg, -1);
    }
    for (let at: Node | null = node; at !== null && at.part !== null; at = at.parent) chosen.push(at.part);
    chosen.reverse();
    for (const { cand, seg } of chosen) apply(cand, seg, 1);
  }

  /**
   * The children of a node (which passed its bound): the choice with a next part (candidate j ≥ i, one of
   * its segments), and the choice as it is, each kept while its bound can beat the best plan. The most
   * promising is returned, to be explored next; the others wait in the heap.
   */
  function expand(node: Node): Node | undefined {
    enter(node);
    let dive: Node | undefined;
    const offer = (child: Omit<Node, 'seq'>) => {
      const made = { ...child, seq: seq++ };
      if (dive === undefined) dive = made;
      else if (before(made, dive)) {
        pushNode(dive);
        dive = made;
      } else pushNode(made);
    };
    const { i } = node;
    if (chosen.length < maxParts) {
      for (let j = i; j < n; j++) {
        // with the candidates before j left out: once that cannot beat the best plan, no later j can
        if (j > i && prunable(evaluate(j))) break;
        const cand = cands[j]!;
        const g = cand.group;
        for (const seg of cand.segs) {
          if (groupLo[g]! + seg.lo > groupLimits[g]! || sumLo + seg.lo > total) continue;
          if (!cand.flexible && sumLoFixed + seg.lo > maxNonFlexible) continue;
          chosen.push({ cand, seg });
          apply(cand, seg, 1);
          const bound = evaluate(j + 1);
          chosen.pop();
          apply(cand, seg, -1);
          if (!prunable(bound))
            offer({ parent: node, part: { cand, seg }, depth: node.depth + 1, i: j + 1, bound, done: false });
        }
      }
    }
    if (chosen.length > 0) {
      const bound = evaluate(n);
      if (!prunable(bound)) offer({ parent: node.parent, part: node.part, depth: node.depth, i: n, bound, done: true });
    }
    return dive;
  }

  // Best bound first, each explored choice followed at once down its most promising child ("plunging"):
  // complete plans, which prune the rest, come early, and no choice is explored whose bound is below the
  // best plan found by then.
  seeds();
  const root = evaluate(0);
  if (!prunable(root)) push({ parent: null, part: null, depth: 0, i: 0, bound: root, done: false });
  const budget = problem.maxWork ?? WORK_BUDGET;
  let left: Node | undefined;
  for (let node = pop(); node !== undefined;) {
    if (prunable(node.bound)) {
      node = pop(); // the best plan may have improved since it was made
      continue;
    }
    if (stats.work >= budget) {
      left = node;
      break;
    }
    if (node.done) {
      enter(node);
      leaf(chosen.map((c) => ({ cand: c.cand, seg: c.seg.src })));
      node = pop();
    } else node = expand(node) ?? pop();
  }
  // Out of budget: what the choices left could still earn above the best plan.
  let gap = 0;
  if (left) {
    for (const node of [left, ...heap]) {
      if (prunable(node.bound)) continue;
      gap = Math.max(
        gap,
        node.bound.placed > bestPlaced ? Infinity : node.bound.value + node.bound.margin - bestValueFloat,
      );
    }
  }
  const proven = left === undefined || gap === 0;
  if (problem.placementOnly) return { parts: bestParts, placed: bestPlaced, value: ZERO, proven, gap: 0, stats };
  // An exact segment's line and the offer's own number differ at most in the last of 34 digits: the
  // plan reports the offer's numbers.
  const parts = bestParts.map((part) => ({ ...part, value: problem.candidates[part.candidate]!.value(part.units) }));
  return {
    parts,
    placed: bestPlaced,
    value: parts.reduce((sum, part) => sum.plus(part.value), ZERO),
    proven,
    gap,
    stats,
  };
}
