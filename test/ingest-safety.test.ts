// A snapshot that fails half-way leaves no trace, whatever stops it; readers never see a torn state.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';
import { applySnapshot, IngestError } from '../src/ingest/apply.js';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { createTestDatabase, usingPostgres, type TestDatabase } from './support/database.js';
import { baseSnapshot, clone, flexOffer } from './support/snapshots.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  await db.prisma.$executeRawUnsafe(
    'TRUNCATE "ChangeEvent", "RatePlan", "Offer", "Brand", "Institution", "Source", "IngestRun", "DataVersion", ' +
      '"LedgerEntry", "StateBlock" ' +
      'RESTART IDENTITY CASCADE',
  );
});

async function dump(): Promise<unknown> {
  const p = db.prisma;
  const rows = await Promise.all([
    p.source.findMany({ orderBy: { id: 'asc' } }),
    p.institution.findMany({ orderBy: { id: 'asc' } }),
    p.brand.findMany({ orderBy: { id: 'asc' } }),
    p.offer.findMany({ orderBy: { id: 'asc' } }),
    p.ratePlan.findMany({ orderBy: { id: 'asc' } }),
    p.changeEvent.findMany({ orderBy: { id: 'asc' } }),
    p.ingestRun.findMany({ orderBy: { id: 'asc' } }),
    p.dataVersion.findMany(),
  ]);
  return JSON.parse(JSON.stringify(rows));
}

const day = (n: number) => `2026-11-${String(n).padStart(2, '0')}T06:00:00.000Z`;

/** Day 2 changes a rate and adds an offer: plans, offers and events all have something to write. */
function nextDay(): Snapshot {
  const next = baseSnapshot(day(2));
  next.offers[0]!.plan.headlineRate = '2.55';
  next.offers.push({ ...flexOffer(day(2)), id: 'zeeland-direct-plus', name: 'Direct Sparen Plus' });
  return next;
}

describe('an ingest process killed inside its transaction', () => {
  it('leaves no trace, never shows readers half of it, and does not block the next ingest', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const before = await dump();
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'ingest-kill-')), 'day2.json');
    await writeFile(file, JSON.stringify(nextDay()));

    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/ingest-child.ts', db.url, file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stderr.on('data', (d: Buffer) => (errors += d.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child.on('exit', (code, signal) => resolve(signal ?? code)),
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('paused')) resolve();
      });
      child.on('exit', () => reject(new Error(`the ingest child ended before pausing: ${output}${errors}`)));
    });

    // Offers and plans are written but not committed. PostgreSQL answers readers from the last
    // commit at once; the embedded database queues them behind the open transaction.
    const reading = dump();
    if (usingPostgres) expect(await reading).toEqual(before);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(await reading).toEqual(before);
    expect(await dump()).toEqual(before);
    expect(output).not.toContain('committed');

    // The advisory lock died with the transaction: the same snapshot now applies in full.
    const retried = await applySnapshot(db.prisma, nextDay());
    expect(retried).toMatchObject({ status: 'applied', plansAdded: 2, dataVersion: 2 });
  }, 60_000);
});

describe('a bad row late in a large snapshot', () => {
  it('is reported by its path and nothing of the snapshot is written', async () => {
    const [first, second] = [...generateSnapshots({ seed: 3, days: 2, end: '2026-11-23', scale: 1 })];
    await applySnapshot(db.prisma, first);
    const before = await dump();
    const bad = clone(second!);
    const last = bad.offers.length - 1;
    expect(last).toBeGreaterThan(500);
    bad.offers[last]!.plan.headlineRate = '12,5';
    const error = await applySnapshot(db.prisma, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestError);
    expect((error as IngestError).problems.map((p) => p.path)).toEqual([`$.offers[${last}].plan.headlineRate`]);
    expect(await dump()).toEqual(before);
  }, 60_000);
});

describe('readers during ingests', () => {
  it('always load a catalogue from one committed version', async () => {
    // Snapshot k gives both offers the rate 1.k %: a catalogue mixing two commits would show two rates.
    const rate = (k: number) => `1.${String(k).padStart(2, '0')}`;
    const snapshot = (k: number) => {
      const s = baseSnapshot(`2026-11-01T${String(k % 24).padStart(2, '0')}:${String(k).padStart(2, '0')}:00.000Z`);
      for (const offer of s.offers) {
        offer.plan.headlineRate = rate(k);
        offer.plan.tiers = [{ from: '0.00', to: null, rate: rate(k) }];
      }
      return s;
    };
    let done = false;
    const ingesting = (async () => {
      for (let k = 1; k <= 20; k++) await applySnapshot(db.prisma, snapshot(k));
      done = true;
    })();
    const seen = new Set<number>();
    while (!done) {
      const catalog = await loadCatalog(db.prisma);
      if (catalog.version === 0) continue;
      seen.add(catalog.version);
      const rates = catalog.offers.map((o) => o.headlineRate.toFixed(2));
      expect(rates).toEqual([rate(catalog.version), rate(catalog.version)]);
      expect(catalog.lastObservedAt?.toISOString()).toBe(snapshot(catalog.version).observedAt);
    }
    await ingesting;
    expect(seen.size).toBeGreaterThan(1);
  }, 60_000);
});
