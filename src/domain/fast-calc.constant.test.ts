import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculate } from './calc.js';
import { Decimal } from './decimal.js';
import { createCalculator } from './fast-calc.js';
import type { CalcTerms } from './types.js';

const terms = (over: Partial<CalcTerms> = {}): CalcTerms => ({
  tierMode: 'whole',
  tiers: [{ from: new Decimal(0), to: null, rate: new Decimal('2.50') }],
  promotion: null,
  payout: 'MONTHLY',
  interestCompounds: true,
  annualFee: new Decimal(0),
  withholdingRate: new Decimal(0),
  ...over,
});

describe('constantYields', () => {
  it('is known for one tier without fees, and equals the reference at every amount', () => {
    const calc = createCalculator();
    const t = terms({ withholdingRate: new Decimal('15') });
    const input = (a: string) => ({ amount: new Decimal(a), months: 36, promotions: 'include' as const, terms: t });
    calc.evaluateYields('k', input('25000'));
    const constant = calc.constantYields('k', input('25000'));
    expect(constant).not.toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000_000 }), (cents) => {
        const amount = new Decimal(cents).div(100).toString();
        const reference = calculate(input(amount));
        expect(constant!.comparableYield.minus(reference.comparableYield).abs().lte('1e-24')).toBe(true);
        expect(constant!.effectiveRate.minus(reference.effectiveRate).abs().lte('1e-24')).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it.each([
    [
      'two tiers',
      terms({
        tiers: [
          { from: new Decimal(0), to: new Decimal(25000), rate: new Decimal('2') },
          { from: new Decimal(25000), to: null, rate: new Decimal('3') },
        ],
      }),
    ],
    ['a fee', terms({ annualFee: new Decimal('10') })],
    [
      'a capped promotion',
      terms({ promotion: { kind: 'bonus', rate: new Decimal('0.5'), months: 6, maxBalance: new Decimal(50000) } }),
    ],
  ])('is unknown with %s (the yield depends on the amount)', (_name, t) => {
    const calc = createCalculator();
    const input = { amount: new Decimal('60000'), months: 12, promotions: 'include' as const, terms: t };
    calc.evaluateYields('k', input);
    expect(calc.constantYields('k', input)).toBeNull();
  });
});
