import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryCase, arbitraryTerms } from '../domain/__tests__/arbitraries.js';
import { Decimal } from '../domain/decimal.js';
import { changeImpact } from '../domain/impact.js';
import { createCalcService, ITEM_BYTES, RecentByAmount } from './calc-service.js';
import { internTerms } from './terms-id.js';
import type { Catalog } from './types.js';

/** A get (true) or a set of a value, for one of five amounts and four keys. */
const recentOp = fc.tuple(
  fc.constantFrom('1', '2', '3', '4', '5'),
  fc.constantFrom('a', 'b', 'c', 'd'),
  fc.integer(),
  fc.boolean(),
);

/**
 * The operations on `recent`, each get answering nothing or the last value set and the bound held
 * throughout; the last value set per `amount|key`.
 */
function replay(
  recent: RecentByAmount<number>,
  max: number,
  ops: readonly [string, string, number, boolean][],
): Map<string, number> {
  const last = new Map<string, number>();
  for (const [amount, key, value, isGet] of ops) {
    if (isGet) {
      const got = recent.get(amount, key);
      if (got !== undefined) expect(got).toBe(last.get(`${amount}|${key}`));
    } else {
      recent.set(amount, key, value);
      last.set(`${amount}|${key}`, value);
    }
    expect(recent.size).toBeLessThanOrEqual(max);
  }
  return last;
}

describe('RecentByAmount', () => {
  it('keeps at most max results, the least recently asked amount out first', () => {
    const recent = new RecentByAmount<number>(4);
    recent.set('100', 'k1', 1);
    recent.set('100', 'k2', 2);
    recent.set('200', 'k1', 3);
    recent.set('200', 'k2', 4);
    expect(recent.size).toBe(4);
    expect(recent.get('100', 'k1')).toBe(1); // 100 is now the most recent amount
    recent.set('300', 'k1', 5);
    expect(recent.get('200', 'k1')).toBeUndefined();
    expect(recent.get('200', 'k2')).toBeUndefined();
    expect([recent.get('100', 'k1'), recent.get('100', 'k2'), recent.get('300', 'k1')]).toEqual([1, 2, 5]);
    expect(recent.size).toBe(3);
  });

  it('lets an amount that alone fills the bound keep what it has', () => {
    const recent = new RecentByAmount<number>(3);
    for (let k = 1; k <= 5; k++) recent.set('50000', `k${k}`, k);
    expect(recent.size).toBe(3);
    expect([1, 2, 3, 4, 5].map((k) => recent.get('50000', `k${k}`))).toEqual([1, 2, 3, undefined, undefined]);
    recent.set('50000', 'k2', 20); // a known key is updated in place
    expect(recent.get('50000', 'k2')).toBe(20);
    recent.set('60000', 'k1', 6); // a new amount pushes the full one out
    expect(recent.get('50000', 'k1')).toBeUndefined();
    expect(recent.size).toBe(1);
  });

  it('never holds more than max, counts exactly what it holds, and answers the last value set', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.array(recentOp, { maxLength: 60 }), (max, ops) => {
        const recent = new RecentByAmount<number>(max);
        const last = replay(recent, max, ops);
        let held = 0;
        for (const [pair, value] of last) {
          const [amount, key] = pair.split('|') as [string, string];
          const got = recent.get(amount, key);
          if (got !== undefined) {
            held++;
            expect(got).toBe(value);
          }
        }
        expect(held).toBe(recent.size);
      }),
    );
  });
});

describe('RecentByAmount from the second ask', () => {
  it('holds an amount asked once for as long as it is the amount asked, and keeps it from its second ask', () => {
    const recent = new RecentByAmount<number>(10, { fromSecondAsk: true });
    recent.set('100', 'k1', 1);
    recent.set('100', 'k2', 2);
    // what one list reads: held, not kept
    expect([recent.get('100', 'k1'), recent.get('100', 'k2'), recent.size]).toEqual([1, 2, 0]);
    expect(recent.get('300', 'k1')).toBeUndefined(); // another amount read: the one asked last stays
    expect(recent.get('100', 'k1')).toBe(1);
    recent.set('200', 'k1', 3); // another amount's results made: 100's go
    expect([recent.get('100', 'k1'), recent.get('200', 'k1')]).toEqual([undefined, 3]);
    recent.set('100', 'k1', 4); // asked again: kept from now on
    recent.set('300', 'k1', 5); // asked once: held in place of 200
    recent.set('200', 'k1', 6); // asked again: kept
    expect([recent.get('100', 'k1'), recent.get('200', 'k1'), recent.get('300', 'k1'), recent.size]).toEqual([
      4, 6, 5, 2,
    ]);
    recent.set('400', 'k1', 7);
    expect([recent.get('100', 'k1'), recent.get('200', 'k1'), recent.get('300', 'k1')]).toEqual([4, 6, undefined]);
  });

  it('never holds more than max, and answers nothing but the last value set', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.array(recentOp, { maxLength: 80 }),
        (max, ops) => void replay(new RecentByAmount<number>(max, { fromSecondAsk: true }), max, ops),
      ),
    );
  });
});

describe('impact', () => {
  it('property: by the fast evaluator, the same cents as the reference calculation, for every amount asked', () => {
    const calc = createCalcService();
    let n = 0;
    fc.assert(
      fc.property(
        arbitraryCase(),
        arbitraryTerms(),
        fc.array(fc.integer({ min: 1, max: 200_000_000 }), { maxLength: 4 }),
        fc.boolean(),
        ({ amount, months, terms: before }, after, more, deposit) => {
          // a pair's key names its plans, as in the service: one per pair
          const basis = { termMonths: deposit ? months : null, before, after, key: `pair${n++}` };
          // later amounts are answered from the pieces the first ones built
          for (const a of [amount, ...more.map((cents) => new Decimal(cents).div(100))]) {
            const reference = changeImpact({ amount: a, months, before, after });
            expect(calc.impact(basis, a, deposit ? 1 : months)).toEqual(reference);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('kept', () => {
  it('makes a value once per catalogue version and key, and keeps no more than its bytes', async () => {
    const calc = createCalcService({ maxBytes: 20 * 1024 * 1024 }); // a twentieth for lists: 1 MB
    const v1 = { version: 1 } as Catalog;
    const v2 = { version: 2 } as Catalog;
    let made = 0;
    const make = async () => ({ n: ++made });
    const first = await calc.kept(v1, 'q', () => 1000, make);
    expect(await calc.kept(v1, 'q', () => 1000, make)).toBe(first);
    expect(await calc.kept({ version: 1 } as Catalog, 'q', () => 1000, make)).toBe(first); // the same data
    expect(await calc.kept(v2, 'q', () => 1000, make)).not.toBe(first);
    expect(await calc.kept(v1, 'other', () => 1000, make)).not.toBe(first);
    expect(made).toBe(3);
    // one too large to keep is made every time
    await calc.kept(v1, 'big', () => 2 * 1024 * 1024, make);
    await calc.kept(v1, 'big', () => 2 * 1024 * 1024, make);
    expect(made).toBe(5);
    for (let i = 0; i < 2000; i++) await calc.kept(v1, `k${i}`, () => 4096, make);
    const { keptLists } = calc.stats();
    expect(keptLists * 4096).toBeLessThanOrEqual(1024 * 1024);
  });

  it('makes a value asked for again while it is being made once, and a failure is not kept', async () => {
    const calc = createCalcService({ maxBytes: 20 * 1024 * 1024 });
    const v1 = { version: 1 } as Catalog;
    let made = 0;
    let finish!: () => void;
    const slow = () => new Promise<{ n: number }>((resolve) => (finish = () => resolve({ n: ++made })));
    const a = calc.kept(v1, 'q', () => 1000, slow);
    const b = calc.kept(v1, 'q', () => 1000, slow);
    finish();
    expect(await a).toBe(await b);
    expect(made).toBe(1);

    const failing = () => Promise.reject(new Error('stopped'));
    await expect(calc.kept(v1, 'f', () => 1000, failing)).rejects.toThrow('stopped');
    expect(
      await calc.kept(
        v1,
        'f',
        () => 1000,
        async () => ({ n: 42 }),
      ),
    ).toEqual({ n: 42 });
  });
});

describe('impact and list', () => {
  it("share their pieces: the impact of the change to the offer's terms now traces only the terms before", () => {
    const tier = (rate: string) => [{ from: new Decimal(0), to: null, rate: new Decimal(rate) }];
    const termsOf = (rate: string) => ({
      tierMode: 'whole' as const,
      tiers: tier(rate),
      promotion: { kind: 'bonus' as const, rate: new Decimal('0.50'), months: 3, maxBalance: new Decimal(50_000) },
      payout: 'QUARTERLY' as const,
      interestCompounds: true,
      annualFee: new Decimal(0),
      withholdingRate: new Decimal(26),
    });
    const now = internTerms(termsOf('2.75'));
    const offer = { id: 'o', type: 'flexible', termMonths: null, termsId: now.id, terms: now.terms };
    const calc = createCalcService();
    const amount = new Decimal('72000.13');
    calc.rank(offer as never, amount, 18, 'include');
    const afterList = calc.stats();
    // the event's plans are read from the history: objects of their own, equal in content to the offer's
    const basis = { termMonths: null, before: termsOf('2.40'), after: termsOf('2.75'), key: 'p1>p2|flexible' };
    const impact = calc.impact(basis, amount, 18);
    expect(impact).toEqual(changeImpact({ amount, months: 18, before: basis.before, after: basis.after }));
    const stats = calc.stats();
    // one piece more (the plan before), and the plan after found the list's
    expect(stats.pieces - afterList.pieces).toBe(1);
    expect(stats.hits - afterList.hits).toBe(1);
  });
});

describe('holdPassOver', () => {
  it('keeps a piece per offer of the catalogue however small its bytes: a second list traces nothing', () => {
    const tier = (from: string, to: string | null, rate: string) => ({
      from: new Decimal(from),
      to: to === null ? null : new Decimal(to),
      rate: new Decimal(rate),
    });
    // 40 offers of distinct terms whose yields depend on the amount (two tiers, applied whole)
    const offers = Array.from({ length: 40 }, (_, i) => ({
      id: `o${i}`,
      type: 'flexible',
      termMonths: null,
      termsId: i + 1,
      terms: {
        tierMode: 'whole',
        tiers: [tier('0', '25000', `1.${10 + i}`), tier('25000', null, `2.${10 + i}`)],
        promotion: null,
        payout: 'MONTHLY',
        interestCompounds: true,
        annualFee: new Decimal(0),
        withholdingRate: new Decimal(0),
      },
    }));
    const catalog = { offers } as unknown as Catalog;
    const twoLists = (calc: ReturnType<typeof createCalcService>) => {
      for (const amount of ['1000.37', '2000.41'])
        // Summaries, as a page or an export shows: they need the pieces (a list's ranking alone is had from
        // evicted pieces' floats, fast-calc-shadows.ts).
        for (const offer of offers) calc.summary(offer as never, new Decimal(amount), 12, 'include');
      return calc.stats();
    };
    // 100 KB: its share for pieces holds ten
    const starved = twoLists(createCalcService({ maxBytes: 100 * 1024 }));
    expect(starved.hits).toBe(0);

    const held = createCalcService({ maxBytes: 100 * 1024 });
    expect(held.holdPassOver(catalog)).toBe(true);
    const stats = twoLists(held);
    expect(stats).toMatchObject({ pieces: 40, evictions: 0, misses: 40, hits: 40 });
    // what it keeps beyond its count is counted in its bound, which it stays within
    expect(stats.maxBytes).toBe(100 * 1024 + (40 - 10) * ITEM_BYTES.piece);
    expect(stats.bytes).toBeLessThanOrEqual(stats.maxBytes);

    // a catalogue larger than the room for its pieces gets the share's count only
    const over = createCalcService({ maxBytes: 100 * 1024 });
    expect(over.holdPassOver(catalog, 39)).toBe(false);
    expect(twoLists(over)).toMatchObject({ hits: 0, maxBytes: 100 * 1024 });
  });
});
