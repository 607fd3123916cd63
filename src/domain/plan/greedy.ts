// The bound's core: the steepest stretches first, merged from a few lists ("streams") each sorted
// steepest first, within each institution's room, with the part count and the non-flexible limit
// priced in by Lagrange multipliers (see `run` and `pricedFixed`).
import type { GroupRooms } from './rooms.js';
import type { Item, PlanStats } from './types.js';

export interface GreedyRun {
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

export interface PricedRun {
  /** The bound: the run's value plus lambda times the non-flexible limit. */
  value: number;
  best: GreedyRun;
  lambda: number;
}

/**
 * Bisection steps for the non-flexible multiplier: any value gives a bound, these get close to the best
 * (its range spans the streams' slopes; 16 left bounds loose enough to cost 40 % more nodes on a reserve).
 */
const LAMBDA_STEPS = 20;

/** The lists merged: the chosen parts' rest, the current institution's open candidates, the later ones'. */
const MAX_STREAMS = 6;

export class StreamGreedy {
  private readonly items: (readonly Item[])[] = [];
  private readonly open: boolean[] = [];
  private readonly fixed: boolean[] = [];
  private readonly at = new Int32Array(MAX_STREAMS);
  private readonly split = new WeakMap<readonly Item[], { flexible: Item[]; fixed: Item[] }>();
  /** The chosen parts' stretches by kind, refilled by each setStreams that splits them. */
  private readonly chosenFlexible: Item[] = [];
  private readonly chosenFixed: Item[] = [];
  /** Per candidate (by its index in the problem): the run that last took from it. */
  private readonly candRun: Int32Array;
  private runs = 0;

  constructor(
    candidates: number,
    private readonly rooms: GroupRooms,
    private readonly stats: PlanStats,
  ) {
    this.candRun = new Int32Array(candidates);
  }

  private splitOf(items: readonly Item[]) {
    let parts = this.split.get(items);
    if (!parts)
      this.split.set(
        items,
        (parts = { flexible: items.filter((it) => it.flexible), fixed: items.filter((it) => !it.flexible) }),
      );
    return parts;
  }

  /**
   * Sets the streams: the chosen parts' rest (closed: new parts need not hold it), the current
   * institution's open candidates, the later institutions'. Split by kind when the non-flexible limit is
   * priced in (its multiplier lowers the non-flexible ones only, which would break a mixed list's order).
   */
  setStreams(chosen: readonly Item[], current: readonly Item[], rest: readonly Item[], byKind: boolean): void {
    this.items.length = 0;
    this.open.length = 0;
    this.fixed.length = 0;
    const add = (items: readonly Item[], open: boolean, fixed: boolean) => {
      if (items.length === 0) return;
      this.items.push(items);
      this.open.push(open);
      this.fixed.push(fixed);
    };
    if (!byKind) {
      add(chosen, false, false);
      add(current, true, false);
      add(rest, true, false);
      return;
    }
    // The chosen parts' list is made per bound; the others are fixed lists, split once.
    const { chosenFlexible, chosenFixed } = this;
    chosenFlexible.length = 0;
    chosenFixed.length = 0;
    for (const it of chosen) (it.flexible ? chosenFlexible : chosenFixed).push(it);
    add(chosenFlexible, false, false);
    add(chosenFixed, false, true);
    for (const items of [current, rest]) {
      const { flexible, fixed } = this.splitOf(items);
      add(flexible, true, false);
      add(fixed, true, true);
    }
  }

  /**
   * Steepest first within each institution's room: the most Σ slope·take placing exactly `need` more,
   * the open candidates' slopes lowered by mu (a Lagrange multiplier of "new parts hold at most newCap")
   * and the non-flexible ones by lambda (one of "non-flexible parts hold at most what the flexible
   * reserve leaves"). Institutions inside the total are nested limits, so this greedy order is optimal
   * for them; for any mu, lambda ≥ 0 the result plus mu·newCap plus lambda·(the non-flexible room) is
   * an upper bound of the plan with both limits kept (weak duality). `without`: a candidate left out;
   * `forced`: a first stretch whose floor is taken before anything else. Over the streams last set.
   */
  run(need: number, mu: number, lambda: number, newCap: number, without = -1, forced: Item | null = null): GreedyRun {
    const { rooms, stats, candRun } = this;
    const streamItems = this.items;
    const streamOpen = this.open;
    const streamFixed = this.fixed;
    const streamAt = this.at;
    const room = rooms.room;
    rooms.next();
    let value = 0;
    let abs = 0;
    let lastOpen = -Infinity;
    let openUsed = 0;
    let fixedUsed = 0;
    let short: Item | null = null;
    let forcedTaken = 0;
    let newParts = 0;
    const run = ++this.runs;
    const streams = streamItems.length;
    streamAt.fill(0);
    if (forced) forcedTaken = Math.min(forced.floor ?? forced.width, forced.width, rooms.of(forced.group), need);
    // The forced stretch's floor first, then the steepest head of the streams while need is left; each
    // taken in the loop's body (a closure that took them kept its variables on the heap: one per run).
    for (let first = forced !== null; first || need > 0; first = false) {
      let it: Item;
      let units: number;
      let slope: number;
      if (first) {
        it = forced!;
        units = forcedTaken;
        slope = it.slope - mu - (it.flexible ? 0 : lambda);
      } else {
        // the steepest head of the streams, each lowered by its multipliers
        let pick = -1;
        slope = -Infinity;
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
        it = streamItems[pick]![streamAt[pick]!++]!;
        if (it.cand === without && without >= 0) continue;
        const width = it === forced ? it.width - forcedTaken : it.width;
        units = Math.min(width, rooms.of(it.group), need, it.chosen || mu > 0 ? Infinity : newCap - openUsed);
        if (units <= 0) continue;
        if (it.floor !== undefined && it !== forced && units < it.floor) short = it;
      }
      room[it.group] = room[it.group]! - units;
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
    }
    return { value: need > 0 ? Infinity : value, abs, lastOpen, openUsed, fixedUsed, short, newParts };
  }

  /**
   * The most Σ slope·take placing exactly `need` more with at most `fixedLimit` of it in non-flexible
   * parts: the greedy, and where it breaks the limit the greedy with the non-flexible slopes lowered by
   * lambda, plus lambda·fixedLimit, lambda found by bisection (any lambda ≥ 0 gives a bound, the
   * bisection gets close to the smallest). Leaves the streams set for `run` with that lambda.
   */
  pricedFixed(
    need: number,
    fixedLimit: number,
    chosen: readonly Item[],
    current: readonly Item[],
    rest: readonly Item[],
  ): PricedRun {
    this.setStreams(chosen, current, rest, false);
    let best = this.run(need, 0, 0, Infinity);
    if (best.fixedUsed <= fixedLimit) return { value: best.value, best, lambda: 0 };
    this.setStreams(chosen, current, rest, true);
    // lambda between 0 (too much non-flexible) and the spread of slopes (non-flexible last)
    let top = -Infinity;
    let bottom = Infinity;
    for (let k = 0; k < this.items.length; k++) {
      const items = this.items[k]!;
      if (this.fixed[k]) top = Math.max(top, items[0]!.slope);
      else bottom = Math.min(bottom, items[items.length - 1]!.slope);
    }
    let lo = 0;
    let hi = Math.max(0, top - bottom) * (1 + 1e-9) + 1e-12;
    let value = best.value;
    let lambda = 0;
    for (let step = 0; step < LAMBDA_STEPS; step++) {
      const mid = (lo + hi) / 2;
      const g = this.run(need, 0, mid, Infinity);
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
}
