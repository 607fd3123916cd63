import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDecimals, Decimal, roughNumber, toFixed2 } from './decimal.js';
import { keptDecimals, toCents } from './present.js';

const decimalArb = fc.oneof(
  fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map((c) => new Decimal(c).div(100)),
  fc
    .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: 0, max: 60 }))
    .map(([m, s]) => new Decimal(m.toString()).div(new Decimal(10).pow(s))),
  fc
    .constantFrom('0', '-0', '1e-30', '-1e-30', '9999999.9999999', '10000000', '1e7', '1.00000000000000000001')
    .map((s) => new Decimal(s)),
);

describe('compareDecimals', () => {
  it('agrees with decimal.js cmp on every pair', () => {
    fc.assert(
      fc.property(decimalArb, decimalArb, (a, b) => {
        expect(compareDecimals(a, b)).toBe(a.cmp(b));
        expect(compareDecimals(a, a)).toBe(0);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('toFixed2', () => {
  it.each([
    ['2.345', '2.35'],
    ['2.344999', '2.34'],
    ['-2.345', '-2.35'],
    ['-0.001', '0.00'],
    ['1000000000', '1000000000.00'],
  ])('rounds %s half-up to %s', (input, shown) => {
    expect(toFixed2(new Decimal(input))).toBe(shown);
  });
});

// The reference both are held to: decimal.js's own rounding, as they were written before reading the digits.
const fixed2Reference = (v: Decimal) => {
  const s = v.toFixed(2, Decimal.ROUND_HALF_UP);
  return s === '-0.00' ? '0.00' : s;
};
const centsReference = (v: Decimal, scaleExp: number) =>
  fixed2Reference(v.toDecimalPlaces(keptDecimals(v, scaleExp), Decimal.ROUND_HALF_UP));

/** Values around half cents and carries: …x5, …x4999…, 9.995, and 34-digit noise after them. */
const nearHalfCent = fc
  .tuple(
    fc.integer({ min: -99_999_999, max: 99_999_999 }),
    fc.constantFrom('5', '4999999999999999', '5000000000000001', '49999999999999999999999999', '9'),
    fc.integer({ min: 0, max: 12 }),
  )
  .map(([cents, tail, shift]) => new Decimal(`${cents}${tail}`).div(new Decimal(10).pow(2 + tail.length + shift)));

describe('toFixed2 and toCents read the digits as decimal.js rounds them', () => {
  it('property: toFixed2 equals decimal.js toFixed(2, half-up)', () => {
    fc.assert(
      fc.property(fc.oneof(decimalArb, nearHalfCent), (v) => {
        expect(toFixed2(v)).toBe(fixed2Reference(v));
      }),
      { numRuns: 5000 },
    );
  });

  it('property: toCents equals rounding to the kept decimals, then to the cent, with decimal.js', () => {
    fc.assert(
      fc.property(fc.oneof(decimalArb, nearHalfCent), fc.integer({ min: -2, max: 9 }), (v, scaleExp) => {
        expect(toCents(v, scaleExp)).toBe(centsReference(v, scaleExp));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['9.995', 0, '10.00'],
    ['-9.995', 0, '-10.00'],
    ['0.004999999999999999999', 0, '0.01'],
    ['19.37499999999999999999999999999999', 4, '19.38'],
    ['-0.0049', 0, '0.00'],
    ['999999999999.995', 0, '1000000000000.00'],
  ])('toCents(%s, %i) is %s', (input, scale, shown) => {
    expect(toCents(new Decimal(input), scale)).toBe(shown);
    expect(centsReference(new Decimal(input), scale)).toBe(shown);
  });
});

describe('roughNumber', () => {
  it('is toNumber within a few units in its last place', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
        fc.integer({ min: 0, max: 20 }),
        (x, shift) => {
          const value = new Decimal(x).div(new Decimal(10).pow(shift)).plus('1e-33');
          const expected = value.toNumber();
          expect(Math.abs(roughNumber(value) - expected)).toBeLessThanOrEqual(Math.abs(expected) * 1e-14);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
