// The bound of a partial plan (docs/calculation.md, "The bound"): at least what any completion of it
// places, and, placing that much, at least what any of them earns. The engine owns its scratch (rooms,
// streams, the chosen parts' stretches) and reads the partial plan and the best plan found, which the
// search keeps.
import { countBound, countScratch, type CountContext } from './count-bound.js';
import { insertSteepest, type OpenTables } from './envelope.js';
import { StreamGreedy } from './greedy.js';
import type { Incumbent } from './incumbent.js';
import type { PartialPlan } from './partial.js';
import { GroupRooms } from './rooms.js';
import type { SearchSpace } from './space.js';
import {
  FLOAT_MARGIN,
  type Bound,
  type Cand,
  type GroupOrder,
  type Item,
  type PlanLimits,
  type PlanStats,
} from './types.js';

/** What a bound costs beyond its loops' steps, in the same steps (its setup, its node in the search). */
export const WORK_PER_BOUND = 100;

const NO_ITEMS: readonly Item[] = [];

/** A chosen part's stretch, of the same shape as an open one's (`envelope`): the loops over both stay monomorphic. */
const chosenItem = (): Item => ({
  slope: 0,
  width: 0,
  group: 0,
  flexible: false,
  chosen: true,
  cand: undefined,
  floor: undefined,
});

export class BoundEngine {
  private readonly rooms: GroupRooms;
  private readonly greedy: StreamGreedy;
  private readonly count: CountContext;
  /** The chosen parts' stretches above their minimums, steepest first: made per bound. */
  private readonly chosenItems: Item[] = [];
  /**
   * The objects chosenItems holds, reused from bound to bound (nothing keeps one past its bound): a search
   * makes thousands of bounds, and their garbage was a tenth of a plan's time.
   */
  private readonly chosenPool: Item[] = [];
  /** Per institution, for the placement: the width of its stretches, and of the chosen parts' share. */
  private readonly groupCap: Float64Array;
  private readonly groupExtra: Float64Array;
  /** The institutions tallied in this bound. */
  private readonly touched: number[] = [];

  private readonly cands: readonly Cand[];
  private readonly order: GroupOrder;
  private readonly tables: OpenTables;
  private readonly limits: PlanLimits;

  constructor(
    space: SearchSpace,
    private readonly plan: PartialPlan,
    private readonly best: Incumbent,
    private readonly stats: PlanStats,
  ) {
    ({ cands: this.cands, order: this.order, tables: this.tables, limits: this.limits } = space);
    const { groupLimits } = this.limits;
    this.rooms = new GroupRooms(groupLimits, plan);
    this.greedy = new StreamGreedy(space.candidates, this.rooms, stats);
    this.count = {
      cands: this.cands,
      bySteepest: this.tables.bySteepest,
      groupLimits,
      plan,
      rooms: this.rooms,
      stats,
      ...countScratch(),
    };
    this.groupCap = new Float64Array(groupLimits.length);
    this.groupExtra = new Float64Array(groupLimits.length);
  }

  /** The bound of the partial plan with the candidates from position i on still open. */
  evaluate(i: number): Bound {
    const { cands, tables, plan, stats, chosenItems, rooms, greedy } = this;
    const { total, maxParts, maxNonFlexible } = this.limits;
    const { sumLo, sumLoFixed } = plan;
    const n = cands.length;
    const K = tables.K;
    stats.nodes++;
    stats.work += WORK_PER_BOUND;
    const m = maxParts - plan.parts.length;
    const open = m > 0 && i < n;
    const current = open ? tables.suffixItems(i) : NO_ITEMS;
    const r = open ? this.order.rank.get(cands[i]!.group)! + 1 : this.order.groups.length;
    const rest = open ? tables.later(r) : NO_ITEMS;
    const parts = plan.parts;
    chosenItems.length = 0;
    let forced = 0;
    let forcedAbs = 0;
    for (let k = 0; k < parts.length; k++) {
      const { seg, cand } = parts[k]!;
      const v = seg.slope * seg.lo + seg.intercept;
      forced += v;
      forcedAbs += Math.abs(v);
      const it = (this.chosenPool[k] ??= chosenItem());
      it.slope = seg.slope;
      it.width = seg.hi - seg.lo;
      it.group = cand.group;
      it.flexible = cand.flexible;
      insertSteepest(chosenItems, it);
    }

    // How much more could be placed: within every institution's room, within m new parts, within the
    // non-flexible limit, within the amount. Institutions after the current one are untouched: their
    // share is tallied once, in laterCaps.
    const { room } = rooms;
    const { groupCap: scratchCap, groupExtra: scratchExtra, touched } = this;
    rooms.next();
    touched.length = 0;
    let chosenExtra = 0;
    const tally = (items: readonly Item[], extra: boolean) => {
      for (const it of items) {
        const g = it.group;
        if (rooms.touch(g)) {
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
    const caps = tables.laterCaps[r]!;
    let groupCap = caps.group;
    let flexCap = caps.flexible;
    let fixedCap = caps.fixed;
    for (const g of touched) {
      groupCap += Math.min(room[g]!, scratchCap[g]!);
      chosenExtra += Math.min(room[g]!, scratchExtra[g]!);
    }
    for (const it of chosenItems) {
      if (it.flexible) flexCap += it.width;
      else fixedCap += it.width;
    }
    if (open) {
      const suffix = tables.suffixCaps(i);
      flexCap += suffix.flexible;
      fixedCap += suffix.fixed;
    }
    // at most m new parts, each at most its candidate's largest amount
    const newCap = open ? tables.topSum[i * (K + 1) + Math.min(m, K)]! : 0;
    const classCap = flexCap + Math.min(maxNonFlexible - sumLoFixed, fixedCap);
    const placed = sumLo + Math.max(0, Math.min(total - sumLo, groupCap, chosenExtra + newCap, classCap));
    if (this.limits.placementOnly) return { placed, value: 0, margin: 0 };

    // The most it earns placing that much: without the part count and the non-flexible limit (nested
    // limits, greedy optimal), then with each priced in where the greedy breaks it (weak duality: for
    // every mu, lambda ≥ 0 the priced greedy plus mu·newCap plus lambda·fixedRoom is a bound too). The
    // smallest of those.
    const need = placed - sumLo;
    const fixedRoom = maxNonFlexible - sumLoFixed;
    const priced = greedy.pricedFixed(need, fixedRoom, chosenItems, current, rest);
    let best = priced.best;
    let bound = priced.value;
    const { lambda } = priced;
    let mu = 0;
    if (best.openUsed > newCap) {
      const capped = greedy.run(need, 0, lambda, newCap);
      // the price at which new parts stop beating the chosen ones: the last open slope the capped greedy
      // took against the best chosen slope it left (any mu ≥ 0 is valid; this one is usually tight)
      let leftChosen = -Infinity;
      for (const it of chosenItems) {
        const s = it.slope - (it.flexible ? 0 : lambda);
        if (s < capped.lastOpen && s > leftChosen) leftChosen = s;
      }
      const price = Math.max(0, capped.lastOpen - (leftChosen === -Infinity ? capped.lastOpen : leftChosen));
      if (price > 0) {
        const withPrice = greedy.run(need, price, lambda, Infinity);
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
      const without = greedy.run(need, mu, lambda, Infinity, short.cand);
      const whole = greedy.run(need, mu, lambda, Infinity, -1, short);
      const either = Math.max(without.value, whole.value) + mu * newCap + lambda * fixedRoom;
      if (either < bound) {
        bound = either;
        abs = Math.max(without.abs, whole.abs) + mu * newCap + lambda * Math.abs(fixedRoom);
      }
    }
    if (open && best.newParts > m && need > 0) {
      const counted = countBound(this.count, chosenItems, i, m, need, lambda, fixedRoom);
      if (counted.value < bound) {
        bound = counted.value;
        abs = counted.abs;
      }
    }
    const bestValueFloat = this.best.valueFloat;
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
    const { topFlexible, topFixed } = tables;
    const splitPlacement = (mx: number): number => {
      const newFlexible = topFlexible[row + Math.min(mx, K)]!;
      const newFixed = topFixed[row + Math.min(m - mx, K)]!;
      const flexible = chosenFlexible + Math.min(openFlexible, newFlexible);
      const fixed = Math.min(fixedRoom, chosenFixed + Math.min(openFixed, newFixed));
      return sumLo + Math.max(0, Math.min(placed - sumLo, chosenExtra + newFlexible + newFixed, flexible + fixed));
    };
    let splitPlaced = -1;
    for (let mx = 0; mx <= m; mx++) splitPlaced = Math.max(splitPlaced, splitPlacement(mx));
    if (splitPlaced < this.best.placed) return { placed: splitPlaced, value: -Infinity, margin: 0 };
    // The bound of a split grows with the room it leaves the non-flexible parts, so the largest over the
    // splits that can place that much is the bound of the one that leaves them the most.
    let fixedLimit = -Infinity;
    for (let mx = 0; mx <= m; mx++) {
      if (splitPlacement(mx) < splitPlaced) continue;
      fixedLimit = Math.max(
        fixedLimit,
        Math.min(fixedRoom, chosenFixed + Math.min(openFixed, topFixed[row + Math.min(m - mx, K)]!)),
      );
    }
    const split = greedy.pricedFixed(splitPlaced - sumLo, fixedLimit, chosenItems, current, rest);
    const splitValue = split.value;
    abs = Math.max(abs, split.best.abs + split.lambda * Math.abs(fixedLimit));
    const value = splitPlaced < placed ? splitValue : Math.min(bound, splitValue);
    return {
      placed: splitPlaced,
      value: forced + value,
      margin: (forcedAbs + abs + Math.abs(bestValueFloat)) * FLOAT_MARGIN,
    };
  }
}
