import { describe, expect, it } from 'vitest';
import { Decimal } from '../decimal.js';
import { Incumbent } from './incumbent.js';

describe('Incumbent', () => {
  const plan = () => [{ candidate: 0, units: 1, value: new Decimal(1) }];

  it('takes a plan that places more, or as much and earns more; nothing else', () => {
    const best = new Incumbent(false);
    best.offer(5, new Decimal(10), plan);
    best.offer(5, new Decimal(10), () => []);
    best.offer(4, new Decimal(99), () => []);
    expect([best.placed, best.value.toString(), best.valueFloat, best.parts.length]).toEqual([5, '10', 10, 1]);
    best.offer(5, new Decimal('10.000001'), () => []);
    expect(best.valueFloat).toBe(10.000001);
    best.offer(6, new Decimal(-3), () => []);
    expect([best.placed, best.value.toString()]).toEqual([6, '-3']);
  });

  it.each([
    [{ placed: 4, value: 1e9, margin: 0 }, false, true],
    [{ placed: 6, value: -1e9, margin: 0 }, false, false],
    [{ placed: 5, value: 10.000001, margin: 0 }, false, true], // within EPSILON: a tie
    [{ placed: 5, value: 10.000002, margin: 0 }, false, false],
    [{ placed: 5, value: 10.0000005, margin: 1e-6 }, false, false], // its margin counts against it
    [{ placed: 5, value: 1e9, margin: 0 }, true, true], // only the placement counts
  ])('prunes %o (placementOnly %s): %s', (bound, placementOnly, prunes) => {
    const best = new Incumbent(placementOnly);
    best.offer(5, new Decimal(10), plan);
    expect(best.prunes(bound)).toBe(prunes);
  });
});
