// The generated sample market through the real ingest: the history comes out of the pipeline.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySnapshot, Ingester } from '../src/ingest/apply.js';
import { EVENT_KINDS } from '../src/ingest/diff.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { seedSampleIfEmpty } from '../src/sample/seed.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

const options = { seed: 7, days: 45, end: '2026-11-23', scale: 1 };

async function dumpHistory(db: TestDatabase) {
  const [offers, plans, events, sources, institutions, brands, version, runs, entries, blocks] = await Promise.all([
    db.prisma.offer.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.ratePlan.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.changeEvent.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.source.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.institution.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.brand.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.dataVersion.findMany(),
    // when and from which file each was applied differ between two runs; the rest may not
    db.prisma.ingestRun.findMany({
      orderBy: { id: 'asc' },
      select: { sha256: true, observedAt: true, changed: true, plansAdded: true, eventsAdded: true },
    }),
    db.prisma.ledgerEntry.findMany({
      orderBy: { version: 'asc' },
      select: { version: true, observedAt: true, snapshot: true, stateHash: true, maxPlanId: true, maxEventId: true },
    }),
    db.prisma.stateBlock.findMany({ orderBy: { version: 'asc' } }),
  ]);
  const blockTexts = blocks.map((b) => ({ ...b, body: gunzipSync(b.body).toString('utf8') }));
  return JSON.parse(
    JSON.stringify({ offers, plans, events, sources, institutions, brands, version, runs, entries, blockTexts }),
  ) as unknown;
}

describe('the sample market through the ingest', () => {
  let cached: TestDatabase;
  let fresh: TestDatabase;
  beforeAll(async () => {
    [cached, fresh] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  });
  afterAll(async () => {
    await Promise.all([cached?.close(), fresh?.close()]);
  });

  it('derives every kind of change event from the daily snapshots', async () => {
    const summary = await seedSampleIfEmpty(cached.prisma, options);
    expect(summary).toMatchObject({ snapshots: 45, applied: 45, dataVersion: 45 });
    for (const kind of EVENT_KINDS) expect(summary!.events[kind], kind).toBeGreaterThan(0);
    expect(await cached.prisma.ratePlan.count()).toBe(summary!.plansAdded);
    expect(await cached.prisma.changeEvent.count()).toBe(EVENT_KINDS.reduce((n, k) => n + summary!.events[k], 0));
    expect(await seedSampleIfEmpty(cached.prisma, options)).toBeNull();
  });

  it('writes exactly what an ingest of one snapshot at a time that re-reads the database writes', async () => {
    // seedSample applies the snapshots 25 to a transaction (ingest/batch.ts), keeping its diff state in
    // memory across them; applySnapshot applies one per transaction and reads the state every time.
    for (const snapshot of generateSnapshots(options)) await applySnapshot(fresh.prisma, snapshot);
    expect(await dumpHistory(fresh)).toEqual(await dumpHistory(cached));
  });

  it('re-reads the state when another process has ingested in between', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      const days = [...generateSnapshots({ ...options, days: 12 })];
      const mine = new Ingester(a.prisma);
      const other = new Ingester(a.prisma); // a second process, as far as `mine` can tell
      for (const [i, snapshot] of days.entries()) {
        await (i === 6 || i === 7 ? other : mine).apply(snapshot);
        await applySnapshot(b.prisma, snapshot);
      }
      expect(await dumpHistory(a)).toEqual(await dumpHistory(b));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
