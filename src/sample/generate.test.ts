import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../domain/decimal.js';
import { snapshotSchema, type Snapshot, type SnapshotPlan } from '../ingest/snapshot.js';
import { parseSampleArgs } from './cli.js';
import { generateSnapshots, type SampleOptions } from './generate.js';
import { DEPOSIT_TERMS } from './market.js';

const FULL: SampleOptions = { seed: 42, days: 400, end: '2026-11-23', scale: 1 };
const SHORT: SampleOptions = { ...FULL, days: 30 };

const serialise = (options: SampleOptions): string =>
  [...generateSnapshots(options)].map((s) => JSON.stringify(s)).join('\n');
const samePlan = (a: SnapshotPlan, b: SnapshotPlan): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);
const distinct = <T>(xs: Iterable<T>): T[] => [...new Set(xs)].sort();

/** What the tests need from one pass over a run, without keeping 400 snapshots in memory. */
interface RunSummary {
  ms: number;
  first: Snapshot;
  last: Snapshot;
  planChanges: number;
  appeared: Set<string>;
  disappeared: Set<string>;
  returned: Set<string>;
  institutionsWithDgsChange: Set<string>;
  promotionKinds: Set<string>;
  /** Offers shown while their source was failing whose content differed from the day before. */
  staleViolations: string[];
  /** Source-days with status failing, and those of them without an error text. */
  failingSourceDays: number;
  failingWithoutError: number;
  maxIdsPerDayDuplicates: number;
}

function summarise(options: SampleOptions): RunSummary {
  const started = performance.now();
  let first: Snapshot | null = null;
  let prev: Snapshot | null = null;
  let prevOffers = new Map<string, Snapshot['offers'][number]>();
  const firstDgs = new Map<string, string>();
  const s: Omit<RunSummary, 'ms' | 'first' | 'last'> = {
    planChanges: 0,
    appeared: new Set(),
    disappeared: new Set(),
    returned: new Set(),
    institutionsWithDgsChange: new Set(),
    promotionKinds: new Set(),
    staleViolations: [],
    failingSourceDays: 0,
    failingWithoutError: 0,
    maxIdsPerDayDuplicates: 0,
  };
  for (const snap of generateSnapshots(options)) {
    first ??= snap;
    const failingSources = snap.sources.filter((x) => x.status === 'failing');
    const failing = new Set(failingSources.map((x) => x.id));
    s.failingSourceDays += failingSources.length;
    s.failingWithoutError += failingSources.filter((x) => !x.error).length;
    const offers = new Map(snap.offers.map((o) => [o.id, o]));
    s.maxIdsPerDayDuplicates = Math.max(s.maxIdsPerDayDuplicates, snap.offers.length - offers.size);
    for (const inst of snap.institutions) {
      const dgs = JSON.stringify(inst.dgs);
      if (!firstDgs.has(inst.id)) firstDgs.set(inst.id, dgs);
      else if (firstDgs.get(inst.id) !== dgs) s.institutionsWithDgsChange.add(inst.id);
    }
    for (const o of snap.offers) {
      if (o.plan.promotion) s.promotionKinds.add(o.plan.promotion.kind);
      const before = prevOffers.get(o.id);
      if (prev && !before) {
        if (s.disappeared.has(o.id)) s.returned.add(o.id);
        else if (!first.offers.some((f) => f.id === o.id)) s.appeared.add(o.id);
      }
      if (before && !samePlan(before.plan, o.plan)) s.planChanges++;
      if (before && failing.has(o.sourceId) && JSON.stringify(before) !== JSON.stringify(o))
        s.staleViolations.push(`${snap.observedAt} ${o.id}`);
    }
    for (const id of prevOffers.keys()) if (!offers.has(id)) s.disappeared.add(id);
    prev = snap;
    prevOffers = offers;
  }
  if (!first || !prev) throw new Error('no snapshots');
  return { ...s, ms: performance.now() - started, first, last: prev };
}

describe('generateSnapshots', () => {
  let full: RunSummary;
  beforeAll(() => {
    full = summarise(FULL);
    console.info(
      `400 days generated and summarised in ${Math.round(full.ms)} ms; ${full.last.offers.length} offers on ` +
        `the last day; ${full.planChanges} plan changes`,
    );
  });

  it('gives byte-identical output for the same options and different output for another seed', () => {
    const a = serialise(SHORT);
    expect(serialise(SHORT)).toBe(a);
    expect(serialise({ ...SHORT, seed: 43 })).not.toBe(a);
  });

  it('yields one complete snapshot per day, oldest first, observed at 06:00 UTC and ending on `end`', () => {
    const days = [...generateSnapshots({ ...SHORT, days: 3 })].map((s) => [s.observedAt, s.complete]);
    expect(days).toEqual([
      ['2026-11-21T06:00:00.000Z', true],
      ['2026-11-22T06:00:00.000Z', true],
      ['2026-11-23T06:00:00.000Z', true],
    ]);
  });

  it('validates every snapshot of a short run and the last day of a 400-day run against snapshotSchema', () => {
    for (const snap of [...generateSnapshots(SHORT), full.last]) {
      const result = snapshotSchema.safeParse(snap);
      expect(result.success ? [] : result.error.issues.slice(0, 5), snap.observedAt).toEqual([]);
    }
  });

  it('refers only to sources, brands and institutions inside the same snapshot', () => {
    const { last } = full;
    const sources = new Set(last.sources.map((s) => s.id));
    const brands = new Set(last.brands.map((b) => b.id));
    const institutions = new Set(last.institutions.map((i) => i.id));
    expect(last.brands.filter((b) => !institutions.has(b.institutionId))).toEqual([]);
    expect(last.offers.filter((o) => !brands.has(o.brandId) || !sources.has(o.sourceId)).map((o) => o.id)).toEqual([]);
    expect(distinct(last.sources.map((s) => s.name.endsWith('(sample data)')))).toEqual([true]);
    const urls = [
      ...last.sources.map((s) => s.url),
      ...last.offers.map((o) => o.sourceUrl ?? ''),
      ...last.brands.map((b) => b.website ?? 'https://example.com/'),
    ];
    expect(urls.filter((u) => !/^https:\/\/example\.(org|com)\//.test(u))).toEqual([]);
  });

  it('builds a universe of the promised size and variety', () => {
    const { last } = full;
    const brandsPerInstitution = new Map<string, number>();
    for (const b of last.brands)
      brandsPerInstitution.set(b.institutionId, (brandsPerInstitution.get(b.institutionId) ?? 0) + 1);
    expect(last.institutions.length).toBeGreaterThanOrEqual(40);
    expect(distinct(last.institutions.map((i) => i.country)).length).toBeGreaterThanOrEqual(10);
    expect(last.brands.length).toBeGreaterThanOrEqual(70);
    expect([...brandsPerInstitution.values()].filter((n) => n >= 2).length).toBeGreaterThanOrEqual(3);
    expect(
      last.brands.some((b) => b.country !== last.institutions.find((i) => i.id === b.institutionId)?.country),
    ).toBe(true);
    expect(last.institutions.some((i) => i.lei === null)).toBe(true);
    expect(last.institutions.filter((i) => i.lei !== null).length).toBeGreaterThan(last.institutions.length / 2);
    expect(last.institutions.filter((i) => !i.dgs.verified && i.dgs.verifiedAt === null).length).toBeGreaterThanOrEqual(
      1,
    );
    expect(full.institutionsWithDgsChange.size).toBe(1);

    expect(last.offers.length).toBeGreaterThanOrEqual(600);
    expect(distinct(last.offers.filter((o) => o.type === 'deposit').map((o) => o.termMonths))).toEqual(
      [...DEPOSIT_TERMS].sort(),
    );
    expect(distinct(last.offers.map((o) => o.type))).toEqual(['deposit', 'flexible', 'notice']);
    expect(distinct(last.offers.map((o) => o.payout))).toEqual([
      'ANNUALLY',
      'AT_MATURITY',
      'MONTHLY',
      'OTHER',
      'QUARTERLY',
    ]);
    expect(distinct(last.offers.map((o) => o.channel))).toEqual(['aggregator', 'direct', 'platform']);
    expect(distinct(last.offers.map((o) => o.plan.tierMode))).toEqual(['marginal', 'whole']);
    expect(distinct(last.offers.map((o) => o.plan.tiers.length))).toEqual([1, 2, 3]);
    expect(distinct(last.offers.map((o) => o.plan.rateType))).toEqual(['fixed', 'variable']);
    expect(distinct(last.offers.map((o) => o.withholding.kind))).toEqual(['applicable', 'none', 'reducible']);
    expect(distinct(last.offers.flatMap((o) => (o.plan.promotion ? [o.plan.promotion.kind] : [])))).toEqual([
      'bonus',
      'replace',
    ]);
    expect(last.offers.some((o) => o.plan.promotion && o.plan.promotion.maxBalance === null)).toBe(true);
    expect(last.offers.some((o) => o.plan.promotion && o.plan.promotion.maxBalance !== null)).toBe(true);
    expect(last.offers.some((o) => !o.openToNewCustomers)).toBe(true);
    expect(last.offers.some((o) => o.currentAccountRequired)).toBe(true);
    expect(last.offers.some((o) => o.annualFee !== '0.00')).toBe(true);
    expect(last.offers.filter((o) => o.type === 'notice' && (o.noticeDays! < 30 || o.noticeDays! > 365))).toEqual([]);
    expect(last.offers.filter((o) => (o.channel === 'direct' ? o.platform !== null : o.platform === null))).toEqual([]);
    expect(last.offers.filter((o) => o.type !== 'deposit' && !(o.earlyWithdrawal && o.interestCompounds))).toEqual([]);

    expect(full.appeared.size).toBeGreaterThanOrEqual(1);
    expect(full.disappeared.size).toBeGreaterThanOrEqual(1);
    expect(full.returned.size).toBeGreaterThanOrEqual(1);
  });

  it(
    'keeps rates realistic: 0.00–4.50, headline = best tier (+ bonus, or the replace rate), longer deposits ' +
      'mostly higher',
    () => {
      const bad: string[] = [];
      for (const o of full.last.offers) {
        const best = Decimal.max(...o.plan.tiers.map((t) => new Decimal(t.rate)));
        const p = o.plan.promotion;
        const headline = p === null ? best : p.kind === 'bonus' ? best.plus(p.rate) : Decimal.max(best, p.rate);
        if (!headline.eq(o.plan.headlineRate))
          bad.push(`${o.id}: headline ${o.plan.headlineRate}, expected ${headline.toFixed(2)}`);
        for (const r of [o.plan.headlineRate, ...o.plan.tiers.map((t) => t.rate)]) {
          if (!/^\d\.\d\d$/.test(r) || new Decimal(r).gt('4.50')) bad.push(`${o.id}: rate ${r}`);
        }
      }
      expect(bad).toEqual([]);
      const median = (term: number): Decimal => {
        const rates = full.last.offers
          .filter((o) => o.termMonths === term)
          .map((o) => new Decimal(o.plan.headlineRate))
          .sort((a, b) => a.comparedTo(b));
        return rates[Math.floor(rates.length / 2)] as Decimal;
      };
      expect(median(120).gt(median(12))).toBe(true);
      expect(median(12).gt(median(1))).toBe(true);
    },
  );

  it('shows a failing source as failing with an error, and its offers as last seen (checkedAt not renewed)', () => {
    expect(full.staleViolations).toEqual([]);
    expect(full.failingSourceDays).toBeGreaterThan(0);
    expect(full.failingWithoutError).toBe(0);
    const { last } = full;
    const failing = new Set(last.sources.filter((s) => s.status === 'failing').map((s) => s.id));
    const observed = Date.parse(last.observedAt);
    const fresh = last.offers.filter((o) => !failing.has(o.sourceId)).map((o) => observed - Date.parse(o.checkedAt));
    expect(fresh.filter((ms) => ms <= 0 || ms > 3_600_000)).toEqual([]);
  });

  it('multiplies the offers with --scale and keeps the ids unique', () => {
    const summary = summarise({ ...SHORT, scale: 3 });
    expect(summary.last.offers.length).toBeGreaterThanOrEqual(1800);
    expect(summary.maxIdsPerDayDuplicates).toBe(0);
    expect(full.maxIdsPerDayDuplicates).toBe(0);
  });

  it('changes plans a realistic number of times over 400 days', () => {
    expect(full.planChanges).toBeGreaterThanOrEqual(2_000);
    expect(full.planChanges).toBeLessThanOrEqual(30_000);
  });

  it('generates 400 days in a few seconds', () => {
    expect(full.ms).toBeLessThan(15_000);
  });

  // issue 19: started before 06:00 UTC, the generator dated today's snapshot ahead of the clock.
  it.each([
    ['before 06:00 UTC', '2026-11-23T03:12:30.000Z', '2026-11-23T03:12:30.000Z'],
    ['after 06:00 UTC', '2026-11-23T17:00:00.000Z', '2026-11-23T06:00:00.000Z'],
    ['just after midnight', '2026-11-23T00:00:01.000Z', '2026-11-23T00:00:01.000Z'],
  ])('never dates a snapshot after the clock: started %s, today is observed at %s', (_when, now, observedAt) => {
    const snapshots = [...generateSnapshots({ ...SHORT, days: 3, notAfter: now })];
    expect(snapshots.map((s) => s.observedAt)).toEqual([
      '2026-11-21T06:00:00.000Z',
      '2026-11-22T06:00:00.000Z',
      observedAt,
    ]);
    const today = snapshots[2]!;
    expect(snapshotSchema.safeParse(today).success).toBe(true); // every offer checked before it was observed
    expect(Math.max(...today.offers.map((o) => Date.parse(o.checkedAt)))).toBeLessThanOrEqual(Date.parse(observedAt));
  });

  it('refuses an end after the clock', () => {
    expect(() => generateSnapshots({ ...SHORT, notAfter: '2026-11-22T23:59:59.000Z' })).toThrow(
      /end must not be after today \(2026-11-22\)/,
    );
  });

  it('rejects invalid options at once', () => {
    expect(() => generateSnapshots({ ...SHORT, days: 0 })).toThrow(/days/);
    expect(() => generateSnapshots({ ...SHORT, end: '2026-02-30' })).toThrow(/end/);
    expect(() => generateSnapshots({ ...SHORT, scale: 1.5 })).toThrow(/scale/);
  });
});

describe('parseSampleArgs', () => {
  const NOW = new Date('2026-11-23T04:10:00.000Z');
  const TODAY = '2026-11-23';
  const notAfter = NOW.toISOString();
  it.each([
    [[], { seed: 42, days: 400, end: TODAY, scale: 1, notAfter, out: null, ingest: false, help: false }],
    [
      ['--seed', '7', '--days=30', '--end', '2026-01-31', '--scale', '2', '--out', '/tmp/x'],
      { seed: 7, days: 30, end: '2026-01-31', scale: 2, notAfter, out: '/tmp/x', ingest: false, help: false },
    ],
    [
      ['--scale', '20', '--ingest'],
      { seed: 42, days: 400, end: TODAY, scale: 20, notAfter, out: null, ingest: true, help: false },
    ],
    [['--help'], { seed: 42, days: 400, end: TODAY, scale: 1, notAfter, out: null, ingest: false, help: true }],
  ])('parses %j', (argv, options) => {
    expect(parseSampleArgs(argv, NOW)).toEqual({ ok: true, options });
  });

  it.each([
    [['--days', '0'], /--days must be an integer from 1/],
    [['--seed', '-1'], /--seed must be a whole number/],
    [['--end', '2026-13-01'], /--end must be a date/],
    [['--scale'], /--scale needs a value/],
    [['--bogus'], /unknown option --bogus/],
    [['--days', '3', '--days', '4'], /--days given twice/],
    [['--out', '/tmp/x', '--ingest'], /--out and --ingest exclude each other/],
    [['--end', '2026-11-24'], /--end must not be after today \(2026-11-23\)/],
  ])('reports %j', (argv, message) => {
    const parsed = parseSampleArgs(argv, NOW);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.errors.join('\n')).toMatch(message);
  });
});
