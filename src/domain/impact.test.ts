import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { changeImpact } from './impact.js';
import type { CalcTerms, Promotion } from './types.js';

function terms(rate: string, overrides: Partial<CalcTerms> = {}): CalcTerms {
  return {
    tierMode: 'whole',
    tiers: [{ from: new Decimal(0), to: null, rate: new Decimal(rate) }],
    promotion: null,
    payout: 'MONTHLY',
    interestCompounds: true,
    annualFee: new Decimal(0),
    withholdingRate: new Decimal(0),
    ...overrides,
  };
}

const promotion = (kind: Promotion['kind'], rate: string, months: number, maxBalance: string | null): Promotion => ({
  kind,
  rate: new Decimal(rate),
  months,
  maxBalance: maxBalance === null ? null : new Decimal(maxBalance),
});

const tiered = (low: string, high: string): CalcTerms => ({
  ...terms(low),
  tiers: [
    { from: new Decimal(0), to: new Decimal(25_000), rate: new Decimal(low) },
    { from: new Decimal(25_000), to: null, rate: new Decimal(high) },
  ],
});

// Expected values worked out by hand (an independent month-by-month loop in Python's decimal module at
// 60 digits, then rounded half-up): the return per year is amount × comparable yield / 100.
describe('changeImpact', () => {
  it.each([
    // [case, amount, months, before, after, returnPerYearBefore, returnPerYearAfter, delta]
    [
      'rate up, monthly compounding: (1 + r/1200)^12 − 1',
      '10000',
      12,
      terms('2.00'),
      terms('2.05'),
      '201.84',
      '206.94',
      '5.10',
    ],
    ['rate down', '10000', 12, terms('2.35'), terms('2.10'), '237.55', '212.03', '-25.52'],
    [
      'deposit paid at maturity: simple interest, annualised over its 12 months',
      '25000',
      12,
      terms('2.60', { payout: 'AT_MATURITY' }),
      terms('2.40', { payout: 'AT_MATURITY' }),
      '650.00',
      '600.00',
      '-50.00',
    ],
    [
      'a 60-month deposit paying yearly, not compounding: the comparable yield is the rate',
      '10000',
      60,
      terms('3.00', { payout: 'ANNUALLY', interestCompounds: false }),
      terms('3.20', { payout: 'ANNUALLY', interestCompounds: false }),
      '300.00',
      '320.00',
      '20.00',
    ],
    [
      'a change to a tier the amount is not in changes nothing',
      '20000',
      12,
      tiered('2.10', '2.35'),
      tiered('2.10', '2.50'),
      '424.07',
      '424.07',
      '0.00',
    ],
    [
      'promotion start: +0.75 for 6 months on the first 5,000',
      '10000',
      12,
      terms('2.00'),
      terms('2.00', { promotion: promotion('bonus', '0.75', 6, '5000') }),
      '201.84',
      '220.86',
      '19.02',
    ],
    [
      'promotion end: 4.00 instead of 1.50 for 3 months',
      '5000',
      12,
      terms('1.50', { promotion: promotion('replace', '4.00', 3, null) }),
      terms('1.50'),
      '107.27',
      '75.52',
      '-31.75',
    ],
    [
      'promotion start: 3.00 instead of 2.00 on the first 10,000 of 30,000',
      '30000',
      12,
      terms('2.00'),
      terms('2.00', { promotion: promotion('replace', '3.00', 12, '10000') }),
      '605.53',
      '706.45',
      '100.92',
    ],
  ] as const)('%s', (_case, amount, months, before, after, returnPerYearBefore, returnPerYearAfter, delta) => {
    expect(changeImpact({ amount: new Decimal(amount), months, before, after })).toEqual({
      amount: new Decimal(amount).toFixed(2),
      returnPerYearBefore,
      returnPerYearAfter,
      delta,
    });
  });

  it(
    'takes the difference of the shown values, so the three numbers add up ' + '(201.8436 → 206.9372: 5.10, not 5.09)',
    () => {
      const impact = changeImpact({
        amount: new Decimal('10000'),
        months: 12,
        before: terms('2.00'),
        after: terms('2.05'),
      });
      expect(new Decimal(impact.returnPerYearAfter).minus(impact.returnPerYearBefore).toFixed(2)).toBe(impact.delta);
      expect(impact.delta).toBe('5.10');
    },
  );

  it('shows the amount with two decimals', () => {
    expect(
      changeImpact({ amount: new Decimal('1234.5'), months: 12, before: terms('1'), after: terms('2') }).amount,
    ).toBe('1234.50');
  });
});
