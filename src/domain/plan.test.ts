import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { EPSILON, optimizePlan, type PlanCandidate, type PlanProblem, type PlanSolution } from './plan.js';
import {
  bruteForcePlan,
  candidate,
  line,
  marginalTiers,
  wholeTiers,
  type PieceSpec,
} from './__tests__/plan-fixtures.js';

// Units of 1,000 €, values in € per year: a 3 % offer earns 30 per unit.
const problem = (candidates: PlanCandidate[], overrides: Partial<PlanProblem> = {}): PlanProblem => ({
  candidates,
  groupLimits: [100, 100, 100, 100],
  total: 100,
  maxParts: 5,
  maxNonFlexible: Infinity,
  ...overrides,
});

/** The plan as { candidate id: units } and its value. */
function summary(p: PlanProblem, s: PlanSolution) {
  return {
    parts: Object.fromEntries(s.parts.map((x) => [p.candidates[x.candidate]!.id, x.units])),
    placed: s.placed,
    value: s.value.toString(),
  };
}

/** Every limit a plan must keep (docs/calculation.md, "The savings plan"). */
function expectValidPlan(p: PlanProblem, s: PlanSolution): void {
  const perGroup = new Map<number, number>();
  let fixed = 0;
  let placed = 0;
  let value = new Decimal(0);
  expect(s.parts.length).toBeLessThanOrEqual(p.maxParts);
  expect(new Set(s.parts.map((x) => x.candidate)).size).toBe(s.parts.length);
  for (const part of s.parts) {
    const c = p.candidates[part.candidate]!;
    const lo = c.segments[0]!.lo;
    const hi = c.segments[c.segments.length - 1]!.hi;
    expect(part.units).toBeGreaterThanOrEqual(Math.max(1, lo));
    expect(part.units).toBeLessThanOrEqual(hi);
    perGroup.set(c.group, (perGroup.get(c.group) ?? 0) + part.units);
    if (!c.flexible) fixed += part.units;
    placed += part.units;
    expect(part.value.toString()).toBe(p.placementOnly ? '0' : c.value(part.units).toString());
    value = value.plus(part.value);
  }
  for (const [g, sum] of perGroup) expect(sum).toBeLessThanOrEqual(p.groupLimits[g]!);
  expect(fixed).toBeLessThanOrEqual(p.maxNonFlexible);
  expect(placed).toBe(s.placed);
  expect(placed).toBeLessThanOrEqual(p.total);
  expect(value.eq(s.value)).toBe(true);
}

describe('optimizePlan: hand-checked plans', () => {
  it.each([
    {
      label: 'two banks: the better one up to its limit, the rest at the other',
      p: problem([line('a', 0, '30', 1, 100), line('b', 1, '20', 1, 100)], { total: 150 }),
      want: { parts: { a: 100, b: 50 }, placed: 150, value: '4000' },
    },
    {
      label: 'three banks, two brands of one licence: they share one limit',
      // a1 and a2 are brands of institution 0: together at most 100, so b and c take the rest
      p: problem(
        [
          line('a1', 0, '30', 1, 100),
          line('a2', 0, '29', 1, 100),
          line('b', 1, '25', 1, 100),
          line('c', 2, '20', 1, 100),
        ],
        { total: 250 },
      ),
      want: { parts: { a1: 100, b: 100, c: 50 }, placed: 250, value: '6500' },
    },
    {
      label: 'a tiered offer where splitting beats filling (3 % up to 10 units, 1 % above)',
      // all 30 at a: 300 + 200 = 500; all at b: 600; a's first tier and the rest at b: 300 + 400 = 700
      p: problem(
        [
          marginalTiers(
            'a',
            0,
            [
              [0, '30'],
              [10, '10'],
            ],
            1,
            100,
          ),
          line('b', 1, '20', 1, 100),
        ],
        { total: 30 },
      ),
      want: { parts: { a: 10, b: 20 }, placed: 30, value: '700' },
    },
    {
      label: 'whole tiers: reaching the higher tier beats an even split',
      // a pays 1 % below 50 units and 3 % on everything from 50: a 100 + b 10 = 3,000 + 200
      p: problem(
        [
          wholeTiers(
            'a',
            0,
            [
              [1, '10'],
              [50, '30'],
            ],
            100,
          ),
          line('b', 1, '20', 1, 100),
        ],
        { total: 110, maxParts: 2 },
      ),
      want: { parts: { a: 100, b: 10 }, placed: 110, value: '3200' },
    },
    {
      label: 'a minimum keeps the better offer below its limit',
      // b accepts 50..100: a 100 would leave 30 that b does not take; a 80 + b 50 places all
      p: problem([line('a', 0, '30', 60, 100), line('b', 1, '20', 50, 100)], { total: 130 }),
      want: { parts: { a: 80, b: 50 }, placed: 130, value: '3400' },
    },
    {
      label: 'more than every limit together cannot be placed',
      p: problem([line('a', 0, '30', 1, 100), line('b', 1, '20', 1, 100)], { total: 250 }),
      want: { parts: { a: 100, b: 100 }, placed: 200, value: '5000' },
    },
    {
      label: 'maxParts binding: one part places at most one limit',
      p: problem([line('a', 0, '30', 1, 100), line('b', 1, '25', 1, 100), line('c', 2, '20', 1, 100)], {
        total: 150,
        maxParts: 1,
      }),
      want: { parts: { a: 100 }, placed: 100, value: '3000' },
    },
    {
      label: 'maxParts binding the return: two parts, the third bank left out',
      // a's bonus tier ends at 20: with three parts a 20 + b 100 + c 30; with two, b 100 + a 50
      p: problem(
        [
          marginalTiers(
            'a',
            0,
            [
              [0, '40'],
              [20, '20'],
            ],
            1,
            100,
          ),
          line('b', 1, '25', 1, 100),
          line('c', 2, '22', 1, 100),
        ],
        { total: 150, maxParts: 2 },
      ),
      want: { parts: { a: 50, b: 100 }, placed: 150, value: '3900' },
    },
    {
      label: 'the flexible reserve: non-flexible offers hold at most 60',
      p: problem(
        [line('dep', 0, '30', 1, 100), line('flex', 1, '20', 1, 100, true), line('flex2', 2, '15', 1, 100, true)],
        { total: 150, maxNonFlexible: 60 },
      ),
      want: { parts: { dep: 60, flex: 90 }, placed: 150, value: '3600' },
    },
    {
      label:
        'the flexible reserve inside one institution: its limit split between its deposit and its flexible account',
      // non-flexible ≤ 50: dep 50; institution 0 has 50 left for flexA (2.8 %), flexB takes the last 50
      p: problem(
        [line('dep', 0, '30', 1, 100), line('flexA', 0, '28', 1, 100, true), line('flexB', 1, '20', 1, 100, true)],
        { total: 150, maxNonFlexible: 50 },
      ),
      want: { parts: { dep: 50, flexA: 50, flexB: 50 }, placed: 150, value: '3900' },
    },
    {
      label: 'a reserve that needs two flexible parts leaves one part for a deposit',
      // flexible ≥ 150 takes two parts of at most 100: dep1 100 + flex1 100 + flex2 100 places all 300;
      // two deposits (150 at most together) and one flexible part would place 250
      p: problem(
        [
          line('dep1', 0, '30', 1, 100),
          line('dep2', 1, '29', 1, 100),
          line('flex1', 2, '20', 1, 100, true),
          line('flex2', 3, '19', 1, 100, true),
        ],
        {
          total: 300,
          maxParts: 3,
          maxNonFlexible: 150,
        },
      ),
      want: { parts: { dep1: 100, flex1: 100, flex2: 100 }, placed: 300, value: '6900' },
    },
    {
      label: 'non-flexible room of 2 units: one at each of the two best deposits, not two at the better institution',
      // flex0 holds the third unit; depC 86.2 + depA 86.1 beats depA 2 × 86.1
      p: problem(
        [
          line('flex0', 0, '0', 1, 1, true),
          line('depA', 0, '86.1', 1, 2),
          line('depB', 1, '0', 1, 2),
          line('depC', 2, '86.2', 1, 1),
        ],
        {
          groupLimits: [3, 2, 1, 1],
          total: 16,
          maxParts: 3,
          maxNonFlexible: 2,
        },
      ),
      want: { parts: { flex0: 1, depA: 1, depC: 1 }, placed: 3, value: '172.3' },
    },
    {
      label: 'a negative rate is still placed: placing comes first',
      p: problem([line('a', 0, '-5', 1, 100)], { total: 50 }),
      want: { parts: { a: 50 }, placed: 50, value: '-250' },
    },
    {
      label: 'nothing accepts the amount: every minimum is above it',
      p: problem([line('a', 0, '30', 60, 100)], { total: 50 }),
      want: { parts: {}, placed: 0, value: '0' },
    },
  ])('$label', ({ p, want }) => {
    const s = optimizePlan(p);
    expectValidPlan(p, s);
    expect(summary(p, s)).toEqual(want);
  });

  it('refines a curved offer until the split between two curves is the best one', () => {
    // two concave offers of different institutions: value 30k − k²/10 and 28k − k²/20; placing 40 units,
    // the marginals 30 − k/5 and 28 − (40 − k)/10 meet at k = 20 (exactly), for 600 − 40 + 560 − 20 = 1100
    const concave = (a: number, c: number): PieceSpec => ({
      lo: 1,
      hi: 100,
      f: (k) => new Decimal(a).times(k).minus(new Decimal(k * k).div(c)),
      shape: 'concave',
    });
    const p = problem([candidate('a', 0, [concave(30, 10)]), candidate('b', 1, [concave(28, 20)])], { total: 40 });
    const s = optimizePlan(p);
    expectValidPlan(p, s);
    expect(summary(p, s)).toEqual({ parts: { a: 20, b: 20 }, placed: 40, value: '1100' });
    expect(s.stats.refinements).toBeGreaterThan(0);
  });
});

// --- Property: the optimizer's plan is as good as the best of every plan, on small markets ---------

const rate = fc.integer({ min: -300, max: 1500 }).map((bp) => new Decimal(bp).div(100));

/** One candidate: a line, whole or marginal tiers, or a concave or convex curve, over a small domain. */
const candidateSpec = fc.record({
  kind: fc.constantFrom('line', 'whole', 'marginal', 'concave', 'convex'),
  group: fc.integer({ min: 0, max: 3 }),
  flexible: fc.boolean(),
  lo: fc.integer({ min: 1, max: 3 }),
  width: fc.integer({ min: 0, max: 6 }),
  rates: fc.array(rate, { minLength: 3, maxLength: 3 }),
  bounds: fc
    .uniqueArray(fc.integer({ min: 2, max: 8 }), { minLength: 1, maxLength: 2 })
    .map((b) => b.sort((x, y) => x - y)),
  curvature: fc.integer({ min: 1, max: 40 }).map((c) => new Decimal(c).div(100)),
});

type CandidateSpec = typeof candidateSpec extends fc.Arbitrary<infer T> ? T : never;

function build(spec: CandidateSpec, id: string): PlanCandidate {
  const { kind, group, flexible, lo, width, rates, bounds, curvature } = spec;
  const hi = lo + width;
  const r = rates.map((x) => x.times(10)); // € per unit of 1,000 €
  switch (kind) {
    case 'line':
      return line(id, group, r[0]!.toString(), lo, hi, flexible);
    case 'whole': {
      const tiers: [number, string][] = [[lo, r[0]!.toString()]];
      bounds.filter((b) => b > lo && b <= hi).forEach((b, i) => tiers.push([b, r[i + 1]!.toString()]));
      return wholeTiers(id, group, tiers, hi, flexible);
    }
    case 'marginal':
      return marginalTiers(
        id,
        group,
        [[0, r[0]!.toString()], ...bounds.map((b, i): [number, string] => [b, r[i + 1]!.toString()])],
        lo,
        hi,
        flexible,
      );
    case 'concave':
    case 'convex': {
      const sign = kind === 'concave' ? -1 : 1;
      const f = (k: number) => r[0]!.times(k).plus(curvature.times(sign * k * k));
      return candidate(id, group, [{ lo, hi, f, shape: kind }], flexible);
    }
  }
}

const marketArb = fc.record({
  specs: fc.array(candidateSpec, { minLength: 2, maxLength: 6 }),
  groupLimits: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 4, maxLength: 4 }),
  total: fc.integer({ min: 0, max: 20 }),
  maxParts: fc.integer({ min: 1, max: 4 }),
  reserve: fc.option(fc.integer({ min: 0, max: 20 }), { nil: null }),
});

describe('optimizePlan: against every plan of small markets', () => {
  it('property: places as much as the best plan and earns as much (to EPSILON), within every limit', () => {
    fc.assert(
      fc.property(marketArb, ({ specs, groupLimits, total, maxParts, reserve }) => {
        const p: PlanProblem = {
          candidates: specs.map((s, i) => build(s, `c${i}`)),
          groupLimits,
          total,
          maxParts,
          maxNonFlexible: reserve === null ? total : Math.max(0, total - reserve),
        };
        const s = optimizePlan(p);
        expectValidPlan(p, s);
        const best = bruteForcePlan(p);
        expect(s.placed).toBe(best.placed);
        expect(best.value.minus(s.value).lte(EPSILON)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('property: stopped by its work budget, the best plan found and a gap no plan exceeds', () => {
    fc.assert(
      fc.property(
        marketArb,
        fc.integer({ min: 1, max: 300 }),
        ({ specs, groupLimits, total, maxParts, reserve }, maxWork) => {
          const p: PlanProblem = {
            candidates: specs.map((s, i) => build(s, `c${i}`)),
            groupLimits,
            total,
            maxParts,
            maxNonFlexible: reserve === null ? total : Math.max(0, total - reserve),
            maxWork,
          };
          const s = optimizePlan(p);
          expectValidPlan(p, s);
          const best = bruteForcePlan(p);
          if (s.proven) {
            expect(s.gap).toBe(0);
            expect(s.placed).toBe(best.placed);
            expect(best.value.minus(s.value).lte(EPSILON)).toBe(true);
          } else if (s.placed === best.placed && Number.isFinite(s.gap)) {
            expect(best.value.minus(s.value).toNumber()).toBeLessThanOrEqual(s.gap + 1e-9);
          } else {
            expect(s.gap).toBe(Infinity); // a plan placing more was not ruled out
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('property: placementOnly places as much as the best plan', () => {
    fc.assert(
      fc.property(marketArb, ({ specs, groupLimits, total, maxParts, reserve }) => {
        const p: PlanProblem = {
          candidates: specs.map((s, i) => build(s, `c${i}`)),
          groupLimits,
          total,
          maxParts,
          maxNonFlexible: reserve === null ? total : Math.max(0, total - reserve),
          placementOnly: true,
        };
        const s = optimizePlan(p);
        expectValidPlan(p, s);
        expect(s.placed).toBe(bruteForcePlan(p).placed);
      }),
      { numRuns: 200 },
    );
  });
});
