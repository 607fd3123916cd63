import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';
import { annualisedPercent, nthRoot, rationalPow } from './root.js';

/** Relative distance |a − b| / |b|. */
const rel = (a: Decimal, b: Decimal) => a.minus(b).abs().div(b.abs());

describe('nthRoot', () => {
  it.each([
    { y: '4', q: 2, root: '2' },
    { y: '27', q: 3, root: '3' },
    { y: '1.1025', q: 2, root: '1.05' }, // 1.05² = 1.1025
    { y: '1.21', q: 2, root: '1.1' },
    { y: '0.0001', q: 4, root: '0.1' },
    { y: '1024', q: 10, root: '2' },
    { y: '7.5', q: 1, root: '7.5' },
  ])('the $q-th root of $y is $root', ({ y, q, root }) => {
    // exact roots come out within a unit or two of the 34th digit
    expect(rel(nthRoot(new Decimal(y), q), new Decimal(root)).lt('1e-32')).toBe(true);
  });

  it.each([
    { y: '0', q: 2 },
    { y: '-8', q: 3 },
  ])('rejects the radicand $y', ({ y, q }) => {
    expect(() => nthRoot(new Decimal(y), q)).toThrow(RangeError);
  });

  it.each([0, -2, 1.5])('rejects the degree %s', (q) => {
    expect(() => nthRoot(new Decimal(2), q)).toThrow(RangeError);
  });

  it('takes roots of numbers outside the range of a double', () => {
    // the double seed is Infinity here; decimal.js' own power takes over
    expect(rel(nthRoot(new Decimal('1e400'), 2), new Decimal('1e200')).lt('1e-30')).toBe(true);
  });
});

describe('rationalPow', () => {
  it.each([
    // 12/12 = 1: the base itself
    { x: '1.0243', p: 12, q: 12, value: '1.0243' },
    // 12/6 = 2: an integer power, 1.1² = 1.21
    { x: '1.1', p: 12, q: 6, value: '1.21' },
    // 12/24 = 1/2: √1.14 = 1.06770782520313112108115239655957… (50-digit Python decimal)
    { x: '1.14', p: 12, q: 24, value: '1.06770782520313112108115239655957' },
    // 12/36 = 1/3: ∛1.331 = 1.1
    { x: '1.331', p: 12, q: 36, value: '1.1' },
    // 12/8 = 3/2: 1.21^(3/2) = 1.1³ = 1.331
    { x: '1.21', p: 12, q: 8, value: '1.331' },
  ])('$x^($p/$q) = $value', ({ x, p, q, value }) => {
    expect(rel(rationalPow(new Decimal(x), p, q), new Decimal(value)).lt('1e-32')).toBe(true);
  });

  it('agrees with decimal.js pow to at least 25 significant digits', () => {
    fc.assert(
      fc.property(
        // growth factors from 0.000001 to 50, and every period a request can ask for
        fc.integer({ min: 1, max: 50_000_000 }).map((n) => new Decimal(n).div(1_000_000)),
        fc.integer({ min: 1, max: 600 }),
        (x, months) => {
          const ours = rationalPow(x, 12, months);
          const theirs = x.pow(new Decimal(12).div(months));
          expect(rel(ours, theirs).lt('1e-25')).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('agrees with decimal.js pow on 34-digit growth factors near 1 (the yields)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 33n }),
        fc.constantFrom(5, 7, 9, 18, 24, 30, 36, 48, 60, 120, 599),
        (digits, months) => {
          const x = new Decimal(1).plus(new Decimal(digits.toString()).div(new Decimal(10).pow(34)));
          expect(rel(rationalPow(x, 12, months), x.pow(new Decimal(12).div(months))).lt('1e-25')).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('is within 1e-32 of the root taken in 60-digit decimals, for every degree a yield asks', () => {
    const Wide = Decimal.clone({ precision: 60 });
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 33n }),
        fc.integer({ min: 2, max: 600 }),
        fc.boolean(),
        (digits, q, loss) => {
          const y = new Decimal(1)[loss ? 'minus' : 'plus'](new Decimal(digits.toString()).div('1e34'));
          const wide = new Wide(y.toString()).pow(new Wide(1).div(q));
          const ours = new Wide(nthRoot(y, q).toString());
          expect(ours.minus(wide).abs().div(wide).lt('1e-32')).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([2, 3, 7])('takes the %i-th root of a subnormal double (a seed of a few digits: Newton first)', (q) => {
    // 1.234567e-320 is a double of 4 significant digits: its seed is too far for the series alone
    const y = new Decimal('1.2345678901234567890123456789e-320');
    const Wide = Decimal.clone({ precision: 60 });
    const wide = new Wide(y.toString()).pow(new Wide(1).div(q));
    expect(new Wide(nthRoot(y, q).toString()).minus(wide).abs().div(wide).lt('1e-32')).toBe(true);
  });

  it('raises back to the radicand to 30 digits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 2, max: 60 }), (n, q) => {
        const y = new Decimal(n).div(1000);
        expect(rel(nthRoot(y, q).pow(q), y).lt(new Decimal('1e-30').times(q))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('annualisedPercent', () => {
  it.each([
    { growth: '1.14', months: 24, percent: '6.77' }, // √1.14 − 1
    { growth: '1.024', months: 12, percent: '2.40' },
    { growth: '1.002', months: 1, percent: '2.43' }, // 1.002^12 − 1 = 2.4266 %
    { growth: '0.985', months: 12, percent: '-1.50' },
    { growth: '0', months: 12, percent: '-100.00' },
    { growth: '-0.2', months: 12, percent: '-100.00' },
  ])('annualises $growth over $months months to $percent %', ({ growth, months, percent }) => {
    expect(annualisedPercent(new Decimal(growth), months).toFixed(2)).toBe(percent);
  });
});
