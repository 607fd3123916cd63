import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculate } from './calc.js';
import { Decimal } from './decimal.js';
import { createCalculator } from './fast-calc.js';
import type { CalcSummary, CalcYields } from './types.js';
import { presentCalc } from './present.js';
import type { CalcInput, CalcResult, CalcTerms, Promotion, Tier } from './types.js';
import { annualisedPercent } from './root.js';
import { arbitraryCase, arbitraryOffer, arbitraryTerms, edgeAmounts } from './__tests__/arbitraries.js';

const FIELDS = [
  'nominalRate',
  'grossInterest',
  'withholdingTax',
  'fees',
  'netInterest',
  'endBalance',
  'comparableYield',
  'effectiveRate',
  'returnPerYear',
] as const;
const MONEY = new Set<string>([
  'grossInterest',
  'withholdingTax',
  'fees',
  'netInterest',
  'endBalance',
  'returnPerYear',
]);
const TOLERANCE = new Decimal('1e-24');

/**
 * Fast and reference agree: every unrounded value within 1e-24 relative (of the amount for money, of
 * 1 % for rates, so that a value near 0 is not held to a relative bound it cannot have), and the
 * shown strings identical.
 */
function expectSame(fast: CalcSummary, input: CalcInput, ref: CalcResult = calculate(input)): void {
  expect(fast.amount.eq(ref.amount)).toBe(true);
  expect(fast.months).toBe(ref.months);
  expect(fast.promotionApplied).toBe(ref.promotionApplied);
  for (const field of FIELDS) {
    const a = fast[field];
    const b = ref[field];
    const scale = Decimal.max(a.abs(), b.abs(), MONEY.has(field) ? input.amount : 1);
    if (a.minus(b).abs().gt(scale.times(TOLERANCE))) {
      throw new Error(`${field}: fast ${a.toString()} vs reference ${b.toString()}`);
    }
  }
  expect(presentCalc(fast)).toEqual(presentCalc(ref));
}

/** evaluateYields agrees with the reference on its three values, unrounded and shown. */
function expectSameYields(fast: CalcYields, input: CalcInput, ref: CalcResult = calculate(input)): void {
  for (const field of ['comparableYield', 'effectiveRate', 'returnPerYear'] as const) {
    const scale = Decimal.max(fast[field].abs(), ref[field].abs(), field === 'returnPerYear' ? input.amount : 1);
    if (fast[field].minus(ref[field]).abs().gt(scale.times(TOLERANCE))) {
      throw new Error(`${field}: fast ${fast[field].toString()} vs reference ${ref[field].toString()}`);
    }
  }
  const shown = presentCalc(ref);
  const cents = presentCalc({ ...ref, ...fast });
  expect([cents.comparableYield, cents.effectiveRate, cents.returnPerYear]).toEqual([
    shown.comparableYield,
    shown.effectiveRate,
    shown.returnPerYear,
  ]);
  expect(fast.months).toBe(ref.months);
}

type TierSpec = [from: string, to: string | null, rate: string];
const tiers = (...specs: TierSpec[]): Tier[] =>
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
function terms(overrides: Partial<CalcTerms> = {}): CalcTerms {
  return {
    tierMode: 'whole',
    tiers: tiers(['0', '25000', '2.00'], ['25000', null, '3.00']),
    promotion: null,
    payout: 'MONTHLY',
    interestCompounds: true,
    annualFee: new Decimal(0),
    withholdingRate: new Decimal(0),
    ...overrides,
  };
}
const input = (
  amount: string,
  months: number,
  t: CalcTerms,
  promotions: CalcInput['promotions'] = 'include',
): CalcInput => ({
  amount: new Decimal(amount),
  months,
  promotions,
  terms: t,
});

describe('createCalculator: the same numbers as calculate', () => {
  it.each([
    { label: 'whole tiers, crossing 25,000 through interest', t: terms(), months: 12 },
    { label: 'marginal tiers, crossing 25,000 through interest', t: terms({ tierMode: 'marginal' }), months: 12 },
    { label: 'quarterly over 7 months', t: terms({ payout: 'QUARTERLY' }), months: 7 },
    { label: 'at maturity over 24 months (a square root)', t: terms({ payout: 'AT_MATURITY' }), months: 24 },
    { label: 'paid out yearly over 60 months', t: terms({ payout: 'ANNUALLY', interestCompounds: false }), months: 60 },
    {
      label: 'withholding 25 % and a fee',
      t: terms({ withholdingRate: new Decimal(25), annualFee: new Decimal('12.50') }),
      months: 36,
    },
    { label: 'a capped bonus', t: terms({ promotion: promo('bonus', '0.75', 6, '50000') }), months: 12 },
    {
      label: 'a capped replace, whole tiers',
      t: terms({ promotion: promo('replace', '4.00', 6, '30000') }),
      months: 12,
    },
    {
      label: 'an uncapped replace, marginal tiers',
      t: terms({ tierMode: 'marginal', promotion: promo('replace', '4.00', 6, null) }),
      months: 12,
    },
    {
      label: 'negative rates',
      t: terms({ tiers: tiers(['0', '25000', '-0.50'], ['25000', null, '-1.00']) }),
      months: 24,
    },
    { label: '1 month', t: terms(), months: 1 },
    { label: '120 months', t: terms({ payout: 'ANNUALLY' }), months: 120 },
    { label: 'fees larger than the interest', t: terms({ annualFee: new Decimal(2000) }), months: 7 },
  ])('$label', ({ t, months }) => {
    const calc = createCalculator();
    const amounts = [
      '0.01',
      '12345.67',
      '24509.80',
      '24990',
      '24999.99',
      '25000',
      '25000.01',
      '29999.99',
      '30000',
      '50000',
      '50000.01',
      '1000000',
    ];
    // twice: the second pass is answered from the pieces the first one built
    for (const pass of [1, 2]) {
      for (const a of amounts) expectSame(calc.evaluate('offer', input(a, months, t)), input(a, months, t));
      if (pass === 1) expect(calc.stats().pieces).toBeGreaterThan(0);
    }
    expect(calc.stats().hits).toBeGreaterThanOrEqual(amounts.length);
  });

  it('falls back to the reference where a month is not affine (marginal tiers, replace above its cap)', () => {
    // above 30,000 in the 3 % tier: base(B)·(B − cap)/B has a c·cap/B term
    const t = terms({ tierMode: 'marginal', promotion: promo('replace', '4.00', 6, '30000') });
    const calc = createCalculator();
    for (const a of ['40000', '40000', '20000']) expectSame(calc.evaluate('offer', input(a, 12, t)), input(a, 12, t));
    const stats = calc.stats();
    expect(stats.unpieceable).toBe(1); // 40,000 the first time
    expect(stats.exactHits).toBe(1); // 40,000 the second time
    expect(stats.pieces).toBe(1); // 20,000 stays below the cap: pieceable
  });

  it('does not answer from an exact result computed for other terms under the same key', () => {
    // regression: an unpieceable key's entry is dropped, its exact result stays; the key then
    // comes back with other terms and the same amount
    const calc = createCalculator();
    const unpieceable = terms({ tierMode: 'marginal', promotion: promo('replace', '4.00', 6, '30000') });
    calc.evaluate('offer', input('40000', 12, unpieceable));
    const other = terms({ tiers: tiers(['0', null, '1.00']) });
    expectSame(calc.evaluate('offer', input('40000', 12, other)), input('40000', 12, other));
  });

  it('shows exact half cents like the reference (25 % tax on 77.50)', () => {
    // 2,500 at 3.10 % yearly: tax 19.375 exactly, held by both as 19.37499…; both show 19.38
    const t = terms({ tiers: tiers(['0', null, '3.10']), payout: 'ANNUALLY', withholdingRate: new Decimal(25) });
    const calc = createCalculator();
    calc.evaluate('offer', input('1000', 12, t)); // builds the piece
    const fast = calc.evaluate('offer', input('2500', 12, t));
    expectSame(fast, input('2500', 12, t));
    expect(presentCalc(fast).withholdingTax).toBe('19.38');
    expect(calc.stats().guarded).toBe(0);
  });

  it('property: fast == reference for random terms, amounts, periods and modes', () => {
    // several amounts per offer (the later ones meet the pieces the earlier ones built), one
    // calculator for the whole run (keys come and go, pieces are evicted)
    const calc = createCalculator({ maxPieces: 500, maxExact: 100 });
    let offer = 0;
    fc.assert(
      fc.property(arbitraryOffer(), ({ terms: t, months, promotions, amounts }) => {
        const key = `offer-${offer++}`;
        for (const amount of amounts) {
          const c = { amount, months, promotions, terms: t };
          const ref = calculate(c);
          expectSame(calc.evaluate(key, c), c, ref);
          expectSameYields(calc.evaluateYields(key, c), c, ref);
        }
      }),
      { numRuns: 400 },
    );
    expect(calc.stats().hits).toBeGreaterThan(0);
  });

  it('property: a key reused for other terms never answers with the old ones', () => {
    // keys are recycled on purpose: the calculator must notice the terms changed, also for exact results
    const calc = createCalculator({ maxPieces: 50, maxExact: 50 });
    let n = 0;
    fc.assert(
      fc.property(arbitraryCase(), (c) => {
        expectSame(calc.evaluate(`k${n++ % 7}`, c), c);
        expectSame(calc.evaluate(`k${n % 7}`, c), c);
      }),
      { numRuns: 300 },
    );
  });

  it('property: every amount at and around the tier bounds and caps, on a warm calculator', () => {
    fc.assert(
      fc.property(
        arbitraryTerms(),
        fc.integer({ min: 1, max: 60 }),
        fc.constantFrom('include' as const, 'exclude' as const),
        (t, months, mode) => {
          const calc = createCalculator();
          const amounts = [...edgeAmounts(t), new Decimal('1000'), new Decimal('99999.99')];
          for (const a of [...amounts, ...amounts.reverse()]) {
            const c = { amount: a, months, promotions: mode, terms: t };
            const ref = calculate(c);
            const yields = calc.evaluateYields('offer', c);
            expectSameYields(yields, c, ref);
            // what a list ranks by: the same two values, without returnPerYear
            const rank = calc.evaluateRank('offer', c);
            expect([rank.comparableYield.toString(), rank.effectiveRate.toString()]).toEqual([
              yields.comparableYield.toString(),
              yields.effectiveRate.toString(),
            ]);
            expectSame(calc.evaluate('offer', c), c, ref);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('createCalculator: pieces', () => {
  it('evaluateYields gives the values evaluate gives, from the same pieces', () => {
    const t = terms({ tierMode: 'marginal', annualFee: new Decimal(30), withholdingRate: new Decimal(15) });
    const calc = createCalculator();
    for (const a of ['1000', '30000.55', '1000', '30000.55']) {
      const full = calc.evaluate('offer', input(a, 24, t));
      const yields = calc.evaluateYields('offer', input(a, 24, t));
      expect(yields.comparableYield.toString()).toBe(full.comparableYield.toString());
      expect(yields.effectiveRate.toString()).toBe(full.effectiveRate.toString());
      expect(yields.returnPerYear.toString()).toBe(full.returnPerYear.toString());
    }
    expect(calc.stats()).toMatchObject({ misses: 2, hits: 6 });
  });

  it('answers any amount of a linear piece with the piece’s constant yields', () => {
    // single tier, no cap, no fee: G* = s·A, so (A + G*)/A is one number for every amount
    const t = terms({ tiers: tiers(['0', null, '2.40']) });
    const calc = createCalculator();
    const a = calc.evaluate('offer', input('1000', 24, t));
    const b = calc.evaluate('offer', input('987654.32', 24, t));
    expect(calc.stats()).toMatchObject({ pieces: 1, misses: 1, hits: 1 });
    expect(a.comparableYield).toBe(b.comparableYield);
    expect(a.effectiveRate).toBe(b.effectiveRate);
  });

  it('gives the same digits whichever amounts built the pieces', () => {
    const t = terms({
      tierMode: 'marginal',
      withholdingRate: new Decimal(15),
      promotion: promo('bonus', '0.50', 6, '40000'),
    });
    const amounts = ['20000', '24800.55', '30000', '45000.10', '80000'];
    const run = (order: string[]) => {
      const calc = createCalculator();
      return new Map(order.map((a) => [a, calc.evaluate('offer', input(a, 36, t))] as const));
    };
    const forward = run(amounts);
    const backward = run([...amounts].reverse());
    for (const a of amounts) {
      for (const f of ['grossInterest', 'comparableYield', 'effectiveRate', 'returnPerYear'] as const) {
        expect(forward.get(a)![f].toString()).toBe(backward.get(a)![f].toString());
      }
    }
  });

  it('evicts the least recently used pieces beyond maxPieces', () => {
    const calc = createCalculator({ maxPieces: 10 });
    const t = terms({ tiers: tiers(['0', null, '2.00']) });
    for (let i = 0; i < 30; i++) calc.evaluate(`offer-${i}`, input('1000', 12, t));
    const stats = calc.stats();
    expect(stats.pieces).toBeLessThanOrEqual(10);
    expect(stats.evictions).toBe(30 - stats.pieces);
    // the most recent keys survived, the oldest did not
    calc.evaluate('offer-29', input('2000', 12, t));
    expect(calc.stats().hits).toBe(1);
    calc.evaluate('offer-0', input('2000', 12, t));
    expect(calc.stats().misses).toBe(31);
  });

  it('evicts exactly the pieces used longest ago, whatever the order they were used in', () => {
    const t = terms({ tiers: tiers(['0', null, '2.00']) });
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 20; round++) {
      const calc = createCalculator({ maxPieces: 10 });
      for (let i = 0; i < 10; i++) calc.evaluate(`offer-${i}`, input('1000', 12, t));
      const order = [...Array(10).keys()].sort(() => random() - 0.5);
      for (const i of order) calc.evaluate(`offer-${i}`, input('1000', 12, t));
      // An eleventh piece: a tenth of the budget goes, the one used longest ago.
      calc.evaluate('offer-new', input('1000', 12, t));
      expect(calc.stats()).toMatchObject({ pieces: 10, evictions: 1, hits: 10 });
      for (const i of order.slice(1)) calc.evaluate(`offer-${i}`, input('1000', 12, t));
      expect(calc.stats().hits).toBe(19);
      calc.evaluate(`offer-${order[0]}`, input('1000', 12, t));
      expect(calc.stats()).toMatchObject({ hits: 19, misses: 12 });
    }
  });

  it("ranks an evicted piece's offer from its shadow as the piece would: the same floats, the same digits", () => {
    let fromShadows = 0;
    const other = terms({ tiers: tiers(['0', null, '1.00']) });
    fc.assert(
      fc.property(arbitraryOffer(), ({ terms: t, months, promotions, amounts }) => {
        const kept = createCalculator();
        const evicting = createCalculator({ maxPieces: 1 });
        for (const amount of amounts) {
          const asked: CalcInput = { amount, months, promotions, terms: t };
          const before = evicting.stats().shadowed;
          const shadowed = evicting.evaluateRank('offer', asked);
          const fromShadow = evicting.stats().shadowed > before;
          const piece = kept.evaluateRank('offer', asked);
          if (fromShadow) {
            fromShadows++;
            // A float from the shadow is the float the piece gives where the piece ranks by floats…
            if (piece.roughComparable !== undefined) {
              expect(shadowed.roughComparable).toBe(piece.roughComparable);
              expect(shadowed.roughEffective).toBe(piece.roughEffective);
            } else {
              // …and within the rough bound of the exact yield where the piece's constant is worked out.
              const y = piece.comparableYield.toNumber();
              expect(Math.abs(shadowed.roughComparable! - y)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(y)));
            }
          }
          expect(shadowed.comparableYield.toString()).toBe(piece.comparableYield.toString());
          expect(shadowed.effectiveRate.toString()).toBe(piece.effectiveRate.toString());
          // Another key's piece evicts this one's: the next amount meets its shadow.
          evicting.evaluateRank('other', { amount, months, promotions, terms: other });
        }
      }),
      { numRuns: 300 },
    );
    expect(fromShadows).toBeGreaterThan(100);
  });

  it("keeps no more shadows than its bound, however many a key's evicted pieces leave", () => {
    // Ten tiers: ten pieces of one key at ten amounts, each evicted by the next.
    const bands = Array.from({ length: 10 }, (_, i): TierSpec => [
      String(i * 10_000),
      i === 9 ? null : String((i + 1) * 10_000),
      `${1 + i / 10}`,
    ]);
    const t = terms({ tiers: tiers(...bands) });
    const calc = createCalculator({ maxPieces: 1, maxShadows: 3 });
    for (let i = 0; i < 10; i++) calc.evaluate('offer', input(String(i * 10_000 + 5_000), 12, t));
    const stats = calc.stats();
    expect(stats.evictions).toBeGreaterThanOrEqual(9);
    // Evicted a key's group at a time: here the only key's, whenever it outgrows the bound.
    expect(stats.shadows).toBeGreaterThan(0);
    expect(stats.shadows).toBeLessThanOrEqual(3);
  });

  it('keeps the pieces of a whole pass when told to hold them, where least-recently-used kept none', () => {
    const t = terms({ tiers: tiers(['0', null, '2.00']) });
    // Two passes over 30 keys, as two lists at new amounts over a market of 30 offers.
    const twoPasses = (calc: ReturnType<typeof createCalculator>) => {
      for (const amount of ['1000', '2000.5'])
        for (let i = 0; i < 30; i++) calc.evaluateRank(`offer-${i}`, input(amount, 12, t));
      return calc.stats();
    };
    // Without the evicted pieces' shadows, which would rank the second pass without a piece (tested below).
    const starved = twoPasses(createCalculator({ maxPieces: 10, maxShadows: 0 }));
    expect(starved.hits).toBe(0);
    expect(starved.misses).toBe(60);

    const held = createCalculator({ maxPieces: 10 });
    held.holdAtLeast(30);
    const stats = twoPasses(held);
    expect(stats).toMatchObject({ pieces: 30, evictions: 0, misses: 30, hits: 30 });

    // Back to the budget's count (a smaller catalogue): the next piece built evicts down to it.
    held.holdAtLeast(5);
    held.evaluateRank('offer-new', input('1000', 12, t));
    expect(held.stats().pieces).toBeLessThanOrEqual(10);
  });

  it('starts a key again when its terms change', () => {
    const calc = createCalculator();
    const before = terms({ tiers: tiers(['0', null, '2.00']) });
    const after = terms({ tiers: tiers(['0', null, '2.50']) });
    calc.evaluate('offer', input('1000', 12, before));
    // equal terms in a new object: the same key and pieces
    calc.evaluate('offer', input('2000', 12, terms({ tiers: tiers(['0', null, '2.00']) })));
    expect(calc.stats()).toMatchObject({ hits: 1, misses: 1 });
    const changed = calc.evaluate('offer', input('2000', 12, after));
    expect(presentCalc(changed).nominalRate).toBe('2.50');
    expect(calc.stats()).toMatchObject({ hits: 1, misses: 2, pieces: 1 });
  });

  it('shares pieces between the include and only modes (only is a filter)', () => {
    const calc = createCalculator();
    const t = terms({ promotion: promo('bonus', '0.50', 6, null) });
    calc.evaluate('offer', input('1000', 12, t, 'include'));
    expectSame(calc.evaluate('offer', input('2000', 12, t, 'only')), input('2000', 12, t, 'only'));
    expect(calc.stats()).toMatchObject({ hits: 1, misses: 1 });
  });

  it('clears its pieces and counters', () => {
    const calc = createCalculator();
    calc.evaluate('offer', input('1000', 12, terms()));
    calc.clear();
    expect(calc.stats()).toEqual({
      keys: 0,
      pieces: 0,
      hits: 0,
      misses: 0,
      evictions: 0,
      fallbacks: 0,
      unpieceable: 0,
      guarded: 0,
      exactHits: 0,
      exactEntries: 0,
      shadows: 0,
      shadowed: 0,
    });
  });

  it.each([
    { amount: '0', months: 12 },
    { amount: '-1', months: 12 },
    { amount: '100', months: 0 },
  ])('rejects amount $amount over $months months like calculate', ({ amount, months }) => {
    expect(() => createCalculator().evaluate('offer', input(amount, months, terms()))).toThrow(RangeError);
  });
});

describe('createCalculator: pieceAt, the closed form of a piece', () => {
  /** (ratio^(12/n) − 1) × 100, or −100 for a ratio ≤ 0: the annualisation of contract §2. */
  const annualised = (ratio: Decimal, months: number) => annualisedPercent(ratio, months);

  it('property: the piece holds the amount and its closed form gives the evaluated yields', () => {
    const calc = createCalculator();
    let offer = 0;
    fc.assert(
      fc.property(arbitraryOffer(), ({ terms: t, months, promotions, amounts }) => {
        const key = `offer-${offer++}`;
        for (const amount of amounts) {
          const c = { amount, months, promotions, terms: t };
          const shape = calc.pieceAt(key, c);
          if (shape === null) continue; // a month not affine in B: the reference answers
          if (shape.lo !== null) expect(amount.gte(shape.lo)).toBe(true);
          if (shape.hi !== null) expect(amount.lt(shape.hi)).toBe(true);
          expect(shape.months).toBe(months);
          const ref = calculate(c);
          const comparable = annualised(shape.comparableS.plus(shape.comparableT.div(amount)), months);
          const net = annualised(shape.netS.plus(shape.netT.div(amount)), months);
          expect(comparable.minus(ref.comparableYield).abs().lte('1e-20')).toBe(true);
          expect(net.minus(ref.effectiveRate).abs().lte('1e-20')).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is null where a month is not affine (marginal tiers, replace above its cap) and a piece below it', () => {
    const t = terms({ tierMode: 'marginal', promotion: promo('replace', '4.00', 6, '30000') });
    const calc = createCalculator();
    expect(calc.pieceAt('offer', input('40000', 12, t))).toBeNull();
    const below = calc.pieceAt('offer', input('20000', 12, t));
    expect(below).not.toBeNull();
    expect(below!.hi!.lte(30000)).toBe(true);
  });

  it('claims no piece for an amount that stays on a tier bound, whose tier only rounding would decide', () => {
    // found by the property above: marginal, nothing below 10,000 and 0.07 % above it, so that 10,000 earns
    // nothing and stays on the bound every month; traced with rounding it fell a sliver below, in a piece
    // [10000, 10000) that did not hold it
    const t = terms({
      tierMode: 'marginal',
      tiers: tiers(['0', '10000', '0'], ['10000', null, '0.07']),
      withholdingRate: new Decimal('57.46'),
    });
    const calc = createCalculator();
    const at = calc.pieceAt('offer', input('10000', 48, t));
    if (at !== null) {
      expect(at.lo === null || at.lo.lte(10000)).toBe(true);
      expect(at.hi === null || at.hi.gt(10000)).toBe(true);
    }
    const below = calc.pieceAt('offer', input('0.01', 48, t));
    expect(below!.hi!.toString()).toBe('10000');
    // and the answers there are the reference's: to the noise and every shown cent (the piece traced from
    // above the bound holds 10,000, its balance never falling, and answers it)
    expectSame(calc.evaluate('offer', input('10000', 48, t)), input('10000', 48, t));
  });

  it('gives one unbounded linear piece for a single tier without a capped promotion', () => {
    const shape = createCalculator().pieceAt(
      'offer',
      input('1234.56', 24, terms({ tiers: tiers(['0', null, '2.40']) })),
    );
    expect(shape).toMatchObject({ hi: null, months: 24 });
    // the first tier's 0 (or nothing): below every amount
    expect(shape!.lo === null || shape!.lo.lte(0)).toBe(true);
    expect(shape!.comparableT.isZero()).toBe(true);
  });

  it('reports the exact tier bound for a balance that stays put (interest paid out)', () => {
    const t = terms({ payout: 'ANNUALLY', interestCompounds: false });
    const shape = createCalculator().pieceAt('offer', input('10000', 12, t));
    // paid out: B stays A, so the tier's bound 25,000 is the piece's bound, exactly
    expect(shape!.hi!.toString()).toBe('25000');
    expect(shape!.hiExact).toBe(true);
  });
});
