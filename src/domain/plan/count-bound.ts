// A bound that keeps the number of new parts, for where the greedy's bound makes more of them than are
// left (it takes the steep first stretches of many offers: promotions and first tiers for small
// balances).
import { insertSteepest } from './envelope.js';
import type { PartialPlan } from './partial.js';
import type { GroupRooms } from './rooms.js';
import type { Cand, Item, PlanStats } from './types.js';

/** Bisection steps for the price of the amount. */
const PI_STEPS = 24;

/** What `countBound` reads: the candidates in search order, the partial plan and the bound's scratch. */
export interface CountContext {
  cands: readonly Cand[];
  /** Positions in `cands`, steepest first step first. */
  bySteepest: readonly number[];
  groupLimits: readonly number[];
  plan: PartialPlan;
  rooms: GroupRooms;
  stats: PlanStats;
  /** Scratch, reused by every call: the chosen stretches by gain, the m largest gains and their units. */
  byGain: Item[];
  top: Float64Array;
  topUnits: Float64Array;
}

/** countBound's scratch, made once per search. */
export const countScratch = (): Pick<CountContext, 'byGain' | 'top' | 'topUnits'> => ({
  byGain: [],
  top: new Float64Array(0),
  topUnits: new Float64Array(0),
});

/**
 * The amount is priced (pi per unit, plus pi·need), so that the open candidates no longer share it, and
 * each earns on its own at most its gain (its envelope less pi per unit, within its institution's room:
 * nothing, or from its minimum up). The m largest gains, what the chosen parts' rest (`chosenItems`)
 * earns at that price within their institutions' room, pi·need and lambda·fixedRoom bound every
 * completion (parts sharing a room earn at most what each earns alone). The smallest over pi, found by
 * bisection. Candidates from position i on are open.
 */
export function countBound(
  ctx: CountContext,
  chosenItems: readonly Item[],
  i: number,
  m: number,
  need: number,
  lambda: number,
  fixedRoom: number,
): { value: number; abs: number } {
  const { cands, bySteepest, groupLimits, plan, rooms, stats } = ctx;
  const { groupLo } = plan;
  const room = rooms.room;
  const adjusted = (it: Item) => it.slope - (it.flexible ? 0 : lambda);
  // chosenItems is steepest first: by gain the same order unless lambda lowers some (a stable sort's)
  let chosenByGain: readonly Item[] = chosenItems;
  if (lambda !== 0) {
    const byGain = ctx.byGain;
    byGain.length = 0;
    for (const it of chosenItems) insertSteepest(byGain, it, adjusted);
    chosenByGain = byGain;
  }
  if (ctx.top.length < m) {
    ctx.top = new Float64Array(m);
    ctx.topUnits = new Float64Array(m);
  }
  const { top, topUnits } = ctx;
  let atValue = 0;
  let atAbs = 0;
  let atUnits = 0;
  /** The bound at price pi, in atValue, atAbs and atUnits (what the open parts and the chosen take). */
  const at = (pi: number): void => {
    let value = pi * need + lambda * fixedRoom;
    let abs = Math.abs(pi * need) + Math.abs(lambda * fixedRoom);
    let units = 0;
    rooms.next();
    for (let q = 0; q < chosenByGain.length; q++) {
      const it = chosenByGain[q]!;
      const gain = adjusted(it) - pi;
      if (gain <= 0) break;
      const g = it.group;
      const t = Math.min(it.width, rooms.of(g));
      if (t <= 0) continue;
      room[g] = room[g]! - t;
      value += t * gain;
      abs += Math.abs(t * it.slope);
      units += t;
    }
    top.fill(0, 0, m);
    topUnits.fill(0, 0, m);
    for (let q = 0; q < bySteepest.length; q++) {
      const j = bySteepest[q]!;
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
      const steps = c.steps;
      for (let t = 0; t < steps.length; t++) {
        const step = steps[t]!;
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
    atValue = value;
    atAbs = abs;
    atUnits = units;
  };
  let lo = -1;
  let hi = 1;
  for (const it of chosenItems) hi = Math.max(hi, it.slope + 1);
  for (const j of bySteepest) if (j >= i) hi = Math.max(hi, cands[j]!.steps[0]!.slope + 1);
  let bestValue = Infinity;
  let bestAbs = 0;
  for (let step = 0; step < PI_STEPS; step++) {
    const mid = (lo + hi) / 2;
    at(mid);
    if (atValue < bestValue) {
      bestValue = atValue;
      bestAbs = atAbs;
    }
    if (atUnits > need) lo = mid;
    else hi = mid;
  }
  return { value: bestValue, abs: bestAbs };
}
