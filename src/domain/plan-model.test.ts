import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculate } from './calc.js';
import { Decimal } from './decimal.js';
import { createCalculator, type Calculator } from './fast-calc.js';
import {
  comparableTotals,
  offerModel,
  objectiveValue,
  yieldCeiling,
  type OfferCalculation,
  type OfferModel,
  type PlanObjective,
} from './plan-model.js';
import { EPSILON, optimizePlan, type PlanCandidate, type PlanProblem, type PlanSegment } from './plan.js';
import type { CalcTerms, Promotion, PromotionsMode, Tier } from './types.js';
import { arbitraryTerms } from './__tests__/arbitraries.js';
import { bruteForcePlan } from './__tests__/plan-fixtures.js';

const UNIT = new Decimal(1000);

function calculationOf(
  calc: Calculator,
  key: string,
  terms: CalcTerms,
  months: number,
  promotions: PromotionsMode,
): OfferCalculation {
  const input = (amount: Decimal) => ({ amount, months, promotions, terms });
  return {
    terms,
    months,
    promotions,
    pieceAt: (amount) => calc.pieceAt(key, input(amount)),
    yieldsAt: (amount) => calc.evaluateYields(key, input(amount)),
    comparableAt: (amount) => comparableTotals(input(amount)),
  };
}

/** The reference's value at k units, for checking the model against. */
const reference = (terms: CalcTerms, months: number, promotions: PromotionsMode, objective: PlanObjective, k: number) =>
  objectiveValue(calculate({ amount: UNIT.times(k), months, promotions, terms }), objective);

/** Noise of 34-digit arithmetic on values of this size. */
const noise = (v: Decimal) => v.abs().plus(1).times('1e-20');

function expectBounds(
  model: OfferModel,
  segments: readonly PlanSegment[],
  lo: number,
  hi: number,
  ref: (k: number) => Decimal,
): void {
  let next = lo;
  for (const s of segments) {
    expect(s.lo).toBe(next);
    expect(s.hi).toBeGreaterThanOrEqual(s.lo);
    next = s.hi + 1;
    for (let k = s.lo; k <= s.hi; k++) {
      const v = ref(k);
      expect(model.value(k).minus(v).abs().lte(noise(v))).toBe(true);
      const line = s.slope.times(k).plus(s.intercept);
      if (s.exact) expect(line.minus(v).abs().lte(noise(v))).toBe(true);
      else expect(line.gte(v.minus(noise(v)))).toBe(true);
    }
  }
  expect(next).toBe(hi + 1);
}

const euros = (n: number) => new Decimal(n);
const rateOf = (bp: number) => new Decimal(bp).div(100);

/**
 * Terms whose structure lies inside the small markets' amounts (1,000–10,000 €): tier bounds and
 * promotion caps on and off the 1,000 € grid, both tier modes, negative rates now and then.
 */
const smallMarketTerms: fc.Arbitrary<CalcTerms> = fc
  .record({
    tierMode: fc.constantFrom<CalcTerms['tierMode']>('whole', 'marginal'),
    bounds: fc.uniqueArray(
      fc.oneof(
        fc.integer({ min: 2, max: 9 }).map((k) => k * 1000),
        fc.integer({ min: 1500, max: 9500 }),
      ),
      { maxLength: 2 },
    ),
    rates: fc.array(fc.integer({ min: -100, max: 900 }), { minLength: 3, maxLength: 3 }),
    promotion: fc.option(
      fc.record({
        kind: fc.constantFrom<Promotion['kind']>('bonus', 'replace'),
        rate: fc.integer({ min: -50, max: 900 }).map(rateOf),
        months: fc.integer({ min: 1, max: 24 }),
        maxBalance: fc.option(
          fc
            .oneof(
              fc.integer({ min: 1, max: 10 }).map((k) => k * 1000),
              fc.integer({ min: 1000, max: 10000 }),
            )
            .map(euros),
          { nil: null },
        ),
      }),
      { nil: null },
    ),
    payout: fc.constantFrom<CalcTerms['payout']>('MONTHLY', 'QUARTERLY', 'ANNUALLY', 'AT_MATURITY', 'OTHER'),
    interestCompounds: fc.boolean(),
    annualFee: fc.oneof(fc.constant(0), fc.integer({ min: 500, max: 20000 })).map((c) => new Decimal(c).div(100)),
    withholdingRate: fc.constantFrom(0, 0, 15, 25).map((w) => new Decimal(w)),
  })
  .map(({ tierMode, bounds, rates, ...rest }) => {
    const edges = [0, ...[...bounds].sort((a, b) => a - b)];
    const tiers: Tier[] = edges.map((from, i) => ({
      from: euros(from),
      to: i + 1 < edges.length ? euros(edges[i + 1]!) : null,
      rate: rateOf(rates[i]!),
    }));
    return { tierMode, tiers, ...rest };
  });

const periods = fc.constantFrom(1, 3, 6, 7, 12, 18, 24, 36, 60, 120);
const objectives = fc.constantFrom<PlanObjective>('return', 'effective');
const modes = fc.constantFrom<PromotionsMode>('include', 'exclude');

describe('offerModel: lines that are the value or bound it', () => {
  it(
    'property: contiguous segments over [lo, hi]; exact lines are the value, ' +
      'others lie above it, also once refined',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(arbitraryTerms(), smallMarketTerms),
          periods,
          modes,
          objectives,
          fc.integer({ min: 1, max: 40 }),
          fc.integer({ min: 0, max: 40 }),
          fc.nat(),
          (terms, months, mode, objective, lo, width, pick) => {
            const hi = lo + width;
            const model = offerModel(
              calculationOf(createCalculator(), 'o', terms, months, mode),
              objective,
              UNIT,
              lo,
              hi,
            );
            const ref = (k: number) => reference(terms, months, mode, objective, k);
            expectBounds(model, model.segments, lo, hi, ref);
            const loose = model.segments.filter((s) => !s.exact);
            if (loose.length > 0) {
              const s = loose[pick % loose.length]!;
              const k = s.lo + (pick % (s.hi - s.lo + 1));
              const parts = model.refine(s, k);
              expect(parts.find((p) => p.lo === k && p.hi === k)?.exact).toBe(true);
              expectBounds(model, parts, s.lo, s.hi, ref);
            }
          },
        ),
        { numRuns: 200 },
      );
    },
  );

  const tiers = (...specs: [from: string, to: string | null, rate: string][]): Tier[] =>
    specs.map(([from, to, rate]) => ({
      from: new Decimal(from),
      to: to === null ? null : new Decimal(to),
      rate: new Decimal(rate),
    }));
  const promo = (kind: Promotion['kind'], rate: string, months: number, cap: string | null): Promotion => ({
    kind,
    rate: new Decimal(rate),
    months,
    maxBalance: cap === null ? null : new Decimal(cap),
  });
  const terms = (overrides: Partial<CalcTerms>): CalcTerms => ({
    tierMode: 'whole',
    tiers: tiers(['0', null, '2.00']),
    promotion: null,
    payout: 'ANNUALLY',
    interestCompounds: true,
    annualFee: new Decimal(0),
    withholdingRate: new Decimal(0),
    ...overrides,
  });

  /** The model's segments merged into runs of [lo, hi, exact]. */
  const runs = (segments: readonly PlanSegment[]) =>
    segments.reduce<[number, number, boolean][]>((out, s) => {
      const last = out.at(-1);
      if (last && last[2] === s.exact) last[1] = s.hi;
      else out.push([s.lo, s.hi, s.exact]);
      return out;
    }, []);
  const tiered = tiers(['0', '25000', '2.00'], ['25000', null, '3.00']);

  it.each([
    { label: 'a single tier: one exact line', t: terms({}), months: 24, want: [[1, 60, true]] },
    {
      label: 'whole tiers over 12 months, credited yearly: a line per tier',
      t: terms({ tiers: tiered }),
      months: 12,
      want: [[1, 60, true]],
    },
    {
      label: 'marginal tiers over 12 months: affine above the bound, the line is still the value',
      t: terms({ tierMode: 'marginal', tiers: tiered }),
      months: 12,
      want: [[1, 60, true]],
    },
    // from 25,000 (and from 24,510, which crosses it after a year's interest) the return curves
    {
      label: 'marginal tiers over 36 months: a bound from the tier up',
      t: terms({ tierMode: 'marginal', tiers: tiered }),
      months: 36,
      want: [
        [1, 24, true],
        [25, 60, false],
      ],
    },
  ])('$label', ({ t, months, want }) => {
    const model = offerModel(calculationOf(createCalculator(), 'o', t, months, 'include'), 'return', UNIT, 1, 60);
    expect(runs(model.segments)).toEqual(want);
  });

  it(
    'marginal tiers and a capped replace: no closed form above the cap, ' + 'bounds over stretches at most 1.1 % apart',
    () => {
      const t = terms({
        tierMode: 'marginal',
        payout: 'MONTHLY',
        tiers: tiers(['0', '10000', '2.00'], ['10000', null, '3.00']),
        promotion: promo('replace', '4.00', 6, '30000'),
      });
      const euro = new Decimal(1);
      const model = offerModel(calculationOf(createCalculator(), 'o', t, 12, 'include'), 'return', euro, 1, 60000);
      // exact lines up to where the balance can pass the cap within the promotion's months, bounds above
      const first = model.segments.findIndex((s) => !s.exact);
      const above = model.segments.slice(first);
      expect(above.every((s) => !s.exact)).toBe(true);
      expect(above[0]!.lo).toBeGreaterThan(29000);
      expect(above[0]!.lo).toBeLessThanOrEqual(30000);
      expect(above.at(-1)!.hi).toBe(60000);
      expect(above.length).toBeLessThan(100); // at most 64 per stretch between tier bounds and caps
      for (const s of above) {
        expect(s.hi / s.lo).toBeLessThanOrEqual(1.011);
        for (const k of [s.lo, Math.floor((s.lo + s.hi) / 2), s.hi]) {
          const v = reference(t, 12, 'include', 'return', k / 1000); // reference() takes units of 1,000 €
          expect(
            s.slope
              .times(k)
              .plus(s.intercept)
              .gte(v.minus(noise(v))),
          ).toBe(true);
          // the bound is close: within 1.1 % of the value
          expect(
            s.slope
              .times(k)
              .plus(s.intercept)
              .lte(v.times(1.011).plus(noise(v))),
          ).toBe(true);
        }
      }
    },
  );

  it('yieldCeiling is above every yield the offer pays', () => {
    fc.assert(
      fc.property(
        arbitraryTerms(),
        periods,
        modes,
        fc.integer({ min: 1, max: 100_000_000 }),
        (t, months, mode, cents) => {
          const r = calculate({ amount: new Decimal(cents).div(100), months, promotions: mode, terms: t });
          const ceiling = yieldCeiling(t, mode).times(100);
          expect(r.comparableYield.lte(ceiling.plus('1e-20'))).toBe(true);
          expect(r.effectiveRate.lte(ceiling.plus('1e-20'))).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});

// --- The optimizer on offers calculated as the list calculates them, against every plan -----------

const offerSpec = fc.record({
  terms: fc.oneof({ weight: 3, arbitrary: smallMarketTerms }, { weight: 1, arbitrary: arbitraryTerms() }),
  group: fc.integer({ min: 0, max: 3 }),
  flexible: fc.boolean(),
  min: fc.integer({ min: 1, max: 4 }),
  width: fc.integer({ min: 0, max: 7 }),
});

describe('optimizePlan on calculated offers: against every plan of small markets', () => {
  it(
    'property: the best placement, and the best value to EPSILON, with tiers, ' +
      'promotions, fees and periods of every shape',
    () => {
      const calc = createCalculator();
      let run = 0;
      // how often the cases reach what makes the problem hard: checked below so the test keeps its teeth
      const seen = { split: 0, refined: 0, curved: 0 };
      fc.assert(
        fc.property(
          fc.array(offerSpec, { minLength: 2, maxLength: 6 }),
          periods,
          modes,
          objectives,
          fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 4, maxLength: 4 }),
          fc.integer({ min: 0, max: 25 }),
          fc.integer({ min: 1, max: 4 }),
          fc.option(fc.integer({ min: 0, max: 25 }), { nil: null }),
          (offers, months, mode, objective, groupLimits, total, maxParts, reserve) => {
            run++;
            const candidates: PlanCandidate[] = offers.map((o, i) => {
              const hi = Math.min(o.min + o.width, groupLimits[o.group]!);
              const model = offerModel(
                calculationOf(calc, `r${run}-${i}`, o.terms, months, mode),
                objective,
                UNIT,
                o.min,
                Math.max(o.min, hi),
              );
              return { id: `o${i}`, group: o.group, flexible: o.flexible, ...model };
            });
            const p: PlanProblem = {
              candidates,
              groupLimits,
              total,
              maxParts,
              maxNonFlexible: reserve === null ? total : Math.max(0, total - reserve),
            };
            const s = optimizePlan(p);
            const best = bruteForcePlan(p);
            expect(s.placed).toBe(best.placed);
            expect(best.value.minus(s.value).lte(EPSILON)).toBe(true);
            for (const part of s.parts) expect(part.value.eq(candidates[part.candidate]!.value(part.units))).toBe(true);
            if (s.parts.length > 1) seen.split++;
            if (s.stats.refinements > 0) seen.refined++;
            if (candidates.some((c) => c.segments.some((x) => !x.exact))) seen.curved++;
          },
        ),
        { numRuns: 400 },
      );
      expect(seen.split).toBeGreaterThan(100);
      expect(seen.curved).toBeGreaterThan(40);
      expect(seen.refined).toBeGreaterThan(10);
    },
  );
});
