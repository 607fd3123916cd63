import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { compareBrandNames, dgsSplit } from './dgs.js';
import type { DgsScheme } from './types.js';

const scheme = (limit: string, verified: boolean): DgsScheme => ({
  scheme: 'DNB DGS',
  country: 'NL',
  limit: new Decimal(limit),
  verified,
});

describe('dgsSplit', () => {
  it.each([
    // 50,000 under a 100,000 limit: all of it; 50,000 / 50,000 = 100 %
    {
      label: 'covers all of an amount below the limit',
      amount: '50000',
      verified: true,
      covered: '50000',
      uncovered: '0',
      percent: '100',
      full: true,
    },
    // exactly the limit: still all of it
    {
      label: 'covers all of an amount equal to the limit',
      amount: '100000',
      verified: true,
      covered: '100000',
      uncovered: '0',
      percent: '100',
      full: true,
    },
    // 150,000: 100,000 covered, 50,000 not; 100,000 / 150,000 = 66.666… % (unrounded)
    {
      label: 'covers up to the limit',
      amount: '150000',
      verified: true,
      covered: '100000',
      uncovered: '50000',
      percent: '66.66666666666666666666666666666667',
      full: false,
    },
    // a cent over: 100,000 / 100,000.01 = 1 − 1e-7 + 1e-14 − 1e-21 + 1e-28 … =
    // 0.99999990000000999999900000009999…,
    // which is 0.9999999000000099999990000001 to 34 digits; × 100
    {
      label: 'leaves a cent over the limit uncovered',
      amount: '100000.01',
      verified: true,
      covered: '100000',
      uncovered: '0.01',
      percent: '99.99999000000099999990000001',
      full: false,
    },
    // unverified: nothing counts as covered
    {
      label: 'covers nothing when the scheme is not verified',
      amount: '50000',
      verified: false,
      covered: '0',
      uncovered: '50000',
      percent: '0',
      full: false,
    },
  ])('$label', ({ amount, verified, covered, uncovered, percent, full }) => {
    const split = dgsSplit(new Decimal(amount), scheme('100000', verified), []);
    expect(split.covered.toString()).toBe(covered);
    expect(split.uncovered.toString()).toBe(uncovered);
    expect(split.coveredPercent.toString()).toBe(percent);
    expect(split.fullyCovered).toBe(full);
    expect(split).toMatchObject({ scheme: 'DNB DGS', country: 'NL', verified });
    expect(split.limit.eq(100000)).toBe(true);
  });

  it.each([
    {
      label: 'sorts by name',
      names: ['Zeeland Direct', 'Argenta', 'Moneyou'],
      sorted: ['Argenta', 'Moneyou', 'Zeeland Direct'],
    },
    { label: 'ignores case', names: ['bunq', 'ASN', 'Bfirst'], sorted: ['ASN', 'Bfirst', 'bunq'] },
    {
      label: 'ignores accents',
      names: ['Ölfusbanki', 'Ålandsbanken', 'Nordea'],
      sorted: ['Ålandsbanken', 'Nordea', 'Ölfusbanki'],
    },
    { label: 'breaks ties by the exact name', names: ['bunq', 'Bunq'], sorted: ['Bunq', 'bunq'] },
    { label: 'keeps an empty list empty', names: [], sorted: [] },
  ])('sharedWith $label', ({ names, sorted }) => {
    const input = [...names];
    expect(dgsSplit(new Decimal('1000'), scheme('100000', true), input).sharedWith).toEqual(sorted);
    expect(input).toEqual(names); // the caller's array is left alone
  });

  it('sorts the same names the same way whatever their order (a total order)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 8 }), (names) => {
        const a = dgsSplit(new Decimal('1'), scheme('1', true), names).sharedWith;
        const b = dgsSplit(new Decimal('1'), scheme('1', true), [...names].reverse()).sharedWith;
        expect(b).toEqual(a);
        for (let i = 1; i < a.length; i++) expect(compareBrandNames(a[i - 1]!, a[i]!)).toBeLessThanOrEqual(0);
      }),
    );
  });

  it(
    'property: covered + uncovered = amount, covered ≤ ' + 'min(amount, limit), percent = covered / amount × 100',
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 100_000_000_000 }),
          fc.integer({ min: 0, max: 50_000_000 }),
          fc.boolean(),
          (amountCents, limitCents, verified) => {
            const amount = new Decimal(amountCents).div(100);
            const limit = new Decimal(limitCents).div(100);
            const split = dgsSplit(amount, { scheme: 'x', country: 'BE', limit, verified }, []);
            expect(split.covered.plus(split.uncovered).eq(amount)).toBe(true);
            expect(split.covered.lte(Decimal.min(amount, limit))).toBe(true);
            expect(split.covered.gte(0) && split.uncovered.gte(0)).toBe(true);
            expect(split.coveredPercent.eq(split.covered.div(amount).times(100))).toBe(true);
            expect(split.fullyCovered).toBe(split.covered.eq(amount));
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it.each(['0', '-1'])('rejects the amount %s', (amount) => {
    expect(() => dgsSplit(new Decimal(amount), scheme('100000', true), [])).toThrow(RangeError);
  });
});
