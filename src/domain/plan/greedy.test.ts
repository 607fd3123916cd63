import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamGreedy } from './greedy.js';
import { PartialPlan } from './partial.js';
import { GroupRooms } from './rooms.js';
import type { Item, PlanStats } from './types.js';

// Stretches of a few units: the chosen parts' rest (stream 0), the current institution's open ones
// (1), the later ones' (2); each stream steepest first, as the bound hands them over.
const itemArb = fc.record({
  slope: fc.integer({ min: -5, max: 10 }),
  width: fc.integer({ min: 1, max: 3 }),
  group: fc.integer({ min: 0, max: 1 }),
  flexible: fc.boolean(),
  stream: fc.integer({ min: 0, max: 2 }),
  cand: fc.integer({ min: 0, max: 3 }),
});
const caseArb = fc.record({
  items: fc.array(itemArb, { maxLength: 6 }),
  limits: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 2, maxLength: 2 }),
  need: fc.integer({ min: 0, max: 10 }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function setUp({ items, limits }: Case) {
  const stats: PlanStats = { candidates: 4, kept: 4, nodes: 0, leaves: 0, refinements: 0, work: 0 };
  const greedy = new StreamGreedy(4, new GroupRooms(limits, new PartialPlan(2)), stats);
  const all: Item[] = items.map(({ stream, cand, ...it }) =>
    stream === 0 ? { ...it, chosen: true } : { ...it, cand },
  );
  const stream = (k: number) => all.filter((_, j) => items[j]!.stream === k).sort((a, b) => b.slope - a.slope);
  return { greedy, stats, all, chosen: stream(0), current: stream(1), rest: stream(2) };
}

/**
 * The most Σ slope·take placing exactly `need`, each stretch within its width, each institution within
 * its limit, and the takes within `keep` (every integer split tried); −Infinity when none places `need`.
 */
function bruteForce(all: readonly Item[], limits: readonly number[], need: number, keep: (t: number[]) => boolean) {
  let best = -Infinity;
  const t = all.map(() => 0);
  const walk = (k: number, left: number) => {
    if (k === all.length) {
      if (left !== 0 || !keep(t)) return;
      const perGroup = limits.map(() => 0);
      all.forEach((it, j) => (perGroup[it.group]! += t[j]!));
      if (perGroup.some((u, g) => u > limits[g]!)) return;
      best = Math.max(
        best,
        all.reduce((s, it, j) => s + it.slope * t[j]!, 0),
      );
      return;
    }
    for (let u = 0; u <= Math.min(all[k]!.width, left); u++) {
      t[k] = u;
      walk(k + 1, left - u);
    }
    t[k] = 0;
  };
  walk(0, need);
  return best;
}

const fixedUse = (all: readonly Item[], t: number[]) => all.reduce((s, it, j) => s + (it.flexible ? 0 : t[j]!), 0);
const openUse = (all: readonly Item[], t: number[]) => all.reduce((s, it, j) => s + (it.chosen ? 0 : t[j]!), 0);
const asBound = (v: number) => (v === -Infinity ? Infinity : v); // nothing places `need`: no bound at all

describe('StreamGreedy.run', () => {
  it('property: without multipliers, the best placement of exactly `need` within the institutions’ limits', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { greedy, stats, all, chosen, current, rest } = setUp(c);
        greedy.setStreams(chosen, current, rest, false);
        const run = greedy.run(c.need, 0, 0, Infinity);
        expect(run.value).toBe(asBound(bruteForce(all, c.limits, c.need, () => true)));
        if (run.value !== Infinity) {
          const taken = new Set(all.filter((it) => !it.chosen).map((it) => it.cand));
          expect(run.newParts).toBeLessThanOrEqual(taken.size);
        }
        expect(stats.work).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it('property: with multipliers mu, lambda, plus mu·newCap and lambda·fixedRoom: a bound keeping both limits', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 10 }),
        fc.boolean(),
        (c, mu10, lambda10, newCap, fixedRoom, byKind) => {
          const [mu, lambda] = [mu10 / 4, lambda10 / 4];
          const { greedy, all, chosen, current, rest } = setUp(c);
          greedy.setStreams(chosen, current, rest, byKind || lambda > 0);
          const run = greedy.run(c.need, mu, lambda, Infinity);
          const best = bruteForce(
            all,
            c.limits,
            c.need,
            (t) => openUse(all, t) <= newCap && fixedUse(all, t) <= fixedRoom,
          );
          expect(run.value + mu * newCap + lambda * fixedRoom).toBeGreaterThanOrEqual(best - 1e-9);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: `without` leaves a candidate out, `forced` takes a first stretch’s floor first', () => {
    fc.assert(
      fc.property(caseArb, fc.nat(), fc.integer({ min: 1, max: 3 }), (c, pick, floor) => {
        const { greedy, all, chosen, current, rest } = setUp(c);
        const open = all.filter((it) => !it.chosen);
        if (open.length === 0) return;
        const it = open[pick % open.length]!;
        greedy.setStreams(chosen, current, rest, false);
        const without = greedy.run(c.need, 0, 0, Infinity, it.cand);
        expect(without.value).toBe(
          asBound(bruteForce(all, c.limits, c.need, (t) => all.every((x, j) => x.cand !== it.cand || t[j] === 0))),
        );
        it.floor = floor;
        const taken = Math.min(floor, it.width, c.limits[it.group]!, c.need);
        const forced = greedy.run(c.need, 0, 0, Infinity, -1, it);
        expect(forced.value).toBe(asBound(bruteForce(all, c.limits, c.need, (t) => t[all.indexOf(it)]! >= taken)));
      }),
      { numRuns: 300 },
    );
  });

  it('reports an open first stretch taken below its floor, and the open candidates it took from', () => {
    const a: Item = { slope: 5, width: 4, group: 0, flexible: false, cand: 0, floor: 3 };
    const b: Item = { slope: 4, width: 4, group: 1, flexible: false, cand: 1 };
    const c = setUp({ items: [], limits: [10, 10], need: 0 });
    c.greedy.setStreams([], [a], [b], false);
    expect(c.greedy.run(2, 0, 0, Infinity)).toMatchObject({ value: 10, short: a, newParts: 1, openUsed: 2 });
    expect(c.greedy.run(6, 0, 0, Infinity)).toMatchObject({ value: 28, short: null, newParts: 2, lastOpen: 4 });
    // capped at 5 open units: the rest is not placed, and no plan places 6 then
    expect(c.greedy.run(6, 0, 0, 5).value).toBe(Infinity);
  });
});

describe('StreamGreedy.pricedFixed', () => {
  it('property: a bound of the best placement with at most `fixedLimit` non-flexible, exact when kept', () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 0, max: 10 }), (c, fixedLimit) => {
        const { greedy, all, chosen, current, rest } = setUp(c);
        const priced = greedy.pricedFixed(c.need, fixedLimit, chosen, current, rest);
        const best = bruteForce(all, c.limits, c.need, (t) => fixedUse(all, t) <= fixedLimit);
        expect(priced.value).toBeGreaterThanOrEqual(best - 1e-9);
        if (priced.lambda === 0) expect(priced.value).toBe(asBound(bruteForce(all, c.limits, c.need, () => true)));
        else expect(priced.value).toBeCloseTo(priced.best.value + priced.lambda * fixedLimit, 9);
      }),
      { numRuns: 300 },
    );
  });
});
