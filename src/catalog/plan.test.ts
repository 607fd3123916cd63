// The savings plan over small hand-made catalogues. Offers credit yearly over a 12-month horizon, so an
// offer's comparable yield is its rate and its returnPerYear amount × rate / 100: every number below
// can be redone with a pocket calculator.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../domain/decimal.js';
import { presentCalc } from '../domain/present.js';
import { presentPlanTotals } from '../domain/plan-totals.js';
import { createCalcService } from './calc-service.js';
import { CpuLane } from './lane.js';
import { MAX_OFFERS_LIMIT, planAllocation, planQuery, planSteps, type PlanQuery, type SavingsPlan } from './plan.js';
import { buildCatalog, type InstitutionSpec, type OfferSpec } from './__tests__/catalog-fixture.js';

const now = new Date('2026-11-20T12:00:00.000Z');

function plan(institutions: InstitutionSpec[], offers: OfferSpec[], q: Partial<PlanQuery>): SavingsPlan {
  return planAllocation({ catalog: buildCatalog(institutions, offers), calc: createCalcService(), now }, planQuery(q));
}

/** What a saver reads: each part's offer, amount and return, the totals, and why some is left over. */
function shown(p: SavingsPlan) {
  const parts = p.allocations.map((a) => presentCalc(a.offer.calc));
  const totals = presentPlanTotals(p.totals, parts);
  return {
    allocations: p.allocations.map((a, i) => [a.offer.offer.id, parts[i]!.amount, parts[i]!.returnPerYear]),
    totals: {
      placed: totals.placed,
      unplaced: totals.unplaced,
      returnPerYear: totals.returnPerYear,
      comparableYield: totals.comparableYield,
    },
    reason: p.unplacedReason?.code ?? null,
  };
}

const flex = (id: string, brand: string, rate: string, extra: Partial<OfferSpec> = {}): OfferSpec => ({
  id,
  brand,
  tiers: [['0', rate]],
  ...extra,
});
const deposit = (id: string, brand: string, rate: string, termMonths = 12): OfferSpec => ({
  id,
  brand,
  type: 'deposit',
  termMonths,
  tiers: [['0', rate]],
});
const bank = (id: string, extra: Partial<InstitutionSpec> = {}): InstitutionSpec => ({ id, ...extra });
const amount = (a: string) => new Decimal(a);

describe('planAllocation: hand-checked plans', () => {
  it.each([
    {
      label: 'two banks: 100,000 at the better one (its DGS limit), the rest at the other',
      institutions: [bank('alfa'), bank('beta')],
      offers: [flex('alfa-flex', 'alfa', '3.00'), flex('beta-flex', 'beta', '2.00')],
      q: { amount: amount('150000') },
      // 3,000 + 1,000 = 4,000 on 150,000: 2.67 %
      want: {
        allocations: [
          ['alfa-flex', '100000.00', '3000.00'],
          ['beta-flex', '50000.00', '1000.00'],
        ],
        totals: { placed: '150000.00', unplaced: '0.00', returnPerYear: '4000.00', comparableYield: '2.67' },
        reason: null,
      },
    },
    {
      label: 'three banks, two brands of one licence: the brands share one 100,000 limit',
      institutions: [bank('xbank', { brands: ['xbank', 'xdirect'] }), bank('ybank'), bank('zbank')],
      offers: [
        flex('x1', 'xbank', '3.00'),
        flex('x2', 'xdirect', '2.90'),
        flex('y', 'ybank', '2.50'),
        flex('z', 'zbank', '2.00'),
      ],
      q: { amount: amount('250000') },
      // x2 pays more than y and z but shares xbank's limit with x1: 3,000 + 2,500 + 1,000
      want: {
        allocations: [
          ['x1', '100000.00', '3000.00'],
          ['y', '100000.00', '2500.00'],
          ['z', '50000.00', '1000.00'],
        ],
        totals: { placed: '250000.00', unplaced: '0.00', returnPerYear: '6500.00', comparableYield: '2.60' },
        reason: null,
      },
    },
    {
      label: 'a tiered offer where splitting beats filling (3 % up to 10,000, 1 % above, marginal)',
      institutions: [bank('tier'), bank('plain')],
      offers: [
        flex('tiered', 'tier', '3.00', {
          tierMode: 'marginal',
          tiers: [
            ['0', '3.00'],
            ['10000', '1.00'],
          ],
        }),
        flex('plain-flex', 'plain', '2.00'),
      ],
      q: { amount: amount('30000') },
      // all at tiered: 300 + 200 = 500; all at plain: 600; 10,000 tiered + 20,000 plain: 300 + 400 = 700
      want: {
        allocations: [
          ['plain-flex', '20000.00', '400.00'],
          ['tiered', '10000.00', '300.00'],
        ],
        totals: { placed: '30000.00', unplaced: '0.00', returnPerYear: '700.00', comparableYield: '2.33' },
        reason: null,
      },
    },
    {
      label: 'whole tiers: reaching the higher tier with the whole limit beats spreading',
      institutions: [bank('step'), bank('flat')],
      offers: [
        flex('stepped', 'step', '1.00', {
          tiers: [
            ['0', '1.00'],
            ['50000', '3.00'],
          ],
        }),
        flex('flat-flex', 'flat', '2.00'),
      ],
      q: { amount: amount('110000'), maxOffers: 2 },
      // stepped 100,000 at 3 % + flat 10,000 at 2 %: 3,000 + 200 (stepped 50,000 + flat 60,000: 2,700)
      want: {
        allocations: [
          ['stepped', '100000.00', '3000.00'],
          ['flat-flex', '10000.00', '200.00'],
        ],
        totals: { placed: '110000.00', unplaced: '0.00', returnPerYear: '3200.00', comparableYield: '2.91' },
        reason: null,
      },
    },
    {
      label: 'more than the banks can cover: the rest is not placed',
      institutions: [bank('alfa'), bank('beta')],
      offers: [flex('alfa-flex', 'alfa', '3.00'), flex('beta-flex', 'beta', '2.00')],
      q: { amount: amount('250000') },
      want: {
        allocations: [
          ['alfa-flex', '100000.00', '3000.00'],
          ['beta-flex', '100000.00', '2000.00'],
        ],
        totals: { placed: '200000.00', unplaced: '50000.00', returnPerYear: '5000.00', comparableYield: '2.50' },
        reason: 'insufficient_capacity',
      },
    },
    {
      label: 'maxOffers binding: two offers cover 200,000 of 250,000',
      institutions: [bank('xbank'), bank('ybank'), bank('zbank')],
      offers: [flex('x', 'xbank', '3.00'), flex('y', 'ybank', '2.50'), flex('z', 'zbank', '2.00')],
      q: { amount: amount('250000'), maxOffers: 2 },
      want: {
        allocations: [
          ['x', '100000.00', '3000.00'],
          ['y', '100000.00', '2500.00'],
        ],
        totals: { placed: '200000.00', unplaced: '50000.00', returnPerYear: '5500.00', comparableYield: '2.75' },
        reason: 'max_offers',
      },
    },
    {
      label: 'flexibleShare 40: the deposit holds at most 60 % of the amount',
      institutions: [bank('dep'), bank('fa'), bank('fb')],
      offers: [deposit('deposit-12', 'dep', '3.50'), flex('flex-a', 'fa', '2.00'), flex('flex-b', 'fb', '1.50')],
      q: { amount: amount('150000'), flexibleShare: amount('40') },
      // 90,000 × 3.5 % + 60,000 × 2 % = 3,150 + 1,200 (without the share: 3,500 + 1,000 = 4,500)
      want: {
        allocations: [
          ['deposit-12', '90000.00', '3150.00'],
          ['flex-a', '60000.00', '1200.00'],
        ],
        totals: { placed: '150000.00', unplaced: '0.00', returnPerYear: '4350.00', comparableYield: '2.90' },
        reason: null,
      },
    },
    {
      label: 'flexibleShare with no flexible account to take it',
      institutions: [bank('dep')],
      offers: [deposit('deposit-12', 'dep', '3.50')],
      q: { amount: amount('100000'), flexibleShare: amount('20') },
      want: {
        allocations: [['deposit-12', '80000.00', '2800.00']],
        totals: { placed: '80000.00', unplaced: '20000.00', returnPerYear: '2800.00', comparableYield: '3.50' },
        reason: 'flexible_capacity',
      },
    },
    {
      label: 'the cents of the amount go to a part with room',
      institutions: [bank('alfa'), bank('beta')],
      offers: [flex('alfa-flex', 'alfa', '3.00'), flex('beta-flex', 'beta', '2.00')],
      q: { amount: amount('150000.55') },
      // alfa is at its limit: beta takes 50,000.55, 1,000.011 a year
      want: {
        allocations: [
          ['alfa-flex', '100000.00', '3000.00'],
          ['beta-flex', '50000.55', '1000.01'],
        ],
        totals: { placed: '150000.55', unplaced: '0.00', returnPerYear: '4000.01', comparableYield: '2.67' },
        reason: null,
      },
    },
    {
      label: 'below every minimum: nothing placed, and the reason says so',
      institutions: [bank('alfa')],
      offers: [flex('alfa-flex', 'alfa', '3.00', { minAmount: '500.00' })],
      q: { amount: amount('300') },
      want: {
        allocations: [],
        totals: { placed: '0.00', unplaced: '300.00', returnPerYear: '0.00', comparableYield: '0.00' },
        reason: 'minimum_amounts',
      },
    },
    {
      label: 'an unverified deposit guarantee is never used, whatever it pays',
      institutions: [bank('risky', { verified: false }), bank('safe')],
      offers: [flex('risky-flex', 'risky', '5.00'), flex('safe-flex', 'safe', '2.00')],
      q: { amount: amount('50000') },
      want: {
        allocations: [['safe-flex', '50000.00', '1000.00']],
        totals: { placed: '50000.00', unplaced: '0.00', returnPerYear: '1000.00', comparableYield: '2.00' },
        reason: null,
      },
    },
    {
      label: 'the list filters narrow the candidates (country)',
      institutions: [bank('nl-bank', { country: 'NL' }), bank('de-bank', { country: 'DE' })],
      offers: [flex('nl-flex', 'nl-bank', '2.00'), flex('de-flex', 'de-bank', '3.00')],
      q: { amount: amount('50000'), country: ['NL'] },
      want: {
        allocations: [['nl-flex', '50000.00', '1000.00']],
        totals: { placed: '50000.00', unplaced: '0.00', returnPerYear: '1000.00', comparableYield: '2.00' },
        reason: null,
      },
    },
  ])('$label', ({ institutions, offers, q, want }) => {
    expect(shown(plan(institutions, offers, q))).toEqual(want);
  });

  it('sort=effective maximises the return net of withholding: the untaxed 2.50 % beats a taxed 3.00 %', () => {
    const institutions = [bank('taxed'), bank('untaxed')];
    const offers = [
      flex('taxed-flex', 'taxed', '3.00', {
        withholding: { kind: 'applicable', rate: amount('25'), reducedRate: null },
      }),
      flex('untaxed-flex', 'untaxed', '2.50'),
    ];
    // one offer for 100,000: 3,000 before tax (2,250 after) against 2,500
    expect(shown(plan(institutions, offers, { amount: amount('100000'), maxOffers: 1 })).allocations).toEqual([
      ['taxed-flex', '100000.00', '3000.00'],
    ]);
    const effective = plan(institutions, offers, { amount: amount('100000'), maxOffers: 1, sort: 'effective' });
    expect(shown(effective).allocations).toEqual([['untaxed-flex', '100000.00', '2500.00']]);
    expect(effective.objective).toBe('effective');
    expect(effective.totals.effectiveRate.toFixed(2)).toBe('2.50');
  });

  it('each part carries its own calculation and DGS split, fully covered, with the licence’s other brands', () => {
    const p = plan(
      [bank('xbank', { brands: ['xbank', 'xdirect'] }), bank('ybank')],
      [flex('x1', 'xbank', '3.00'), flex('y', 'ybank', '2.50')],
      { amount: amount('120000') },
    );
    const x1 = p.allocations.find((a) => a.offer.offer.id === 'x1')!;
    expect(presentCalc(x1.offer.calc).amount).toBe('100000.00');
    expect(x1.offer.dgs).toMatchObject({ fullyCovered: true, sharedWith: ['XDIRECT'] });
    expect(x1.offer.dgs.covered.toString()).toBe('100000');
    expect(p.allocations.every((a) => a.offer.dgs.fullyCovered && a.offer.eligible)).toBe(true);
  });

  it.each([
    { label: 'amount 0', q: { amount: amount('0') } },
    { label: 'a negative amount', q: { amount: amount('-5') } },
    { label: 'maxOffers 0', q: { maxOffers: 0 } },
    { label: `maxOffers ${MAX_OFFERS_LIMIT + 1}`, q: { maxOffers: MAX_OFFERS_LIMIT + 1 } },
    { label: 'maxOffers 1.5', q: { maxOffers: 1.5 } },
    { label: 'flexibleShare −1', q: { flexibleShare: amount('-1') } },
    { label: 'flexibleShare 100.01', q: { flexibleShare: amount('100.01') } },
    { label: 'horizon 0', q: { horizon: 0 } },
  ])('rejects $label', ({ q }) => {
    expect(() => plan([bank('alfa')], [flex('alfa-flex', 'alfa', '3.00')], { amount: amount('1000'), ...q })).toThrow(
      RangeError,
    );
  });
});

describe('planAllocation: the offer models it keeps', () => {
  it('stay within their part of the calculator’s bytes, whatever horizons clients ask for', () => {
    const institutions = Array.from({ length: 12 }, (_, i) => bank(`b${i}`));
    const offers = institutions.flatMap((b, i) => [
      flex(`${b.id}-flex`, b.id, `${2 + i / 10}`),
      // a promotion for 6 months: a model of several segments, different for every horizon
      flex(`${b.id}-promo`, b.id, '1.50', {
        promotion: { kind: 'bonus', rate: amount('2.00'), months: 6, maxBalance: amount('50000') },
      }),
    ]);
    const catalog = buildCatalog(institutions, offers);
    const calc = createCalcService({ maxBytes: 512 * 1024 });
    for (let horizon = 1; horizon <= 48; horizon++)
      planAllocation({ catalog, calc, now }, planQuery({ amount: amount('150000'), horizon }));
    const models = calc.planModels(catalog);
    expect(models.calculatedSize).toBeLessThanOrEqual(models.maxSize);
    expect(models.maxSize).toBeLessThan(512 * 1024);
    // 24 offers × 48 horizons asked; only the most recent fit
    expect(models.size).toBeLessThan(24 * 48);
    expect(calc.stats().bytes).toBeLessThanOrEqual(calc.stats().maxBytes);
  });
});

describe('planAllocation: models for the candidates it keeps', () => {
  // per bank six flexible accounts of one domain and rising rates: with two parts at most, the four
  // lowest are dominated by two better ones of their bank and never part of a plan
  const institutions = Array.from({ length: 8 }, (_, i) => bank(`b${i}`));
  const offers = institutions.flatMap((b, i) =>
    Array.from({ length: 6 }, (_, k) => flex(`${b.id}-flex-${k}`, b.id, `${1 + i / 10 + k / 7}`.slice(0, 4))),
  );

  it('makes, once their facts are known, the models of the kept candidates only, and the same plan', () => {
    const catalog = buildCatalog(institutions, offers);
    const calc = createCalcService();
    const q = (a: string) => planQuery({ amount: amount(a), maxOffers: 2 });
    const first = planAllocation({ catalog, calc, now }, q('150000'));
    const models = calc.planModels(catalog);
    // unknown facts: every candidate modelled to learn them
    expect(models.size).toBe(first.search.candidates);
    models.clear();
    const second = planAllocation({ catalog, calc, now }, q('180000.50'));
    expect(second.search.kept).toBeLessThan(second.search.candidates);
    expect(models.size).toBe(second.search.kept);
    const fresh = planAllocation({ catalog, calc: createCalcService(), now }, q('180000.50'));
    expect(shown(second)).toEqual(shown(fresh));
    expect(second.search).toEqual(fresh.search);
  });
});

describe('planSteps: a plan stopped while it learns its candidates’ facts', () => {
  it('keeps those it learned, counted by the cache', () => {
    const institutions = Array.from({ length: 8 }, (_, i) => bank(`b${i}`));
    const offers = institutions.flatMap((b, i) =>
      Array.from({ length: 6 }, (_, k) => flex(`${b.id}-flex-${k}`, b.id, `${1 + i / 10 + k / 7}`.slice(0, 4))),
    );
    const catalog = buildCatalog(institutions, offers);
    const calc = createCalcService();
    const steps = planSteps({ catalog, calc, now }, planQuery({ amount: amount('150000') }));
    // a few pauses into the offers (every 16, and after each model made), then its client goes
    for (let i = 0; i < 3; i++) expect(steps.next().done).toBe(false);
    steps.return(undefined as never);
    const facts = calc.planFacts(catalog);
    const learned = [...facts.values()];
    expect(learned).toHaveLength(1);
    expect(learned[0]!.size).toBeGreaterThan(0);
    expect(learned[0]!.size).toBeLessThan(offers.length);
    expect(facts.calculatedSize).toBe(learned[0]!.size);
  });
});

describe('planSteps: a plan computed in slices', () => {
  const institutions = Array.from({ length: 10 }, (_, i) => bank(`b${i}`, { limit: `${50_000 + i * 10_000}` }));
  const offers = institutions.flatMap((b, i) => [
    flex(`${b.id}-flex`, b.id, `${1.5 + i / 7}`.slice(0, 4)),
    deposit(`${b.id}-dep`, b.id, `${2.1 + i / 9}`.slice(0, 4), 12),
    flex(`${b.id}-tier`, b.id, '1.00', {
      tiers: [
        ['0', '1.00'],
        ['20000', `${2.4 + i / 11}`.slice(0, 4)],
      ],
    }),
  ]);

  it.each([
    ['480000', 6, '0'],
    ['733000.55', 9, '33'],
    ['95000', 2, '50'],
  ])(
    'is the plan computed at once, whatever the lane pauses (%s, maxOffers %i, flexible %s %%)',
    async (a, maxOffers, share) => {
      const catalog = buildCatalog(institutions, offers);
      const q = planQuery({ amount: amount(a), maxOffers, flexibleShare: amount(share) });
      const atOnce = planAllocation({ catalog, calc: createCalcService(), now }, q);
      // a slice of no time: the lane pauses the search at every step it yields
      const sliced = await new CpuLane(0, 1).run(planSteps({ catalog, calc: createCalcService(), now }, q));
      expect(shown(sliced)).toEqual(shown(atOnce));
      expect([sliced.optimal, sliced.optimalityGap?.toString()]).toEqual([
        atOnce.optimal,
        atOnce.optimalityGap?.toString(),
      ]);
    },
  );

  it('stops when told, with the best plan found and the gap its bounds leave, as its work budget does', () => {
    const catalog = buildCatalog(institutions, offers);
    const q = planQuery({ amount: amount('733000'), maxOffers: 5, flexibleShare: amount('33') });
    const full = planAllocation({ catalog, calc: createCalcService(), now }, q);
    const stopped = planAllocation({ catalog, calc: createCalcService(), now, stop: () => true }, q);
    expect(full.optimal).toBe(true);
    // told at the first choice: only the first plans (the seeds) were tried, and they are not the best here
    expect(stopped.optimal).toBe(false);
    // the seeds' plan is a plan that keeps every rule; what it leaves is at most the gap
    expect(stopped.allocations.length).toBeGreaterThan(0);
    expect(stopped.optimalityGap === null || stopped.optimalityGap.gt(0)).toBe(true);
    const earned = (p: SavingsPlan) => p.totals.returnPerYear;
    expect(earned(stopped).lte(earned(full))).toBe(true);
    if (stopped.optimalityGap) expect(earned(stopped).plus(stopped.optimalityGap).gte(earned(full))).toBe(true);
  });
});
