import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../domain/decimal.js';
import { compareYields, firstK, lazyOrder } from './sort.js';

describe('firstK', () => {
  it('gives the first k of the full sort, for any k and input', () => {
    // a total order on distinct pairs
    const cmp = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer()), {
          selector: (t) => `${t[0]}:${t[1]}`,
          maxLength: 300,
        }),
        fc.integer({ min: 0, max: 320 }),
        (items, k) => {
          expect(firstK(items, cmp, k)).toEqual([...items].sort(cmp).slice(0, k));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('compareYields', () => {
  it('counts yields within 1e-20 (of the larger, or of 1 %) as equal, whatever digit they straddle', () => {
    const d = (s: string) => new Decimal(s);
    expect(compareYields(d('2.849999999999999999999999999999999'), d('2.850000000000000000000000000000001'))).toBe(0);
    expect(compareYields(d('0.9999999999999999999999999999999999'), d('1'))).toBe(0);
    expect(compareYields(d('0'), d('1e-31'))).toBe(0);
    expect(compareYields(d('-1.5'), d('-1.5000000000000000000000000001'))).toBe(0);
    expect(compareYields(d('2.85'), d('2.850000000000000001'))).toBe(-1);
    expect(compareYields(d('2.86'), d('2.85'))).toBe(1);
    expect(compareYields(d('-0.01'), d('0.01'))).toBe(-1);
  });

  it('agrees with the exact comparison wherever two yields are further apart than the tolerance', () => {
    const yieldArb = fc
      .tuple(fc.integer({ min: -2_000_000, max: 20_000_000 }), fc.integer({ min: 0, max: 999_999_999 }))
      .map(([whole, frac]) => new Decimal(`${whole}.${String(frac).padStart(9, '0')}`).div(1_000_000));
    fc.assert(
      fc.property(yieldArb, yieldArb, (a, b) => {
        const scale = Decimal.max(1, a.abs(), b.abs());
        if (a.minus(b).abs().gt(scale.times('1e-19'))) expect(compareYields(a, b)).toBe(a.cmp(b));
        expect(compareYields(a, b)).toBe(-compareYields(b, a));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('lazyOrder', () => {
  const cmp = (a: number, b: number) => a - b;
  const shuffled = (n: number) => Array.from({ length: n }, (_, i) => (i * 7919) % n);

  it('property: any sequence of asks gives the prefixes of the full sort', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 }),
        fc.array(fc.integer({ min: 0, max: 420 }), { maxLength: 6 }),
        (n, asks) => {
          const order = lazyOrder(shuffled(n), cmp);
          const whole = shuffled(n).sort(cmp);
          for (const k of asks) expect(order.first(k)).toEqual(whole.slice(0, k));
          expect(order.all).toEqual(whole);
        },
      ),
    );
  });

  it('selects once for a first page, then sorts once for every page after it', () => {
    let compared = 0;
    const counting = (a: number, b: number) => (compared++, a - b);
    const order = lazyOrder(shuffled(10_000), counting);
    order.first(100);
    const selection = compared;
    order.first(50); // within the first page: no comparison
    expect(compared).toBe(selection);
    order.first(200); // a client paging: the whole order
    const sorting = compared - selection;
    expect(sorting).toBeGreaterThan(10_000);
    for (let page = 3; page <= 30; page++) order.first(page * 100);
    expect(compared).toBe(selection + sorting); // the pages after it cost no comparison
  });
});
