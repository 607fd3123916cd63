// The generated sample market through the real ingest: the history comes out of the pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySnapshot, Ingester } from '../src/ingest/apply.js';
import { EVENT_KINDS } from '../src/ingest/diff.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { seedSampleIfEmpty } from '../src/sample/seed.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

const options = { seed: 7, days: 45, end: '2026-11-23', scale: 1 };

async function dumpHistory(db: TestDatabase) {
  const [offers, plans, events, sources] = await Promise.all([
    db.prisma.offer.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.ratePlan.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.changeEvent.findMany({ orderBy: { id: 'asc' } }),
    db.prisma.source.findMany({ orderBy: { id: 'asc' } }),
  ]);
  return JSON.parse(JSON.stringify({ offers, plans, events, sources })) as unknown;
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

  it('writes exactly what an ingest that re-reads the database for every snapshot writes', async () => {
    // seedSample keeps its diff state in memory between snapshots; applySnapshot reads it every time.
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
