import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../domain/decimal.js';
import { categoryOf, marketDays, type MarketPlan, type VerifiedChange } from './market.js';

const at = (day: string, time = '06:00:00') => new Date(`${day}T${time}.000Z`);
const plan = (p: Partial<MarketPlan> & { rate: string; from: string; to?: string | null }): MarketPlan => ({
  type: 'flexible',
  termMonths: null,
  institutionId: 'bank-a',
  validFrom: at(p.from),
  validTo: p.to ? at(p.to) : null,
  headlineRate: new Decimal(p.rate),
  ...p,
});
const allVerified = { currentlyVerified: () => true, changes: [] as VerifiedChange[] };
const rates = (days: ReturnType<typeof marketDays>, key: 'flexible' | 'notice' | 'deposit12' | 'deposit60') =>
  days.map((d) => d[key]?.toFixed(2) ?? null);

describe('marketDays', () => {
  it('lists the days oldest first, ending with the given day', () => {
    const days = marketDays([], allVerified, '2026-11-05', 3);
    expect(days.map((d) => d.date)).toEqual(['2026-11-03', '2026-11-04', '2026-11-05']);
    expect(
      days.every((d) => d.flexible === null && d.notice === null && d.deposit12 === null && d.deposit60 === null),
    ).toBe(true);
  });

  it('takes the plans valid at the end of each day, the best of them per category', () => {
    const plans = [
      plan({ rate: '2.00', from: '2026-11-01' }), // all along
      plan({ rate: '2.50', from: '2026-11-02', to: '2026-11-04' }), // valid at the ends of the 2nd and 3rd
      // closed the same day: never at a day's end
      plan({ rate: '3.00', from: '2026-11-05', to: '2026-11-05', institutionId: 'bank-b' }),
      plan({ rate: '1.10', from: '2026-11-03', type: 'notice' }),
      plan({ rate: '2.80', from: '2026-11-01', type: 'deposit', termMonths: 12 }),
      plan({ rate: '2.90', from: '2026-11-01', type: 'deposit', termMonths: 24 }), // no category
    ];
    const days = marketDays(plans, allVerified, '2026-11-05', 5);
    expect(rates(days, 'flexible')).toEqual(['2.00', '2.50', '2.50', '2.00', '2.00']);
    expect(rates(days, 'notice')).toEqual([null, null, '1.10', '1.10', '1.10']);
    expect(rates(days, 'deposit12')).toEqual(['2.80', '2.80', '2.80', '2.80', '2.80']);
    expect(rates(days, 'deposit60')).toEqual([null, null, null, null, null]);
  });

  it('counts an institution only while its DGS was verified', () => {
    const plans = [
      plan({ rate: '4.00', from: '2026-11-01', institutionId: 'newly-verified' }),
      plan({ rate: '1.00', from: '2026-11-01' }),
    ];
    const dgs = {
      currentlyVerified: (id: string) => id !== 'never',
      changes: [{ institutionId: 'newly-verified', at: at('2026-11-03', '06:00:00'), verified: true }],
    };
    expect(rates(marketDays(plans, dgs, '2026-11-05', 5), 'flexible')).toEqual([
      '1.00',
      '1.00',
      '4.00',
      '4.00',
      '4.00',
    ]);
    const lost = {
      currentlyVerified: () => false,
      changes: [{ institutionId: 'newly-verified', at: at('2026-11-03'), verified: false }],
    };
    expect(rates(marketDays(plans, lost, '2026-11-05', 5), 'flexible')).toEqual(['4.00', '4.00', null, null, null]);
  });

  it.each([
    ['flexible', null, 'flexible'],
    ['notice', null, 'notice'],
    ['deposit', 12, 'deposit12'],
    ['deposit', 60, 'deposit60'],
    ['deposit', 24, null],
  ] as const)('puts a %s plan of term %s into %s', (type, termMonths, category) => {
    expect(categoryOf({ type, termMonths })).toBe(category);
  });

  it('agrees with a day-by-day scan on random histories', () => {
    const planArb = fc.record({
      rate: fc.integer({ min: -50, max: 450 }).map((bp) => new Decimal(bp).div(100)),
      start: fc.integer({ min: 0, max: 40 }),
      length: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
      hour: fc.integer({ min: 0, max: 23 }),
      category: fc.constantFrom<[MarketPlan['type'], number | null]>(
        ['flexible', null],
        ['notice', null],
        ['deposit', 12],
        ['deposit', 60],
      ),
      institutionId: fc.constantFrom('a', 'b', 'c'),
    });
    fc.assert(
      fc.property(fc.array(planArb, { maxLength: 40 }), fc.integer({ min: 1, max: 45 }), (raw, days) => {
        const base = Date.parse('2026-10-01T00:00:00.000Z');
        const plans: MarketPlan[] = raw.map((r) => ({
          type: r.category[0],
          termMonths: r.category[1],
          institutionId: r.institutionId,
          validFrom: new Date(base + r.start * 86_400_000 + r.hour * 3_600_000),
          validTo: r.length === null ? null : new Date(base + (r.start + r.length) * 86_400_000 + r.hour * 3_600_000),
          headlineRate: r.rate,
        }));
        const dgs = { currentlyVerified: (id: string) => id !== 'c', changes: [] };
        const result = marketDays(plans, dgs, '2026-11-10', days);
        result.forEach((day, i) => {
          const end = Date.parse(`${day.date}T00:00:00.000Z`) + 86_400_000;
          for (const key of ['flexible', 'notice', 'deposit12', 'deposit60'] as const) {
            const valid = plans.filter(
              (p) =>
                categoryOf(p) === key &&
                p.institutionId !== 'c' &&
                p.validFrom.getTime() <= end &&
                (p.validTo === null || p.validTo.getTime() > end),
            );
            const best = valid.reduce<Decimal | null>(
              (m, p) => (m === null || p.headlineRate.gt(m) ? p.headlineRate : m),
              null,
            );
            expect(day[key]?.toString() ?? null, `${key} on day ${i}`).toBe(best?.toString() ?? null);
          }
        });
      }),
      { numRuns: 200 },
    );
  });
});
