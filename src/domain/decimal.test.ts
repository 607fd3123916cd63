import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDecimals, Decimal, toFixed2 } from './decimal.js';

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
