// Runs of alike crediting periods in `trace` (fast-calc-trace.ts): where balances never fall, a run is one
// step, a closed form, and adds its interval once, from its first and last periods. Held to the
// month-by-month trace (to 1e-24, the same interval), to the reference calculation over horizons up to the
// longest a client may ask (600 months), and to the rule that an amount's digits do not depend on which
// amounts built the pieces before it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculate } from './calc.js';
import { Decimal } from './decimal.js';
import { createCalculator } from './fast-calc.js';
import { Bounds, compile, trace, type AffineRun } from './fast-calc-trace.js';
import { presentCalc } from './present.js';
import type { CalcTerms, PromotionsMode } from './types.js';
import { arbitraryTerms, edgeAmounts } from './__tests__/arbitraries.js';

const TOLERANCE = new Decimal('1e-24');
const cents = (n: number) => new Decimal(n).div(100);
const longMonths = fc.oneof(
  fc.integer({ min: 1, max: 60 }),
  fc.constantFrom(120, 240, 360, 600),
  fc.integer({ min: 61, max: 600 }),
);
const mode = fc.constantFrom<PromotionsMode>('include', 'exclude');
const nonNegative = arbitraryTerms({ nonNegativeRates: true });

function amountsFor(terms: CalcTerms): fc.Arbitrary<Decimal[]> {
  const edges = edgeAmounts(terms);
  const plain = fc.integer({ min: 1, max: 100_000_000 }).map(cents);
  const amount = edges.length === 0 ? plain : fc.oneof(plain, fc.constantFrom(...edges));
  return fc.array(amount, { minLength: 1, maxLength: 6 });
}

const RUN_FIELDS: readonly (keyof AffineRun)[] = ['firstS', 'firstT', 'grossS', 'grossT', 'taxS', 'taxT'];

const close = (a: Decimal, b: Decimal, scale: Decimal) =>
  a
    .minus(b)
    .abs()
    .lte(Decimal.max(a.abs(), b.abs(), scale).times(TOLERANCE));

describe('trace: a run of alike periods adds its interval once', () => {
  it('property: the same piece as the month-by-month trace (every coefficient and bound to 1e-24)', () => {
    fc.assert(
      fc.property(
        nonNegative.chain((t) => fc.tuple(fc.constant(t), longMonths, mode, amountsFor(t))),
        ([t, months, m, amounts]) => {
          const c = compile(t, months, m);
          // An amount on a tier's lower bound or the cap that earns nothing there stays on it; the month-by-month
          // trace then reads rounding as a fall below it and changes regime, the run does not (see below).
          const levels = [...t.tiers.map((x) => x.from), ...(t.promotion?.maxBalance ? [t.promotion.maxBalance] : [])];
          for (const amount of amounts.filter((a) => !levels.some((l) => l.eq(a))))
            for (const compounds of [t.interestCompounds, true]) {
              const leap = new Bounds();
              const step = new Bounds();
              const a = trace(c, amount, compounds, leap);
              const b = trace(c, amount, compounds, step, true);
              expect(a === null).toBe(b === null);
              if (a === null || b === null) continue;
              for (const f of RUN_FIELDS) {
                if (!close(a[f], b[f], f.endsWith('S') ? new Decimal(1) : amount))
                  throw new Error(`${f}: ${a[f].toString()} vs ${b[f].toString()}`);
              }
              for (const [x, y] of [
                [leap.lo, step.lo],
                [leap.hi, step.hi],
              ] as const) {
                expect(x === null).toBe(y === null);
                if (x !== null && y !== null && !close(x, y, amount)) throw new Error(`bound ${x} vs ${y}`);
              }
            }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: the calculator equals the reference over horizons up to 600 months, every shown cent', () => {
    const calc = createCalculator({ maxPieces: 400 });
    let n = 0;
    fc.assert(
      fc.property(
        nonNegative.chain((t) => fc.tuple(fc.constant(t), longMonths, mode, amountsFor(t))),
        ([t, months, m, amounts]) => {
          const key = `offer-${n++}`;
          for (const amount of amounts) {
            const input = { amount, months, promotions: m, terms: t };
            const ref = calculate(input);
            const fast = calc.evaluate(key, input);
            for (const f of ['grossInterest', 'withholdingTax', 'comparableYield', 'effectiveRate'] as const) {
              if (!close(fast[f], ref[f], f.endsWith('Yield') || f.endsWith('Rate') ? new Decimal(1) : amount))
                throw new Error(`${f}: fast ${fast[f].toString()} vs reference ${ref[f].toString()}`);
            }
            expect(presentCalc(fast)).toEqual(presentCalc(ref));
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it('property: an amount gets the same digits whichever amounts built the pieces before it', () => {
    fc.assert(
      fc.property(
        nonNegative.chain((t) => fc.tuple(fc.constant(t), longMonths, mode, amountsFor(t))),
        ([t, months, m, amounts]) => {
          const run = (order: Decimal[]) => {
            const calc = createCalculator();
            return order.map((amount) => {
              const s = calc.evaluate('offer', { amount, months, promotions: m, terms: t });
              return [amount.toString(), `${s.grossInterest} ${s.comparableYield} ${s.effectiveRate}`] as const;
            });
          };
          const forward = new Map(run(amounts));
          for (const [amount, digits] of run([...amounts].reverse())) expect(forward.get(amount)).toBe(digits);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps the regime of an amount that earns nothing on its tier bound, whichever amount built the piece', () => {
    // found by the property above: 0 % up to 5,000, 0.01 % above; 5,000 earns nothing and stays on the bound.
    // Traced month by month from 5,000 its balance reads a sliver under the bound once rounded; the run keeps
    // the tier, so 5,000 gets the digits of the piece 5,000.01 builds, in either order
    const t: CalcTerms = {
      tierMode: 'marginal',
      tiers: [
        { from: new Decimal(0), to: new Decimal(5000), rate: new Decimal(0) },
        { from: new Decimal(5000), to: null, rate: new Decimal('0.01') },
      ],
      promotion: null,
      payout: 'MONTHLY',
      interestCompounds: false,
      annualFee: new Decimal(0),
      withholdingRate: new Decimal(15),
    };
    const digits = (order: string[]) => {
      const calc = createCalculator();
      const out = new Map<string, string>();
      for (const a of order) {
        const s = calc.evaluate('offer', { amount: new Decimal(a), months: 61, promotions: 'include', terms: t });
        out.set(a, `${s.grossInterest} ${s.comparableYield} ${s.effectiveRate}`);
        expect(presentCalc(s)).toEqual(
          presentCalc(calculate({ amount: new Decimal(a), months: 61, promotions: 'include', terms: t })),
        );
      }
      return out;
    };
    expect(digits(['5000', '5000.01'])).toEqual(digits(['5000.01', '5000']));
  });

  it('bounds a 600-month monthly run that crosses two tiers where the balance crosses them', () => {
    // 2 % up to 20,000, 3 % up to 50,000, 1 % above, monthly and compounding: 12,000 reaches 20,000 in month 307
    const t: CalcTerms = {
      tierMode: 'whole',
      tiers: [
        { from: new Decimal(0), to: new Decimal(20_000), rate: new Decimal(2) },
        { from: new Decimal(20_000), to: new Decimal(50_000), rate: new Decimal(3) },
        { from: new Decimal(50_000), to: null, rate: new Decimal(1) },
      ],
      promotion: null,
      payout: 'MONTHLY',
      interestCompounds: true,
      annualFee: new Decimal(0),
      withholdingRate: new Decimal(0),
    };
    const c = compile(t, 600, 'include');
    const leap = new Bounds();
    const step = new Bounds();
    trace(c, new Decimal(12_000), true, leap);
    trace(c, new Decimal(12_000), true, step, true);
    // the piece: amounts that reach 20,000 in the same month as 12,000 does
    expect(leap.lo!.minus(step.lo!).abs().lt('1e-20')).toBe(true);
    expect(leap.hi!.minus(step.hi!).abs().lt('1e-20')).toBe(true);
    expect(leap.lo!.lt(12_000) && leap.hi!.gt(12_000)).toBe(true);
    const ref = calculate({ amount: new Decimal(12_000), months: 600, promotions: 'include', terms: t });
    const fast = createCalculator().evaluate('offer', {
      amount: new Decimal(12_000),
      months: 600,
      promotions: 'include',
      terms: t,
    });
    expect(presentCalc(fast)).toEqual(presentCalc(ref));
    // …and takes each tier's run in one step: the geometric sum's last digits are its own, not the loop's
    const a = trace(c, new Decimal(12_000), true, new Bounds())!;
    const b = trace(c, new Decimal(12_000), true, new Bounds(), true)!;
    expect(a.grossS.toString()).not.toBe(b.grossS.toString());
    expect(a.grossS.minus(b.grossS).abs().lt('1e-20')).toBe(true);
  });
});
