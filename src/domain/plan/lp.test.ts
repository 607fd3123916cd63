import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareDecimals, Decimal, ZERO } from '../decimal.js';
import { solvePlanLp, type LpLimits, type LpPart } from './lp.js';

const partArb = fc
  .record({
    group: fc.integer({ min: 0, max: 2 }),
    flexible: fc.boolean(),
    lo: fc.integer({ min: 0, max: 3 }),
    width: fc.integer({ min: 0, max: 4 }),
    slope: fc.integer({ min: -50, max: 100 }).map((s) => new Decimal(s).div(10)),
  })
  .map(({ width, ...p }): LpPart => ({ ...p, hi: p.lo + width }));
const limitsArb = fc.record({
  groupLimits: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 3, maxLength: 3 }),
  total: fc.integer({ min: 0, max: 15 }),
  maxNonFlexible: fc.integer({ min: 0, max: 15 }),
});

/** Every amount of every part: the most placed, and of those the most earned; null when nothing fits. */
function bruteForce(parts: readonly LpPart[], limits: LpLimits) {
  let best: { placed: number; value: Decimal } | null = null;
  const x = parts.map((p) => p.lo);
  const walk = (k: number) => {
    if (k === parts.length) {
      const r = check(parts, limits, x);
      if (
        r &&
        (best === null ||
          r.placed > best.placed ||
          (r.placed === best.placed && compareDecimals(r.value, best.value) > 0))
      )
        best = r;
      return;
    }
    for (let u = parts[k]!.lo; u <= parts[k]!.hi; u++) {
      x[k] = u;
      walk(k + 1);
    }
  };
  walk(0);
  return best as { placed: number; value: Decimal } | null;
}

/** The amounts' placement and value, or null if they break a limit. */
function check(parts: readonly LpPart[], limits: LpLimits, x: readonly number[]) {
  const perGroup = limits.groupLimits.map(() => 0);
  let placed = 0;
  let fixed = 0;
  let value = ZERO;
  parts.forEach((p, k) => {
    perGroup[p.group]! += x[k]!;
    placed += x[k]!;
    if (!p.flexible) fixed += x[k]!;
    value = value.plus(p.slope.times(x[k]!));
  });
  const fits =
    placed <= limits.total && fixed <= limits.maxNonFlexible && perGroup.every((u, g) => u <= limits.groupLimits[g]!);
  return fits ? { placed, value } : null;
}

describe('solvePlanLp', () => {
  it('property: the most that fits, and of that the most earned, as every split of whole units', () => {
    fc.assert(
      fc.property(fc.array(partArb, { maxLength: 4 }), limitsArb, (parts, limits) => {
        const x = solvePlanLp(parts, limits);
        const best = bruteForce(parts, limits);
        if (best === null) {
          expect(x).toBeNull();
          return;
        }
        expect(x).not.toBeNull();
        x!.forEach((u, k) => {
          expect(Number.isInteger(u)).toBe(true);
          expect(u).toBeGreaterThanOrEqual(parts[k]!.lo);
          expect(u).toBeLessThanOrEqual(parts[k]!.hi);
        });
        const got = check(parts, limits, x!);
        expect(got).not.toBeNull();
        expect(got!.placed).toBe(best.placed);
        expect(got!.value.toString()).toBe(best.value.toString());
      }),
      { numRuns: 500 },
    );
  });

  it('moves non-flexible amount to a flexible part when the reserve binds (the flow, not the greedy)', () => {
    // a (non-flexible, 3) and b (flexible, 2), 10 to place, at most 4 non-flexible: a 4, b 6
    const parts: LpPart[] = [
      { group: 0, flexible: false, lo: 0, hi: 10, slope: new Decimal(3) },
      { group: 1, flexible: true, lo: 0, hi: 10, slope: new Decimal(2) },
    ];
    expect(solvePlanLp(parts, { groupLimits: [10, 10], total: 10, maxNonFlexible: 4 })).toEqual([4, 6]);
  });
});
