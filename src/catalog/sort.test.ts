import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstK } from './sort.js';

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
