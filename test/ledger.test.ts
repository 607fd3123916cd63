// The temporal catalogue and its ledger over the sample market, through the real ingest: every version
// reads back to the state whose hash its entry holds, and the entries form one chain.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_LOCK } from '../src/ingest/apply.js';
import {
  canonicalJson,
  canonicalState,
  chainHashOf,
  ensureLedger,
  GENESIS,
  KEYFRAME_RATIO,
  readLedger,
  readVersion,
  sha256,
  stateHash,
  stateText,
} from '../src/ingest/ledger.js';
import { loadState } from '../src/ingest/state.js';
import { seedSampleIfEmpty } from '../src/sample/seed.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

// The definition canonicalJson is held to: sorted keys, undefined members left out, no white space.
function referenceJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(referenceJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${referenceJson(v)}`).join(',')}}`;
}

describe('canonical JSON', () => {
  it('is the sorted-key text of any JSON value, objects of one shape included', () => {
    const shaped = fc.record({ z: fc.string(), a: fc.option(fc.integer()), m: fc.constantFrom(undefined, true) });
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue(), shaped)), (values) => {
        expect(canonicalJson(values)).toBe(referenceJson(values));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps members named like the built-in ones, and orders keys that look like indices as text', () => {
    const own = JSON.parse('{"__proto__":"x","b":1,"10":2,"9":3,"constructor":4}') as unknown;
    expect(canonicalJson([own])).toBe('[{"10":2,"9":3,"__proto__":"x","b":1,"constructor":4}]');
    expect(canonicalJson([own])).toBe(referenceJson([own]));
  });
});

const options = { seed: 11, days: 40, end: '2026-11-23', scale: 1 };

describe('the ledger of the sample market', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await seedSampleIfEmpty(db.prisma, options);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('has one entry per data version, in order of observation, chained from the genesis', async () => {
    const entries = await readLedger(db.prisma);
    expect(entries.map((e) => e.version)).toEqual(Array.from({ length: options.days }, (_, i) => i + 1));
    let previous = GENESIS;
    for (const e of entries) {
      expect(e.chainHash).toBe(chainHashOf(previous, e));
      previous = e.chainHash;
    }
    const observed = entries.map((e) => Date.parse(e.observedAt));
    expect(observed).toEqual([...observed].sort((a, b) => a - b));
    expect(await db.prisma.dataVersion.findUnique({ where: { id: 1 } })).toMatchObject({
      version: entries.at(-1)!.version,
      changedAt: new Date(entries.at(-1)!.observedAt),
    });
  });

  it('reads every version back to the state its entry hashed', async () => {
    const entries = await readLedger(db.prisma);
    const hashes = new Set<string>();
    for (const e of entries) {
      const found = (await readVersion(db.prisma, e.version))!;
      expect(found.entry).toEqual(e);
      expect(sha256(stateText(found.state)), `version ${e.version}`).toBe(e.stateHash);
      hashes.add(e.stateHash);
    }
    // every daily snapshot re-checks the offers: no two versions hold the same state
    expect(hashes.size).toBe(entries.length);
    const head = (await readVersion(db.prisma, 'head'))!;
    expect(head.entry.version).toBe(options.days);
    // the rows the ingest keeps current are the newest version, as read back
    const current = await db.prisma.$transaction((tx) => loadState(tx));
    expect(stateText(current)).toBe(stateText(head.state));
    // the text made row by row is the canonical JSON of the state, as defined
    expect(stateText(head.state)).toBe(canonicalJson(canonicalState(head.state)));
    expect(stateHash(head.state)).toBe(sha256(stateText(head.state)));
  });

  it('keeps a keyframe now and then, and otherwise only what changed', async () => {
    const blocks = await db.prisma.stateBlock.findMany({
      orderBy: { version: 'asc' },
      select: { keyframe: true, bytes: true },
    });
    expect(blocks[0]!.keyframe).toBe(true);
    let keyframe = 0;
    let since = 0;
    for (const b of blocks) {
      if (b.keyframe) [keyframe, since] = [b.bytes, 0];
      else since += b.bytes;
      expect(since).toBeLessThanOrEqual(KEYFRAME_RATIO * keyframe);
    }
    const deltas = blocks.filter((b) => !b.keyframe);
    expect(deltas.length).toBeGreaterThan(blocks.length / 2);
    expect(Math.max(...deltas.map((b) => b.bytes))).toBeLessThan(keyframe);
  });

  it('answers null for a version that does not exist', async () => {
    expect(await readVersion(db.prisma, options.days + 1)).toBeNull();
    expect(await readVersion(db.prisma, 0)).toBeNull();
  });

  it('starts the ledger of a database from before it at its current version, once', async () => {
    const head = (await readVersion(db.prisma, 'head'))!;
    const other = await createTestDatabase();
    try {
      await seedSampleIfEmpty(other.prisma, { ...options, days: 5 });
      await other.prisma.$executeRawUnsafe('TRUNCATE "LedgerEntry", "StateBlock"');
      expect(await ensureLedger(other.prisma, INGEST_LOCK)).toBe(true);
      expect(await ensureLedger(other.prisma, INGEST_LOCK)).toBe(false);
      const entries = await readLedger(other.prisma);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ version: 5, chainHash: chainHashOf(GENESIS, entries[0]!) });
      const found = (await readVersion(other.prisma, 5))!;
      expect(sha256(stateText(found.state))).toBe(entries[0]!.stateHash);
      expect(head.entry.version).toBe(options.days);
    } finally {
      await other.close();
    }
  });
});
