import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryCase } from './__tests__/arbitraries.js';
import { calculate } from './calc.js';
import { Decimal, toFixed2 } from './decimal.js';
import { centsAmbiguous, presentCalc, presentStep, toCents, type PresentableCalc } from './present.js';

const d = (s: string) => new Decimal(s);

function result(overrides: Partial<Record<keyof PresentableCalc, unknown>>): PresentableCalc {
  return {
    amount: d('1000'),
    months: 12,
    promotionApplied: false,
    nominalRate: d('2'),
    grossInterest: d('0'),
    withholdingTax: d('0'),
    fees: d('0'),
    netInterest: d('0'),
    endBalance: d('1000'),
    comparableYield: d('0'),
    effectiveRate: d('0'),
    returnPerYear: d('0'),
    ...overrides,
  } as PresentableCalc;
}

describe('presentCalc', () => {
  it('shows net and end balance as the sums of the shown components', () => {
    // gross 1.006 → 1.01 and tax 0.004 → 0.00; net 1.002 would round to 1.00 on its own,
    // but the saver sees 1.01 − 0.00 − 0.00, so net is 1.01 and the end balance 1,001.01
    const r = presentCalc(
      result({
        grossInterest: d('1.006'),
        withholdingTax: d('0.004'),
        netInterest: d('1.002'),
        endBalance: d('1001.002'),
      }),
    );
    expect(r).toMatchObject({
      grossInterest: '1.01',
      withholdingTax: '0.00',
      netInterest: '1.01',
      endBalance: '1001.01',
    });
  });

  it('subtracts the shown fees', () => {
    // 10.004 → 10.00; 0.005 → 0.01 (half-up); fees 25.004 → 25.00: net 10.00 − 0.01 − 25.00 = −15.01
    const r = presentCalc(result({ grossInterest: d('10.004'), withholdingTax: d('0.005'), fees: d('25.004') }));
    expect(r).toMatchObject({ netInterest: '-15.01', endBalance: '984.99' });
  });

  it('presents every step value to the cent', () => {
    const step = {
      month: 1,
      openingBalance: d('1000'),
      rate: d('2.404999'),
      interest: d('2.0041'),
      credited: d('2.005'),
      withholding: d('0'),
      closingBalance: d('1002.005'),
    };
    // a one-month run: the month's credit is the whole gross interest
    expect(presentCalc(result({ grossInterest: d('2.005'), steps: [step] })).steps).toEqual([
      {
        month: 1,
        openingBalance: '1000.00',
        rate: '2.40',
        interest: '2.00',
        credited: '2.01',
        withholding: '0.00',
        closingBalance: '1002.01',
      },
    ]);
  });
});

describe('toCents', () => {
  it.each([
    { value: '2.385', cents: '2.39', why: 'a half cent rounds up' },
    { value: '-2.385', cents: '-2.39', why: 'and away from zero below zero' },
    { value: '-0.001', cents: '0.00', why: 'never "-0.00"' },
    {
      value: '19.37499999999999999999999999999999',
      cents: '19.38',
      why: 'a half cent missed by 1e-32 (34-digit noise) is a half cent',
    },
    { value: '2.385000000000000000000000000000001', cents: '2.39', why: 'noise above a half cent changes nothing' },
    { value: '2.384999999999', cents: '2.38', why: '1e-12 below a half cent is a real difference' },
    { value: '2.384999999999999', cents: '2.38', why: '1e-15 below (the 16th digit) still counts' },
    { value: '2.3849999999999999', cents: '2.39', why: '1e-16 below (the 17th) is taken for noise' },
    {
      value: '123456789.9949999',
      cents: '123456789.99',
      why: 'large values keep 16 significant digits: 1e-7 below is real',
    },
    { value: '123456789.994999999999999999999', cents: '123456790.00', why: 'and 1e-21 below is noise at that size' },
  ])('$value → $cents: $why', ({ value, cents }) => {
    expect(toCents(d(value))).toBe(cents);
  });

  it('measures money against the amount: noise of a large amount’s balance is not a real difference', () => {
    // scale 1e6 (amount 1,000,000): 16 significant digits of it are 10 decimals
    expect(toCents(d('0.12499999999999'), 6)).toBe('0.13');
    expect(toCents(d('0.12499999999999'), 0)).toBe('0.12');
  });
});

describe('centsAmbiguous', () => {
  it.each([
    { value: '2.385', ambiguous: false, why: 'exactly a half cent: every computation shows 2.39' },
    { value: '19.37499999999999999999999999999999', ambiguous: false, why: 'a half cent up to noise' },
    {
      value: '2.3849999999999999',
      ambiguous: true,
      why:
        '1e-16 from a half cent: noise could not move it, but a nearby computation may land on either side of ' +
        'the kept digit',
    },
    { value: '2.38500000000000001', ambiguous: true, why: '1e-17 above' },
    { value: '2.3851', ambiguous: false, why: 'clearly above' },
    { value: '2.38', ambiguous: false, why: 'a whole cent' },
  ])('$value: $why', ({ value, ambiguous }) => {
    expect(centsAmbiguous(d(value))).toBe(ambiguous);
  });

  it('agrees with a string-based reading of the digits', () => {
    // the plain way: print the value to kept + 10 decimals and read the digits after the cent
    const byString = (v: Decimal, scaleExp: number) => {
      const kept = Math.max(3, 15 - Math.max(v.e, scaleExp));
      const tail = v
        .abs()
        .toFixed(kept + 10, Decimal.ROUND_DOWN)
        .split('.')[1]!
        .slice(2);
      const fill = tail[0] === '5' ? '0' : tail[0] === '4' ? '9' : null;
      if (fill === null) return false;
      const keptPart = tail.slice(1, kept - 2);
      const noisePart = tail.slice(kept - 2);
      return [...keptPart].every((c) => c === fill) && ![...noisePart].every((c) => c === fill);
    };
    const digits = fc.oneof(
      fc.constantFrom('5', '4', '50000000000000000', '49999999999999999'),
      fc.stringMatching(/^[0-9]{0,40}$/),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        digits,
        digits,
        fc.integer({ min: -2, max: 8 }),
        (whole, a, b, scaleExp) => {
          const v = d(`${whole}.${a}${b}`.replace(/\.$/, ''));
          expect(centsAmbiguous(v, scaleExp)).toBe(byString(v, scaleExp));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('the steps', () => {
  it('property: each shown as presentStep shows it alone, the last balance aside (made again only on change)', () => {
    fc.assert(
      fc.property(arbitraryCase(), (input) => {
        const result = calculate(input, { steps: true });
        const own = result.steps.map((step) => presentStep(step, input.amount));
        const shown = presentCalc(result).steps;
        expect(shown.slice(0, -1)).toEqual(own.slice(0, -1));
        expect({ ...shown.at(-1), closingBalance: '' }).toEqual({ ...own.at(-1), closingBalance: '' });
      }),
      { numRuns: 1500 },
    );
  });
});

describe('the numbers of one calculation agree (contract §11.2)', () => {
  it('shows the last balance as end balance + fees when interest compounds, and the amount when it is paid out', () => {
    fc.assert(
      fc.property(arbitraryCase(), (input) => {
        const shown = presentCalc(calculate(input, { steps: true }));
        const n = (s: string) => new Decimal(s);
        expect(n(shown.netInterest).eq(n(shown.grossInterest).minus(shown.withholdingTax).minus(shown.fees))).toBe(
          true,
        );
        expect(n(shown.endBalance).eq(n(shown.amount).plus(shown.netInterest))).toBe(true);
        const last = shown.steps.at(-1)!;
        expect(shown.steps).toHaveLength(input.months);
        const expected = input.terms.interestCompounds ? n(shown.endBalance).plus(shown.fees) : n(shown.amount);
        expect(last.closingBalance, JSON.stringify({ shown: { ...shown, steps: undefined }, last })).toBe(
          toFixed2(expected),
        );
      }),
      { numRuns: 3000 },
    );
  });
});
