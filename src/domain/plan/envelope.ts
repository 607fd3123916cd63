// What the candidates still open could add to a plan, for the bounds: each candidate's upper concave
// envelope as steps (slope per unit, width), one institution's merged and cut at its limit, and the
// tables the bound reads per search position (suffixes of the search order) once per search.
import { up, type Cand, type GroupOrder, type Item, type PlanLimits } from './types.js';

/**
 * The upper concave envelope of a candidate's bound through (0, 0): its lines' ends are the points, the
 * envelope's steps (slope per unit, width) are the items. Any part of the candidate earns at most the
 * envelope at its amount; parts of several candidates together at most the merged steps (the max-plus
 * convolution of concave functions), whatever their number.
 */
export function envelope(c: Cand): Item[] {
  const xs: number[] = [0];
  const ys: number[] = [0];
  for (const s of c.segs) {
    for (let end = s.lo === s.hi ? 1 : 0; end < 2; end++) {
      const x = end === 0 ? s.lo : s.hi;
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
    // every field set, in the same order, whatever the item: one shape for the bounds' loops
    items.push({
      slope: up((ys[k]! - ys[k - 1]!) / width),
      width,
      group: c.group,
      flexible: c.flexible,
      chosen: false,
      cand: c.index,
      floor: floor ? floor : undefined,
    });
  }
  return items;
}

/**
 * Steps of one institution's candidates (each kind steepest first), each kind cut, merged. A plan holds
 * at most `limit` there, but a bound that leaves one candidate out (the bound's "without") takes the next
 * steps in its place: each kind keeps its limit plus `spare` (the widest candidate of that kind).
 */
export function cutAndMerge(
  fixed: readonly Item[],
  flexible: readonly Item[],
  limit: number,
  spare: { fixed: number; flexible: number } = { fixed: 0, flexible: 0 },
): Item[] {
  const cut = (steps: readonly Item[], extra: number): Item[] => {
    const out: Item[] = [];
    let left = limit + extra;
    for (const step of steps) {
      if (left <= 0) break;
      out.push(step.width <= left ? step : { ...step, width: left });
      left -= step.width;
    }
    return out;
  };
  // each kind is steepest first already: merged, as a stable sort of the two one after the other
  return mergeSteepest(cut(fixed, spare.fixed), cut(flexible, spare.flexible));
}

/** Two lists kept steepest first, as one; of equal slopes, `a`'s first. */
export function mergeSteepest(a: readonly Item[], b: readonly Item[]): Item[] {
  const out: Item[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = b[j]!.slope > a[i]!.slope ? b[j++]! : a[i++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/**
 * Adds an item to a list kept steepest first (by `slopeOf`, its slope unless given), after those as steep:
 * the order a stable sort would give.
 */
export function insertSteepest(list: Item[], it: Item, slopeOf: (it: Item) => number = (x) => x.slope): void {
  const slope = slopeOf(it);
  let k = list.length;
  list.push(it);
  while (k > 0 && slopeOf(list[k - 1]!) < slope) {
    list[k] = list[k - 1]!;
    k--;
  }
  list[k] = it;
}

/** Inserts steps into a list kept steepest first. */
export function insertSteps(list: Item[], steps: readonly Item[]): void {
  for (const step of steps) insertSteepest(list, step);
}

/** What the institutions after a rank could place: within their limits, per kind. */
export interface LaterCaps {
  group: number;
  flexible: number;
  fixed: number;
}

/** The bound's tables over candidates in search order (see `openTables`). */
export interface OpenTables {
  /** Per position i: the steps of i's institution's candidates from i on, merged and cut (`cutAndMerge`). */
  suffixItems(i: number): Item[];
  /** Per position i: what those steps could place per kind, within the institution's limit. */
  suffixCaps(i: number): { flexible: number; fixed: number };
  /** Per institution rank r: the steps of the institutions from r on, steepest first. */
  later(r: number): Item[];
  /** Per institution rank r: what the institutions from r on could place. */
  laterCaps: LaterCaps[];
  /**
   * maxParts, or the number of candidates when that is smaller (the m largest of fewer than m are all of
   * them): the row length of the top sums is K + 1, and a reader asks for min(m, K).
   */
  K: number;
  /**
   * Per position i and m = 0..K, at [i·(K + 1) + m]: the sum of the m largest amounts among candidates
   * i.. — of all of them, of the flexible ones and of the others (the same array without a reserve).
   */
  topSum: Float64Array;
  topFlexible: Float64Array;
  topFixed: Float64Array;
  /** Positions, steepest first step first (`countBound` stops where none can gain). */
  bySteepest: number[];
}

/**
 * The tables, for candidates in search order, each with its steps (`segmentsOf`). Most searches end
 * within a node or two of the root (the seeded plan is proven best): the suffixes of positions and the
 * later institutions' steps are made when a bound first asks for them, each as the whole pass would
 * have made it.
 */
export function openTables(cands: readonly Cand[], order: GroupOrder, limits: PlanLimits): OpenTables {
  const { groupLimits } = limits;
  const { groups, rank } = order;
  const n = cands.length;
  const capsOf = (items: readonly Item[], limit: number) => {
    let flexible = 0;
    let fixed = 0;
    for (const it of items) {
      if (it.flexible) flexible += it.width;
      else fixed += it.width;
    }
    return { flexible: Math.min(limit, flexible), fixed: Math.min(limit, fixed) };
  };
  // Each institution's candidates are consecutive in search order: where each one's run ends.
  const runEnd = new Int32Array(n);
  for (let i = n - 1; i >= 0; i--)
    runEnd[i] = i === n - 1 || cands[i + 1]!.group !== cands[i]!.group ? i + 1 : runEnd[i + 1]!;
  const suffixItemsMemo: Item[][] = new Array(n);
  const suffixCapsMemo: { flexible: number; fixed: number }[] = new Array(n);
  /** Position i's steps: its institution's candidates from the run's end back to i, each kind in order. */
  const suffixItems = (i: number): Item[] => {
    let items = suffixItemsMemo[i];
    if (items) return items;
    const fixed: Item[] = [];
    const flexible: Item[] = [];
    const spare = { fixed: 0, flexible: 0 };
    for (let k = runEnd[i]! - 1; k >= i; k--) {
      const c = cands[k]!;
      insertSteps(c.flexible ? flexible : fixed, c.steps);
      const width = c.steps.reduce((sum, step) => sum + step.width, 0);
      if (c.flexible) spare.flexible = Math.max(spare.flexible, width);
      else spare.fixed = Math.max(spare.fixed, width);
    }
    const limit = groupLimits[cands[i]!.group]!;
    items = suffixItemsMemo[i] = cutAndMerge(fixed, flexible, limit, spare);
    suffixCapsMemo[i] = capsOf(items, limit);
    return items;
  };
  const suffixCaps = (i: number) => {
    if (!suffixCapsMemo[i]) suffixItems(i);
    return suffixCapsMemo[i]!;
  };
  // An institution's whole steps are its first position's.
  const whole: Item[][] = new Array(groups.length);
  for (let i = 0; i < n; i++)
    if (i === 0 || cands[i - 1]!.group !== cands[i]!.group) whole[rank.get(cands[i]!.group)!] = suffixItems(i);

  const laterCaps: LaterCaps[] = [];
  {
    const caps = { group: 0, flexible: 0, fixed: 0 };
    laterCaps[groups.length] = { ...caps };
    for (let r = groups.length - 1; r >= 0; r--) {
      const items = whole[r]!;
      const limit = groupLimits[groups[r]!]!;
      const width = items.reduce((sum, it) => sum + it.width, 0);
      caps.group += Math.min(limit, width);
      const kinds = capsOf(items, limit);
      caps.flexible += kinds.flexible;
      caps.fixed += kinds.fixed;
      laterCaps[r] = { ...caps };
    }
  }
  // Every institution's steps, steepest first, of equal slopes the earlier institution's first (a stable
  // sort of them one after the other). Rank r's list is this one without the institutions before r: a
  // stable sort's order kept by what it keeps. Merging each rank's own list into the next rank's, all
  // of them ahead of the search, was quadratic in the institutions.
  let all: Item[] | undefined;
  const laterMemo: Item[][] = new Array(groups.length + 1);
  const later = (r: number): Item[] => {
    let items = laterMemo[r];
    if (items) return items;
    if (r >= groups.length) items = [];
    else {
      all ??= whole.flat().sort((a, b) => b.slope - a.slope);
      items = r === 0 ? all : all.filter((it) => rank.get(it.group)! >= r);
    }
    return (laterMemo[r] = items);
  };
  const K = Math.min(limits.maxParts, n);
  const topSums = (keep: (c: Cand) => boolean): Float64Array => {
    const sums = new Float64Array((n + 1) * (K + 1));
    // the K largest so far, largest first (the rest 0): an insertion per candidate, no sort, no garbage
    const top = new Float64Array(K);
    for (let i = n; i >= 0; i--) {
      if (i < n && K > 0 && keep(cands[i]!)) {
        const hi = cands[i]!.hi;
        if (hi > top[K - 1]!) {
          let k = K - 1;
          while (k > 0 && top[k - 1]! < hi) {
            top[k] = top[k - 1]!;
            k--;
          }
          top[k] = hi;
        }
      }
      let sum = 0;
      for (let m = 1; m <= K; m++) {
        sum += top[m - 1]!;
        sums[i * (K + 1) + m] = sum;
      }
    }
    return sums;
  };
  const topSum = topSums(() => true);
  const reserved = limits.maxNonFlexible < limits.total;
  return {
    suffixItems,
    suffixCaps,
    later,
    laterCaps,
    K,
    topSum,
    topFlexible: reserved ? topSums((c) => c.flexible) : topSum,
    topFixed: reserved ? topSums((c) => !c.flexible) : topSum,
    bySteepest: cands.map((_, j) => j).sort((a, b) => cands[b]!.steps[0]!.slope - cands[a]!.steps[0]!.slope),
  };
}
