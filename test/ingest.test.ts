// The ingest against a real database (in-memory PGlite, or PostgreSQL with TEST_DATABASE_URL).
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { applySnapshot, IngestError } from '../src/ingest/apply.js';
import { EXIT, main as ingestCli } from '../src/ingest/cli.js';
import { ingestAll, SnapshotFailed } from '../src/ingest/run.js';
import type { EventKind } from '../src/ingest/diff.js';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { baseSnapshot, clone, flexOffer } from './support/snapshots.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

const TABLES = [
  'source',
  'institution',
  'brand',
  'offer',
  'ratePlan',
  'changeEvent',
  'ingestRun',
  'dataVersion',
  'ledgerEntry',
  'stateBlock',
] as const;

async function counts(): Promise<Record<string, number>> {
  const entries = await Promise.all(
    TABLES.map(async (t) => [t, await (db.prisma[t] as unknown as { count(): Promise<number> }).count()] as const),
  );
  return Object.fromEntries(entries);
}

/** Everything in the database, to prove that a failed ingest left no trace at all. */
async function dump(): Promise<unknown> {
  return Promise.all([
    db.prisma.source.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.institution.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.brand.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.offer.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.ratePlan.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.changeEvent.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.ingestRun.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.dataVersion.findMany(),
    db.prisma.ledgerEntry.findMany({ orderBy: { version: 'asc' } }),
    db.prisma.stateBlock.findMany({ orderBy: { version: 'asc' } }),
  ]).then((rows) => JSON.parse(JSON.stringify(rows)));
}

async function reset() {
  await db.prisma.$executeRawUnsafe(
    'TRUNCATE "ChangeEvent", "RatePlan", "Offer", "Brand", "Institution", "Source", "IngestRun", "DataVersion", ' +
      '"LedgerEntry", "StateBlock" ' +
      'RESTART IDENTITY CASCADE',
  );
}

const day = (n: number) => `2026-11-${String(n).padStart(2, '0')}T06:00:00.000Z`;

describe('validation', () => {
  beforeEach(reset);

  it('lists every problem of a malformed snapshot with its JSON path and writes nothing', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const before = await dump();
    const bad = clone(baseSnapshot(day(2))) as unknown as Record<string, any>;
    bad.offers[0].plan.tiers[1].from = '24000.00'; // not contiguous
    bad.offers[0].minAmount = '-5'; // money is never negative
    bad.offers[1].termMonths = null; // deposits need a term
    bad.institutions[0].country = 'nl';
    bad.brands.push({ ...bad.brands[0] }); // duplicate id
    delete bad.sources[0].error; // every key present

    const error = await applySnapshot(db.prisma, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestError);
    const paths = (error as IngestError).problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '$.offers[0].minAmount',
        '$.offers[1].termMonths',
        '$.institutions[0].country',
        '$.sources[0].error',
      ]),
    );
    expect(await dump()).toEqual(before);
  });

  it('reports structural problems and duplicate ids once the shape is right', async () => {
    const bad = clone(baseSnapshot(day(1)));
    bad.offers[0]!.plan.tiers[1]!.from = '24000.00';
    bad.brands.push(clone(bad.brands[0]!));
    const error = (await applySnapshot(db.prisma, bad).catch((e: unknown) => e)) as IngestError;
    expect(error.problems).toEqual(
      expect.arrayContaining([
        { path: '$.offers[0].plan.tiers[1].from', message: expect.stringContaining('contiguous') },
        { path: '$.brands[2].id', message: expect.stringContaining('duplicate id "zeeland-direct"') },
      ]),
    );
    expect((await counts()).offer).toBe(0);
  });

  it('resolves references against the database and lists those it cannot', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const partial: Snapshot = { ...baseSnapshot(day(2)), complete: false, sources: [], institutions: [], brands: [] };
    partial.offers[0]!.plan.headlineRate = '2.45';
    await expect(applySnapshot(db.prisma, partial)).resolves.toMatchObject({ status: 'applied' });

    const dangling = clone(partial);
    dangling.observedAt = day(3);
    dangling.offers[0]!.brandId = 'no-such-brand';
    dangling.offers[1]!.sourceId = 'no-such-source';
    const error = (await applySnapshot(db.prisma, dangling).catch((e: unknown) => e)) as IngestError;
    expect(error.problems).toEqual([
      {
        path: '$.offers[0].brandId',
        message: 'unknown brand "no-such-brand": neither in this snapshot nor in the database',
      },
      {
        path: '$.offers[1].sourceId',
        message: 'unknown source "no-such-source": neither in this snapshot nor in the database',
      },
    ]);
  });

  // issue 19: a snapshot dated hours ahead (a time-zone slip at a source) locked out every real one until its time.
  it.each([
    [
      '3 h ahead',
      '2026-11-02T09:00:00.000Z',
      '2026-11-02T09:00:00.000Z is 3 h 0 min ahead of the clock (2026-11-02T06:00:00.000Z)',
    ],
    [
      '6 min ahead',
      '2026-11-02T06:06:00.000Z',
      '2026-11-02T06:06:00.000Z is 6 min ahead of the clock (2026-11-02T06:00:00.000Z)',
    ],
  ])(
    'rejects a snapshot observed %s of the clock, naming both, and writes nothing',
    async (_ahead, observedAt, message) => {
      await applySnapshot(db.prisma, baseSnapshot(day(1)));
      const before = await dump();
      const now = () => new Date(day(2));
      const error = (await applySnapshot(db.prisma, baseSnapshot(observedAt), { now }).catch(
        (e: unknown) => e,
      )) as IngestError;
      expect(error).toBeInstanceOf(IngestError);
      expect(error.problems).toEqual([{ path: '$.observedAt', message: expect.stringContaining(message) }]);
      expect(error.problems[0]!.message).toMatch(/at most 5 min is accepted \(INGEST_MAX_FUTURE_SKEW_MINUTES\)/);
      expect(await dump()).toEqual(before);
      // The present is not locked out: the real snapshot of the hour applies.
      await expect(applySnapshot(db.prisma, baseSnapshot(day(2)), { now })).resolves.toMatchObject({
        status: 'applied',
      });
    },
  );

  it.each([
    ['at the clock', day(2), undefined],
    ['within the default skew', '2026-11-02T06:05:00.000Z', undefined],
    ['within a configured skew', '2026-11-02T07:00:00.000Z', 60 * 60_000],
  ])('accepts a snapshot observed %s', async (_when, observedAt, maxFutureSkewMs) => {
    await expect(
      applySnapshot(db.prisma, baseSnapshot(observedAt), { now: () => new Date(day(2)), maxFutureSkewMs }),
    ).resolves.toMatchObject({ status: 'applied' });
  });

  it('rejects a snapshot older than the last one applied', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(5)));
    const error = (await applySnapshot(db.prisma, baseSnapshot(day(4))).catch((e: unknown) => e)) as IngestError;
    expect(error.problems[0]?.path).toBe('$.observedAt');
  });
});

describe('transactions', () => {
  beforeEach(reset);
  afterEach(async () => {
    await db.prisma.$executeRawUnsafe('DROP TRIGGER IF EXISTS fail_events ON "ChangeEvent"');
    await db.prisma.$executeRawUnsafe('DROP FUNCTION IF EXISTS fail_events()');
  });

  it('leaves the database as it was when a write fails half-way', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const before = await dump();
    // Events are written last: a database error there comes after offers and plans were written.
    await db.prisma.$executeRawUnsafe(
      `CREATE FUNCTION fail_events() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'disk full (simulated)'; END ` +
        `$$ LANGUAGE plpgsql`,
    );
    await db.prisma.$executeRawUnsafe(
      'CREATE TRIGGER fail_events BEFORE INSERT ON "ChangeEvent" FOR EACH ROW EXECUTE FUNCTION fail_events()',
    );
    const next = baseSnapshot(day(2));
    next.offers[0]!.plan.headlineRate = '2.50';
    await expect(applySnapshot(db.prisma, next)).rejects.toThrow(/simulated/);
    expect(await dump()).toEqual(before);
  });

  it('applies the same snapshot twice without a change the second time', async () => {
    const first = await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const after = await dump();
    const second = await applySnapshot(db.prisma, baseSnapshot(day(1)));
    expect(first.status).toBe('applied');
    expect(second.status).toBe('skipped');
    expect(await dump()).toEqual(after);
  });

  it('bumps the data version only when something changed', async () => {
    const a = await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const empty: Snapshot = {
      observedAt: day(2),
      complete: false,
      sources: [],
      institutions: [],
      brands: [],
      offers: [],
    };
    const b = await applySnapshot(db.prisma, empty);
    expect(b).toMatchObject({ status: 'unchanged', dataVersion: a.dataVersion });
    const changed = baseSnapshot(day(3));
    changed.offers[0]!.plan.headlineRate = '2.40';
    const c = await applySnapshot(db.prisma, changed);
    expect(c).toMatchObject({ status: 'applied', dataVersion: a.dataVersion + 1 });
    expect(await db.prisma.dataVersion.findUnique({ where: { id: 1 } })).toMatchObject({
      version: c.dataVersion,
      changedAt: new Date(day(3)),
    });
  });

  it('writes the snapshots before a bad one, fails that one in its turn and reads none after it', async () => {
    const loaded: number[] = [];
    const sources = [1, 2, 3, 4].map((n) => ({
      name: `day ${n}`,
      load: () => {
        loaded.push(n);
        if (n === 3) return { ...baseSnapshot(day(n)), observedAt: 'yesterday' };
        const snapshot = baseSnapshot(day(n));
        snapshot.offers[0]!.plan.headlineRate = `2.${n}0`;
        return snapshot;
      },
    }));
    const failure = (await ingestAll(db.prisma, sources).catch((err: unknown) => err)) as SnapshotFailed;
    expect(failure).toBeInstanceOf(SnapshotFailed);
    expect(failure.snapshot).toBe('day 3');
    expect(failure.message).toMatch(/observedAt/);
    expect(failure.completed).toMatchObject({ snapshots: 2, applied: 2 });
    expect(loaded).toEqual([1, 2, 3]);
    expect((await db.prisma.ingestRun.findMany({ orderBy: { id: 'asc' } })).map((r) => r.observedAt)).toEqual([
      new Date(day(1)),
      new Date(day(2)),
    ]);
  });

  it('fails a snapshot that the state before it refuses, in the middle of a batch, after those before it', async () => {
    const sources = [1, 2, 3, 4].map((n) => ({
      name: `day ${n}`,
      load: () => {
        const snapshot = baseSnapshot(day(n));
        snapshot.offers[0]!.plan.headlineRate = `2.${n}0`;
        // a brand neither in the snapshot nor in the database: only the state can tell
        if (n === 3) snapshot.offers[0]!.brandId = 'nowhere';
        return snapshot;
      },
    }));
    const failure = (await ingestAll(db.prisma, sources).catch((err: unknown) => err)) as SnapshotFailed;
    expect(failure).toBeInstanceOf(SnapshotFailed);
    expect(failure.snapshot).toBe('day 3');
    expect(failure.message).toMatch(/nowhere/);
    expect(failure.completed).toMatchObject({ snapshots: 2, applied: 2, dataVersion: 2 });
    expect((await db.prisma.ingestRun.findMany({ orderBy: { id: 'asc' } })).map((r) => r.observedAt)).toEqual([
      new Date(day(1)),
      new Date(day(2)),
    ]);
    expect(await db.prisma.dataVersion.findUnique({ where: { id: 1 } })).toMatchObject({ version: 2 });
    const plans = await db.prisma.ratePlan.findMany({ where: { offerId: baseSnapshot(day(1)).offers[0]!.id } });
    expect(plans.map((p) => p.headlineRate.toString()).sort()).toEqual(['2.1', '2.2']);
    // and the next run goes on from there, its ids after those the batch gave
    const next = baseSnapshot(day(4));
    next.offers[0]!.plan.headlineRate = '2.40';
    await applySnapshot(db.prisma, next);
    const ids = (await db.prisma.ratePlan.findMany({ orderBy: { id: 'asc' } })).map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  // issue 19: Prisma split large batches into several statements and sent them at once on the
  // transaction's one connection; pg deprecates that ("Calling client.query() when the client is already
  // executing a query") and pg 9 will refuse it.
  it('sends one query at a time on a connection, however large the snapshot', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const large = baseSnapshot(day(2));
    large.offers[0]!.plan.headlineRate = '2.50';
    // 5,000 new offers: 45,000 plan and 40,000 event parameters, beyond one statement's 32,767 in Prisma's batches.
    for (let i = 0; i < 5_000; i++) large.offers.push({ ...flexOffer(day(2)), id: `bulk-${i}`, name: `Bulk ${i}` });
    const overlaps: string[] = [];
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const client = this as unknown as { _activeQuery: unknown; _queryQueue: unknown[] };
      if (client._activeQuery || client._queryQueue.length > 0)
        overlaps.push(String((args[0] as { text?: string }).text ?? args[0]).slice(0, 60));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    try {
      await expect(applySnapshot(db.prisma, large)).resolves.toMatchObject({
        status: 'applied',
        plansAdded: 5_001,
        events: { new_offer: 5_000, rate_up: 1 },
      });
    } finally {
      spy.mockRestore();
    }
    expect(overlaps).toEqual([]);
    // The rows are those Prisma wrote: ids in the order of the change set, absent promotions SQL NULL.
    const plans = await db.prisma.ratePlan.findMany({
      where: { offerId: { startsWith: 'bulk-' } },
      orderBy: { id: 'asc' },
      select: { offerId: true, promotion: true },
    });
    expect(plans.map((p) => p.offerId)).toEqual(Array.from({ length: 5_000 }, (_, i) => `bulk-${i}`));
    expect(
      await db.prisma.$queryRawUnsafe('SELECT count(*)::int AS n FROM "RatePlan" WHERE "promotion" IS NULL'),
    ).toEqual([{ n: 5_003 }]);
    expect(await db.prisma.ratePlan.count({ where: { validTo: new Date(day(2)) } })).toBe(1);
    const events = await db.prisma.changeEvent.findMany({ where: { at: new Date(day(2)) }, orderBy: { id: 'asc' } });
    expect(events[0]).toMatchObject({ kind: 'rate_up', from: { headlineRate: '2.35' }, to: { headlineRate: '2.50' } });
    expect(events.at(-1)).toMatchObject({
      kind: 'new_offer',
      offerId: 'bulk-4999',
      from: null,
      to: { headlineRate: '2.35', promotion: null },
    });
  }, 120_000);

  it('serialises two ingests that run at the same time', async () => {
    const x = baseSnapshot(day(1));
    const y = baseSnapshot(day(1)); // same content: whichever runs second must see the first's commit
    const results = await Promise.all([applySnapshot(db.prisma, x), applySnapshot(db.prisma, y)]);
    expect(results.map((r) => r.status).sort()).toEqual(['applied', 'skipped']);
    expect((await counts()).ratePlan).toBe(2);
  });
});

describe('change events', () => {
  beforeEach(reset);

  type Mutation = (s: Snapshot) => void;
  const cases: [string, Mutation, EventKind[]][] = [
    ['a higher headline rate', (s) => void (s.offers[0]!.plan.headlineRate = '2.50'), ['rate_up']],
    ['a lower headline rate', (s) => void (s.offers[0]!.plan.headlineRate = '2.20'), ['rate_down']],
    [
      'a promotion appearing',
      (s) => void (s.offers[0]!.plan.promotion = { kind: 'bonus', rate: '0.50', months: 3, maxBalance: null }),
      ['promotion_start'],
    ],
    [
      'a new offer id',
      (s) => void s.offers.push({ ...clone(s.offers[1]!), id: 'zeeland-online-24m', termMonths: 24 }),
      ['new_offer'],
    ],
    ['an offer missing from a complete snapshot', (s) => void s.offers.pop(), ['removed_offer']],
    ['a DGS that is no longer verified', (s) => void (s.institutions[0]!.dgs.verified = false), ['dgs_change']],
    ['a higher DGS limit', (s) => void (s.institutions[0]!.dgs.limit = '150000.00'), ['dgs_change']],
    ['a DGS under another scheme', (s) => void (s.institutions[0]!.dgs.scheme = 'DNB DGS (new)'), ['dgs_change']],
    ['a DGS of another country', (s) => void (s.institutions[0]!.dgs.country = 'BE'), ['dgs_change']],
    // issue 19: a source re-verifies often; followers of the change stream must not be alerted for that.
    ['only a re-verified DGS (a new verifiedAt)', (s) => void (s.institutions[0]!.dgs.verifiedAt = day(2)), []],
    [
      'a rate and a promotion at once',
      (s) => {
        s.offers[0]!.plan.headlineRate = '2.85';
        s.offers[0]!.plan.promotion = { kind: 'bonus', rate: '0.50', months: 3, maxBalance: '50000.00' };
      },
      ['rate_up', 'promotion_start'],
    ],
    ['only a tier change (no headline change)', (s) => void (s.offers[0]!.plan.tiers[0]!.rate = '2.00'), []],
    ['only a fresher checkedAt', (s) => void (s.offers[0]!.checkedAt = day(2)), []],
  ];

  it.each(cases.map(([name, mutate, kinds]) => ({ name, mutate, kinds })))(
    '$name gives $kinds',
    async ({ mutate, kinds }) => {
      await applySnapshot(db.prisma, baseSnapshot(day(1)));
      const next = baseSnapshot(day(2));
      mutate(next);
      await applySnapshot(db.prisma, next);
      const events = await db.prisma.changeEvent.findMany({ where: { at: new Date(day(2)) }, orderBy: { id: 'asc' } });
      expect(events.map((e) => e.kind)).toEqual(kinds);
      for (const e of events) expect(e.summary.length).toBeGreaterThan(10);
    },
  );

  it('keeps the new verifiedAt of a re-verified DGS on the institution without an event (issue 19)', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const reverified = baseSnapshot(day(2));
    reverified.institutions[0]!.dgs.verifiedAt = '2026-11-01T09:30:00.000Z';
    await expect(applySnapshot(db.prisma, reverified)).resolves.toMatchObject({
      status: 'applied',
      events: { dgs_change: 0 },
    });
    expect(await db.prisma.institution.findUnique({ where: { id: 'zeeland-spaarbank' } })).toMatchObject({
      dgsVerifiedAt: new Date('2026-11-01T09:30:00.000Z'),
    });
    expect(await db.prisma.changeEvent.count({ where: { kind: 'dgs_change' } })).toBe(0);

    // A real change made together with a re-verification shows both in the event.
    const raised = baseSnapshot(day(3));
    raised.institutions[0]!.dgs = {
      ...raised.institutions[0]!.dgs,
      limit: '150000.00',
      verifiedAt: '2026-11-02T10:00:00.000Z',
    };
    await applySnapshot(db.prisma, raised);
    expect(await db.prisma.changeEvent.findMany({ where: { kind: 'dgs_change' } })).toMatchObject([
      {
        at: new Date(day(3)),
        institutionId: 'zeeland-spaarbank',
        summary: 'Zeeland Spaarbank N.V.: deposit guarantee details changed (limit, verifiedAt)',
        from: { limit: '100000.00', verifiedAt: '2026-11-01T09:30:00.000Z' },
        to: { limit: '150000.00', verifiedAt: '2026-11-02T10:00:00.000Z' },
      },
    ]);
  });

  it('derives promotion_end when a promotion disappears', async () => {
    const withPromo = baseSnapshot(day(1));
    withPromo.offers[0]!.plan.promotion = { kind: 'replace', rate: '3.00', months: 6, maxBalance: null };
    await applySnapshot(db.prisma, withPromo);
    await applySnapshot(db.prisma, baseSnapshot(day(2)));
    const events = await db.prisma.changeEvent.findMany({ where: { at: new Date(day(2)) } });
    expect(events).toMatchObject([
      {
        kind: 'promotion_end',
        offerId: 'zeeland-direct-flex',
        brandId: 'zeeland-direct',
        institutionId: 'zeeland-spaarbank',
        to: { promotion: null },
      },
    ]);
  });

  it('gives an offer that comes back a new plan and a new_offer event', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const gone = baseSnapshot(day(2));
    gone.offers.pop();
    await applySnapshot(db.prisma, gone);
    await applySnapshot(db.prisma, baseSnapshot(day(3)));
    const offer = await db.prisma.offer.findUnique({
      where: { id: 'zeeland-online-12m' },
      include: { plans: { orderBy: { id: 'asc' } } },
    });
    expect(offer).toMatchObject({ status: 'active', removedAt: null, firstSeenAt: new Date(day(1)) });
    expect(offer!.plans.map((p) => [p.validFrom.toISOString(), p.validTo?.toISOString() ?? null])).toEqual([
      [day(1), day(2)],
      [day(3), null],
    ]);
    const kinds = (
      await db.prisma.changeEvent.findMany({ where: { offerId: 'zeeland-online-12m' }, orderBy: { id: 'asc' } })
    ).map((e) => e.kind);
    expect(kinds).toEqual(['new_offer', 'removed_offer', 'new_offer']);
  });
});

describe('append-only history', () => {
  beforeEach(reset);

  it('never rewrites a plan: later ingests only close validTo', async () => {
    const rates = ['2.35', '2.40', '2.40', '2.25', '2.60', '2.60'];
    const seen = new Map<number, Record<string, unknown>>();
    for (const [i, rate] of rates.entries()) {
      const s = baseSnapshot(day(i + 1));
      s.offers[0]!.plan.headlineRate = rate;
      if (i === 4) s.offers[1]!.plan.promotion = { kind: 'bonus', rate: '0.10', months: 12, maxBalance: null };
      await applySnapshot(db.prisma, s);
      for (const plan of await db.prisma.ratePlan.findMany()) {
        const row = JSON.parse(JSON.stringify(plan)) as Record<string, unknown>;
        const earlier = seen.get(plan.id);
        if (earlier) {
          // Identical except that an open plan may have been closed.
          expect({ ...row, validTo: null }).toEqual({ ...earlier, validTo: null });
          if (earlier.validTo !== null) expect(row.validTo).toBe(earlier.validTo);
        }
        seen.set(plan.id, row);
      }
    }
    const flex = await db.prisma.ratePlan.findMany({
      where: { offerId: 'zeeland-direct-flex' },
      orderBy: { id: 'asc' },
    });
    expect(flex.map((p) => p.headlineRate.toFixed(2))).toEqual(['2.35', '2.40', '2.25', '2.60']);
    expect(flex.filter((p) => p.validTo === null)).toHaveLength(1);
    // Consecutive plans touch: each one ends exactly when the next begins.
    for (let i = 1; i < flex.length; i++) expect(flex[i - 1]!.validTo).toEqual(flex[i]!.validFrom);
  });
});

describe('npm run ingest', () => {
  beforeEach(reset);

  it('applies a directory in file-name order and exits 1 listing the problems of a bad file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'snapshots-'));
    const second = baseSnapshot(day(2));
    second.offers[0]!.plan.headlineRate = '2.55';
    await writeFile(path.join(dir, '2026-11-02.json'), JSON.stringify(second));
    await writeFile(path.join(dir, '2026-11-01.json'), JSON.stringify(baseSnapshot(day(1))));
    const env = { DATABASE_URL: db.url };
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await ingestCli([dir], env)).toBe(0);
      expect(log.mock.calls.flat().join('\n')).toMatch(/snapshots: 2 \(2 applied[\s\S]*rate_up 1/);

      const bad = path.join(dir, 'bad.json');
      await writeFile(bad, '{"observedAt": "yesterday"');
      expect(await ingestCli([bad], env)).toBe(1);
      expect(err.mock.calls.flat().join('\n')).toMatch(/\$: not valid JSON/);
      expect(await ingestCli([], env)).toBe(2);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    expect((await counts()).ingestRun).toBe(2);
  });

  it(
    `exits ${EXIT.failed} with the driver's message ` + `when the database cannot be reached, writing nothing`,
    async () => {
      const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'snapshots-')), 'day1.json');
      await writeFile(file, JSON.stringify(baseSnapshot(day(1))));
      const err = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        expect(await ingestCli([file], { DATABASE_URL: 'postgresql://nobody:x@127.0.0.1:1/none' })).toBe(EXIT.failed);
        expect(err.mock.calls.flat().join('\n')).toMatch(/^error: .*ECONNREFUSED.*; nothing was written\.$/m);
      } finally {
        err.mockRestore();
      }
    },
  );

  it('takes the allowed skew ahead of the clock from INGEST_MAX_FUTURE_SKEW_MINUTES', async () => {
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'snapshots-')), 'ahead.json');
    const inTenMinutes = new Date(Date.now() + 10 * 60_000).toISOString();
    await writeFile(file, JSON.stringify(baseSnapshot(inTenMinutes)));
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      expect(await ingestCli([file], { DATABASE_URL: db.url })).toBe(1);
      expect(err.mock.calls.flat().join('\n')).toContain(`$.observedAt: ${inTenMinutes} is 10 min ahead of the clock`);
      expect(await ingestCli([file], { DATABASE_URL: db.url, INGEST_MAX_FUTURE_SKEW_MINUTES: '15' })).toBe(0);
    } finally {
      err.mockRestore();
      log.mockRestore();
    }
    expect((await counts()).ingestRun).toBe(1);
  });
});

describe('consistency rules beyond types', () => {
  it.each([
    [
      'a verified DGS without its source',
      (s: Snapshot) => void (s.institutions[0]!.dgs.source = null),
      '$.institutions[0].dgs.source',
    ],
    [
      'a verified DGS without a verification date',
      (s: Snapshot) => void (s.institutions[0]!.dgs.verifiedAt = null),
      '$.institutions[0].dgs.verifiedAt',
    ],
    [
      'an offer checked after the snapshot was taken',
      (s: Snapshot) => void (s.offers[1]!.checkedAt = day(3)),
      '$.offers[1].checkedAt',
    ],
    [
      'a notice period on a flexible account',
      (s: Snapshot) => void (s.offers[0]!.noticeDays = 30),
      '$.offers[0].noticeDays',
    ],
    [
      'reducible withholding without its reduced rate',
      (s: Snapshot) => void (s.offers[0]!.withholding = { kind: 'reducible', rate: '26.00', reducedRate: null }),
      '$.offers[0].withholding.reducedRate',
    ],
    ['a maximum below the minimum', (s: Snapshot) => void (s.offers[0]!.maxAmount = '0.50'), '$.offers[0].maxAmount'],
    [
      'a first tier that does not start at zero',
      (s: Snapshot) => void (s.offers[1]!.plan.tiers[0]!.from = '1.00'),
      '$.offers[1].plan.tiers[0].from',
    ],
    ['an id that is not a slug', (s: Snapshot) => void (s.offers[0]!.id = 'Zeeland Flex'), '$.offers[0].id'],
  ])('rejects %s at %s', async (_name, mutate, path) => {
    const s = baseSnapshot(day(2));
    mutate(s);
    const { validateSnapshot } = await import('../src/ingest/validate.js');
    const result = validateSnapshot(s);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toContain(path);
  });
});
