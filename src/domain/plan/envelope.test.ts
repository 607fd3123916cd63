import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutAndMerge, insertSteps, mergeSteepest } from './envelope.js';
import { problemArb, spaceFor, valueOf } from './__tests__/problems.js';
import type { Item } from './types.js';

const step = (slope: number, width: number, flexible = false): Item => ({ slope, width, group: 0, flexible });

describe('envelope (a candidate’s steps)', () => {
  it('property: concave, from 0 to the largest amount, above every line and value at every amount', () => {
    fc.assert(
      fc.property(problemArb(), (p) => {
        const space = spaceFor(p, false);
        for (const c of space?.cands ?? []) {
          const slopes = c.steps.map((s) => s.slope);
          expect(slopes).toEqual([...slopes].sort((a, b) => b - a));
          expect(c.steps.every((s) => s.width > 0 && s.cand === c.index && s.group === c.group)).toBe(true);
          expect(c.steps.reduce((sum, s) => sum + s.width, 0)).toBe(c.hi);
          // the first step says how much a part holds at least
          expect(c.steps[0]!.floor).toBe(c.lo > 1 ? Math.min(c.lo, c.steps[0]!.width) : undefined);
          const at = (k: number) => {
            let x = 0;
            let y = 0;
            for (const s of c.steps) {
              const w = Math.min(s.width, k - x);
              if (w <= 0) break;
              x += w;
              y += w * s.slope;
            }
            return y;
          };
          for (let k = c.lo; k <= c.hi; k++) {
            const seg = c.segs.find((s) => s.lo <= k && k <= s.hi)!;
            const bound = at(k) + 1e-9 * (1 + Math.abs(at(k)));
            expect(seg.slope * k + seg.intercept).toBeLessThanOrEqual(bound);
            expect(valueOf(space!, c, k)).toBeLessThanOrEqual(bound);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('cutAndMerge', () => {
  it('cuts each kind at the limit, steepest first, and merges them steepest first', () => {
    const fixed = [step(5, 4), step(3, 4), step(1, 4)];
    const flexible = [step(4, 3, true), step(2, 10, true)];
    expect(cutAndMerge(fixed, flexible, 6).map((s) => [s.slope, s.width, s.flexible])).toEqual([
      [5, 4, false],
      [4, 3, true],
      [3, 2, false],
      [2, 3, true],
    ]);
    // the steps given are not changed (they are shared by every suffix)
    expect(fixed[1]!.width).toBe(4);
  });
});

describe('insertSteps', () => {
  it('property: keeps a list steepest first and loses nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 })), fc.array(fc.integer({ min: -5, max: 5 })), (a, b) => {
        const list = a.sort((x, y) => y - x).map((s) => step(s, 1));
        insertSteps(
          list,
          b.map((s) => step(s, 2)),
        );
        const slopes = list.map((s) => s.slope);
        expect(slopes).toEqual([...a, ...b].sort((x, y) => y - x));
      }),
    );
  });

  it('puts a step after the steps as steep as it', () => {
    const first = step(3, 1);
    const list = [first];
    insertSteps(list, [step(3, 2)]);
    expect(list[0]).toBe(first);
  });
});

describe('openTables', () => {
  it('property: the top sums, the later institutions’ caps and the suffixes, as counted directly', () => {
    fc.assert(
      fc.property(problemArb(), (p) => {
        const space = spaceFor(p);
        if (space === null) return;
        const { cands, tables, order, limits } = space;
        const { K } = tables;
        expect(K).toBe(Math.min(limits.maxParts, cands.length));
        const n = cands.length;
        const reserved = limits.maxNonFlexible < limits.total;
        const topOf = (i: number, m: number, keep: (flexible: boolean) => boolean) =>
          cands
            .slice(i)
            .filter((c) => keep(c.flexible))
            .map((c) => c.hi)
            .sort((a, b) => b - a)
            .slice(0, m)
            .reduce((s, h) => s + h, 0);
        for (let i = 0; i <= n; i++)
          for (let m = 0; m <= K; m++) {
            expect(tables.topSum[i * (K + 1) + m]).toBe(topOf(i, m, () => true));
            expect(tables.topFlexible[i * (K + 1) + m]).toBe(topOf(i, m, (f) => f || !reserved));
            expect(tables.topFixed[i * (K + 1) + m]).toBe(topOf(i, m, (f) => !f || !reserved));
          }
        for (let i = 0; i < n; i++) {
          const items = tables.suffixItems(i);
          const g = cands[i]!.group;
          expect(items.every((it) => it.group === g)).toBe(true);
          for (const flexible of [true, false]) {
            const width = items.filter((it) => it.flexible === flexible).reduce((s, it) => s + it.width, 0);
            const kind = cands.slice(i).filter((c) => c.group === g && c.flexible === flexible);
            const all = kind.reduce((s, c) => s + c.hi, 0);
            // the limit, and room for the widest one's steps to be replaced when a bound leaves it out
            const spare = Math.max(0, ...kind.map((c) => c.hi));
            expect(width).toBe(Math.min(all, limits.groupLimits[g]! + spare));
            const cap = tables.suffixCaps(i)[flexible ? 'flexible' : 'fixed'];
            expect(cap).toBe(Math.min(all, limits.groupLimits[g]!));
          }
        }
        order.groups.forEach((_, r) => {
          const after = new Set(order.groups.slice(r));
          const items = tables.later(r);
          expect(items.every((it) => after.has(it.group))).toBe(true);
          // each institution's steps merged into the next ones', ties to the earlier institution: the
          // same items in the same order as the filtered whole list gives
          const first = cands.findIndex((c) => c.group === order.groups[r]);
          expect(items).toEqual(mergeSteepest(tables.suffixItems(first), tables.later(r + 1)));
          expect(items.length).toBe(
            order.groups
              .slice(r)
              .reduce((s, g) => s + tables.suffixItems(cands.findIndex((c) => c.group === g)).length, 0),
          );
          expect(items.map((it) => it.slope)).toEqual(items.map((it) => it.slope).sort((a, b) => b - a));
          const caps = tables.laterCaps[r]!;
          const width = (keep: (it: Item) => boolean) => items.filter(keep).reduce((s, it) => s + it.width, 0);
          const within = (flexible: boolean) =>
            [...after].reduce(
              (s, g) =>
                s +
                Math.min(
                  limits.groupLimits[g]!,
                  width((it) => it.group === g && it.flexible === flexible),
                ),
              0,
            );
          expect(caps.flexible).toBe(within(true));
          expect(caps.fixed).toBe(within(false));
          let group = 0;
          for (const g of after)
            group += Math.min(
              limits.groupLimits[g]!,
              width((it) => it.group === g),
            );
          expect(caps.group).toBe(group);
        });
        expect(tables.laterCaps[order.groups.length]).toEqual({ group: 0, flexible: 0, fixed: 0 });
        const steepest = tables.bySteepest.map((j) => cands[j]!.steps[0]!.slope);
        expect(steepest).toEqual([...steepest].sort((a, b) => b - a));
      }),
      { numRuns: 300 },
    );
  });

  it('property: two sorted lists merged are ordered as a stable sort of both would order them', () => {
    // few distinct slopes, so that ties are common; widths tell the items of both lists apart
    const sorted = (first: number) =>
      fc
        .array(fc.integer({ min: -3, max: 3 }), { maxLength: 12 })
        .map((xs) => xs.sort((a, b) => b - a).map((x, k) => step(x / 2, first + k)));
    fc.assert(
      fc.property(sorted(1), sorted(100), (a, b) => {
        expect(mergeSteepest(a, b)).toEqual([...a, ...b].sort((x, y) => y.slope - x.slope));
      }),
      { numRuns: 300 },
    );
  });
});
