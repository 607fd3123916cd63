import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, roughNumber } from './decimal.js';
import { annualisedPercent } from './root.js';
import { LazyRankYields, ROUGH_ERROR, roughAffineYield, roughOrder, roughYield } from './rough.js';

/** Growth ratios as the pieces give them: 34 significant digits, from a near total loss to a millionfold. */
const ratioArb = fc.oneof(
  // the yields of savings: 0.5 … 3 over the period
  fc.bigInt({ min: 5n * 10n ** 32n, max: 3n * 10n ** 33n }).map((n) => new Decimal(n.toString()).div('1e33')),
  // anywhere in the range a rough yield is claimed for
  fc
    .tuple(fc.bigInt({ min: 10n ** 33n, max: 10n ** 34n - 1n }), fc.integer({ min: -6, max: 5 }))
    .map(([n, e]) => new Decimal(n.toString()).div('1e33').times(new Decimal(10).pow(e))),
);
const monthsArb = fc.integer({ min: 1, max: 600 });

describe('roughYield', () => {
  it('property: within 3e-11 × max(1, |yield|) percent of the exact yield (a thirtieth of ROUGH_ERROR)', () => {
    fc.assert(
      fc.property(ratioArb, monthsArb, (ratio, months) => {
        const rough = roughYield(ratio, months);
        if (Number.isNaN(rough)) return; // outside the range it claims a bound for
        const exact = annualisedPercent(ratio, months);
        const bound = 3e-11 * Math.max(1, Math.abs(exact.toNumber()));
        expect(Math.abs(exact.minus(rough).toNumber())).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 3000 },
    );
  });

  it('claims nothing for ratios near a total loss or beyond a millionfold', () => {
    expect(roughYield(new Decimal('1e-7'), 12)).toBeNaN();
    expect(roughYield(new Decimal('2e6'), 12)).toBeNaN();
    expect(roughYield(new Decimal('1.0285'), 12)).toBeCloseTo(2.85, 12);
  });
});

describe('roughAffineYield', () => {
  // A piece's ratio s + t/A: t from a few cents (a fee) to a million (a cap's interest), either sign.
  const tArb = fc
    .tuple(fc.bigInt({ min: 10n ** 33n, max: 10n ** 34n - 1n }), fc.integer({ min: -37, max: -27 }), fc.boolean())
    .map(([n, e, negative]) => new Decimal(n.toString()).times(new Decimal(10).pow(e)).times(negative ? -1 : 1));
  const amountArb = fc.integer({ min: 1, max: 1_000_000_000 }).map((cents) => new Decimal(cents).div(100));

  it('property: within 1e-10 × max(1, |yield|) percent of the yield of the ratio in decimals, or NaN', () => {
    let claimed = 0;
    fc.assert(
      fc.property(ratioArb, tArb, amountArb, monthsArb, (s, t, amount, months) => {
        const rough = roughAffineYield(roughNumber(s), roughNumber(t), 1 / amount.toNumber(), months);
        const ratio = s.plus(t.times(new Decimal(1).div(amount)));
        if (Number.isNaN(rough)) return;
        claimed++;
        const exact = annualisedPercent(ratio, months);
        expect(Math.abs(exact.minus(rough).toNumber())).toBeLessThanOrEqual(
          1e-10 * Math.max(1, Math.abs(exact.toNumber())),
        );
      }),
      { numRuns: 3000 },
    );
    expect(claimed).toBeGreaterThan(1500); // it answers most ratios, not NaN for all
  });

  it('claims nothing where s and t/A nearly cancel', () => {
    // 1.5 − 1.4999999 = 1e-7: below the range, and half its digits lost
    expect(roughAffineYield(1.5, -1.4999999, 1, 12)).toBeNaN();
    // 3 − 1 = 2: |s| + |t/A| = 4 ≤ 2·2, claimed
    expect(roughAffineYield(3, -1, 1, 12)).toBeCloseTo(100, 9);
    // 3 − 1.6 = 1.4: |s| + |t/A| = 4.6 > 2.8, left to the decimals
    expect(roughAffineYield(3, -1.6, 1, 12)).toBeNaN();
  });
});

describe('roughOrder', () => {
  it('property: decides only where the exact yields are in that order, and more than 1e-10 % apart', () => {
    fc.assert(
      fc.property(ratioArb, ratioArb, monthsArb, monthsArb, fc.boolean(), (r1, r2, m1, m2, near) => {
        // near: a second ratio a few last digits from the first, where floats cannot tell
        const other = near ? r1.plus(r1.times('1e-30')) : r2;
        const [x, y] = [roughYield(r1, m1), roughYield(other, near ? m1 : m2)];
        const order = roughOrder(x, y);
        if (order === 0) return;
        const [a, b] = [annualisedPercent(r1, m1), annualisedPercent(other, near ? m1 : m2)];
        expect(order).toBe(a.cmp(b));
        expect(a.minus(b).abs().gt('1e-10')).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves what it cannot tell to the exact comparison', () => {
    expect(roughOrder(undefined, 2.85)).toBe(0);
    expect(roughOrder(NaN, 2.85)).toBe(0);
    expect(roughOrder(2.85, 2.85 + ROUGH_ERROR)).toBe(0);
    expect(roughOrder(2.86, 2.85)).toBe(1);
    expect(roughOrder(-1, 2)).toBe(-1);
  });
});

describe('LazyRankYields', () => {
  it('works the exact yields out once, on first read', () => {
    let made = 0;
    const y = new LazyRankYields(2.85, 2.1, () => {
      made++;
      return { comparableYield: new Decimal('2.85'), effectiveRate: new Decimal('2.1') };
    });
    expect(made).toBe(0);
    expect(y.effectiveRate.toString()).toBe('2.1');
    expect(y.comparableYield.toString()).toBe('2.85');
    expect(made).toBe(1);
  });
});
