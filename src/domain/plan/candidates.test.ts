import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bruteForcePlan, candidate, line } from '../__tests__/plan-fixtures.js';
import { Decimal } from '../decimal.js';
import { absorbs, dominates, prepare, removeDominated, searchOrder } from './candidates.js';
import { limitsOf } from './space.js';
import { problemArb } from './__tests__/problems.js';
import type { PlanCandidate, PlanProblem } from './types.js';

const problem = (candidates: PlanCandidate[], overrides: Partial<PlanProblem> = {}): PlanProblem => ({
  candidates,
  groupLimits: [10, 10],
  total: 10,
  maxParts: 2,
  maxNonFlexible: 10,
  ...overrides,
});

const prepared = (p: PlanProblem) => prepare(p.candidates, limitsOf(p));

describe('prepare', () => {
  it('keeps the candidates with an amount within the caps, their largest amount cut at the caps', () => {
    const p = problem(
      [
        line('fits', 0, '3', 2, 30), // non-flexible: cut at the 3 the reserve leaves
        line('above-limit', 1, '3', 11, 30), // its minimum is above its institution's limit
        line('above-room', 0, '3', 4, 30), // non-flexible: its minimum is above the 3 left by the reserve
        line('flexible', 0, '3', 4, 6, true), // flexible: the reserve does not cap it
      ],
      { groupLimits: [10, 10], total: 8, maxNonFlexible: 3 },
    );
    const cands = prepared(p);
    expect(cands.map((c) => [c.src.id, c.lo, c.hi, c.reachesCap])).toEqual([
      ['fits', 2, 3, true],
      ['flexible', 4, 6, false],
    ]);
  });

  it('reads the yields off the segments: lines through 0 have one constant slope, curves have none', () => {
    const curve = candidate('curve', 0, [{ lo: 1, hi: 9, f: (k) => new Decimal(k * k), shape: 'convex' }]);
    const [flat, bent] = prepared(problem([line('line', 0, '2.5', 1, 9), curve]));
    expect(flat!.constantSlope?.toString()).toBe('2.5');
    expect(flat!.yieldLo).toBeLessThan(2.5);
    expect(flat!.yieldHi).toBeGreaterThan(2.5);
    expect(flat!.yieldHi - flat!.yieldLo).toBeLessThan(1e-9);
    expect(bent!.constantSlope).toBeNull();
    expect(bent!.yieldLo).toBe(-Infinity);
    // the chord of k² over [1, 9] is 10k − 9: at most 10 − 9/9 = 9 a unit
    expect(bent!.yieldHi).toBeCloseTo(9, 9);
  });

  it('placementOnly: every candidate earns 0 a unit', () => {
    const [c] = prepared(problem([line('a', 0, '3', 1, 5)], { placementOnly: true }));
    expect([c!.yieldLo, c!.yieldHi, c!.constantSlope?.toString()]).toEqual([0, 0, '0']);
  });
});

describe('dominates and absorbs', () => {
  const [hi, lo, narrow, twin, other] = prepared(
    problem([
      line('hi', 0, '3', 1, 10),
      line('lo', 0, '2', 1, 10),
      line('narrow', 0, '4', 2, 10), // earns more, but not from 1
      line('twin', 0, '3', 1, 10),
      line('other', 0, '2', 1, 5),
    ]),
  );

  it.each([
    ['a better rate over the same amounts', hi, lo, true],
    ['a worse rate', lo, hi, false],
    ['a better rate that does not accept every amount', narrow, lo, false],
    ['of two equal offers, the first', hi, twin, true],
    ['of two equal offers, not the second', twin, hi, false],
    ['a better rate over more amounts', lo, other, true],
  ])('%s', (_, j, i, expected) => {
    expect(dominates(j!, i!)).toBe(expected);
  });

  it('absorbs only what it dominates, and only when it reaches the cap with one rate', () => {
    expect(absorbs(hi!, lo!)).toBe(true);
    const [short, low] = prepared(problem([line('short', 0, '3', 1, 5), line('low', 0, '2', 1, 5)]));
    expect(dominates(short!, low!)).toBe(true);
    expect(short!.reachesCap).toBe(false);
    expect(absorbs(short!, low!)).toBe(false);
  });
});

describe('removeDominated', () => {
  it('keeps a dominated offer while fewer than maxParts others dominate it', () => {
    const p = problem([line('a', 0, '3', 1, 4), line('b', 0, '2', 1, 4), line('c', 0, '1', 1, 4)]);
    const kept = (maxParts: number) => removeDominated(prepared(p), maxParts).map((c) => c.src.id);
    expect(kept(1)).toEqual(['a']);
    expect(kept(2)).toEqual(['a', 'b']);
    expect(kept(3)).toEqual(['a', 'b', 'c']);
  });

  it('property: the best plan over the candidates kept is the best plan over all of them', () => {
    fc.assert(
      fc.property(problemArb(), (p) => {
        const kept = removeDominated(prepared(p), p.maxParts);
        const best = bruteForcePlan(p);
        const keptBest = bruteForcePlan({ ...p, candidates: kept.map((c) => c.src) });
        expect(keptBest.placed).toBe(best.placed);
        expect(keptBest.value.toString()).toBe(best.value.toString());
      }),
      { numRuns: 300 },
    );
  });
});

describe('searchOrder', () => {
  it('takes institutions by the best yield they could offer, and their offers likewise', () => {
    const cands = prepared(
      problem(
        [line('a0', 0, '2', 1, 5), line('b0', 1, '1', 1, 5), line('a1', 0, '1', 1, 5), line('b1', 1, '3', 1, 5)],
        { groupLimits: [10, 10] },
      ),
    );
    const { groups, rank } = searchOrder(cands);
    expect(cands.map((c) => c.src.id)).toEqual(['b1', 'b0', 'a0', 'a1']);
    expect(groups).toEqual([1, 0]);
    expect([...rank]).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });
});
