// Snapshots made to slip through the ingest: bytes that are not UTF-8, text the database cannot store,
// an offer moved under another institution's guarantee, a rate of minus zero. Against a real database
// (in-memory PGlite, or PostgreSQL with TEST_DATABASE_URL).
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMarketHistory } from '../src/catalog/history.js';
import { loadCatalog } from '../src/catalog/load.js';
import { applySnapshot } from '../src/ingest/apply.js';
import { EXIT, main as ingestCli } from '../src/ingest/cli.js';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { baseSnapshot, clone } from './support/snapshots.js';

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

const day = (n: number) => `2026-11-${String(n).padStart(2, '0')}T06:00:00.000Z`;

/** `npm run ingest -- FILE` of these bytes: its exit code and what it said. */
async function ingestFile(content: string | Uint8Array): Promise<{ code: number; said: string }> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'ingest-edges-')), 'snapshot.json');
  await writeFile(file, content);
  const said: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...args) => void said.push(args.join(' ')));
  const err = vi.spyOn(console, 'error').mockImplementation((...args) => void said.push(args.join(' ')));
  try {
    return { code: await ingestCli([file], { DATABASE_URL: db.url }), said: said.join('\n') };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

describe('npm run ingest refuses, writing nothing', () => {
  it('a file that is not UTF-8, naming the byte offset of the first bad byte', async () => {
    const text = JSON.stringify(baseSnapshot(day(1))).replace('Zeeland Direct', 'Zeeland Dir?ct');
    const bytes = Buffer.from(text);
    const offset = bytes.indexOf('?');
    bytes[offset] = 0xe9; // é in Latin-1: a file saved by a tool that did not write UTF-8
    const { code, said } = await ingestFile(bytes);
    expect(code).toBe(EXIT.rejected);
    expect(said).toContain(`$: not valid JSON: invalid UTF-8 at byte offset ${offset} (line 1)`);
    expect(await db.prisma.brand.count()).toBe(0);
  });

  it('a NUL character, in validation with its JSON path (not as a database failure)', async () => {
    const snapshot = baseSnapshot(day(1));
    snapshot.offers[1]!.name = 'Termijn\u0000deposito';
    const { code, said } = await ingestFile(JSON.stringify(snapshot));
    expect(code).toBe(EXIT.rejected);
    expect(said).toMatch(/\$\.offers\[1\]\.name: contains a NUL character \(U\+0000\) at position 7/);
    expect(await db.prisma.ingestRun.count()).toBe(0);
  });
});

describe('an offer under another institution', () => {
  /** A second institution, whose guarantee differs, with a brand of its own. */
  function withOtherBank(observedAt: string): Snapshot {
    const s = baseSnapshot(observedAt);
    s.institutions.push({
      id: 'noord-bank',
      name: 'Noord Bank N.V.',
      country: 'NL',
      lei: null,
      dgs: { scheme: 'DNB DGS', country: 'NL', limit: '100000.00', verified: false, source: null, verifiedAt: null },
    });
    s.brands.push({
      id: 'noord-direct',
      name: 'Noord Direct',
      country: 'NL',
      website: null,
      institutionId: 'noord-bank',
    });
    return s;
  }
  const eventsOf = (at: string) =>
    db.prisma.changeEvent.findMany({ where: { at: new Date(at) }, orderBy: { id: 'asc' } });

  it('moved to a brand of another institution: a dgs_change of the offer, saying from where to where', async () => {
    await applySnapshot(db.prisma, withOtherBank(day(1)));
    const next = withOtherBank(day(2));
    next.offers[0]!.brandId = 'noord-direct';
    await expect(applySnapshot(db.prisma, next)).resolves.toMatchObject({ events: { dgs_change: 1 } });
    expect(await eventsOf(day(2))).toMatchObject([
      {
        kind: 'dgs_change',
        offerId: 'zeeland-direct-flex',
        brandId: 'noord-direct',
        institutionId: 'noord-bank',
        summary: expect.stringMatching(
          /now offered by Noord Bank N\.V\. \(was Zeeland Spaarbank N\.V\.\).*not verified/,
        ),
        from: { institutionId: 'zeeland-spaarbank', brandId: 'zeeland-direct', verified: true },
        to: { institutionId: 'noord-bank', brandId: 'noord-direct', verified: false },
      },
    ]);
  });

  it('whose brand moved to another institution, in a partial snapshot: one event per offer of the brand', async () => {
    await applySnapshot(db.prisma, withOtherBank(day(1)));
    const sold: Snapshot = { ...withOtherBank(day(2)), complete: false, offers: [] };
    sold.brands.find((b) => b.id === 'zeeland-online')!.institutionId = 'noord-bank';
    await applySnapshot(db.prisma, sold);
    expect(await eventsOf(day(2))).toMatchObject([
      {
        kind: 'dgs_change',
        offerId: 'zeeland-online-12m',
        brandId: 'zeeland-online',
        from: { institutionId: 'zeeland-spaarbank', verified: true },
        to: { institutionId: 'noord-bank', verified: false },
      },
    ]);
  });

  it('moved to another brand of the same institution: no guarantee changed, no event', async () => {
    await applySnapshot(db.prisma, baseSnapshot(day(1)));
    const next = baseSnapshot(day(2));
    next.offers[0]!.brandId = 'zeeland-online';
    await expect(applySnapshot(db.prisma, next)).resolves.toMatchObject({
      status: 'applied',
      events: { dgs_change: 0 },
    });
  });

  it("is not taken for a change of the institution's own guarantee by the market view", async () => {
    // The offer moves to the verified bank: its event says verified false → true, of that bank, which was
    // verified all along; read as the bank's own change, the bank would count as unverified before it.
    const first = withOtherBank(day(1));
    first.offers[0]!.brandId = 'noord-direct';
    await applySnapshot(db.prisma, first);
    await applySnapshot(db.prisma, withOtherBank(day(2)));
    const catalog = await loadCatalog(db.prisma);
    expect(catalog.institutions.map((i) => [i.id, i.dgs.verified]).sort()).toEqual([
      ['noord-bank', false],
      ['zeeland-spaarbank', true],
    ]);
    const days = await createMarketHistory(db.prisma).days(catalog, 2);
    expect(days.map((d) => [d.date, d.deposit12?.toFixed(2) ?? null])).toEqual([
      ['2026-11-01', '2.60'],
      ['2026-11-02', '2.60'],
    ]);
  });
});

describe('a rate of minus zero', () => {
  it('is zero: the snapshot is the one written with 0.00', async () => {
    const signed = baseSnapshot(day(1));
    signed.offers[0]!.plan.tiers[0]!.rate = '-0.00';
    const unsigned = clone(signed);
    unsigned.offers[0]!.plan.tiers[0]!.rate = '0.00';
    await expect(applySnapshot(db.prisma, signed)).resolves.toMatchObject({ status: 'applied' });
    await expect(applySnapshot(db.prisma, unsigned)).resolves.toMatchObject({ status: 'skipped' });
    const plan = await db.prisma.ratePlan.findFirst({ where: { offerId: 'zeeland-direct-flex' } });
    expect(JSON.stringify(plan?.tiers)).not.toContain('-0');
  });
});
