import { describe, expect, it } from 'vitest';
import { Backoff } from './fallback.js';

describe('Backoff', () => {
  it('restarts at once after a first death, then waits 1, 2, 4 … s up to a minute while deaths come quickly', () => {
    const b = new Backoff();
    const delays = Array.from({ length: 10 }, () => b.next(500));
    expect(delays).toEqual([0, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('forgives a process that stayed up: a crash a day is not a crash loop', () => {
    const b = new Backoff();
    b.next(100);
    b.next(100);
    expect(b.next(100)).toBe(2_000);
    expect(b.next(30_000)).toBe(0);
    expect(b.next(100)).toBe(1_000);
  });
});
