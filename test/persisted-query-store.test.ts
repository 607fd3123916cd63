// The persisted-query store on a real database: what one process registers another finds (each store
// here is a process with its own memory), and what is kept stays within its bounds, the least recently
// used going first, whatever the order of registrations and uses.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import {
  createPersistedQueryStore,
  sha256Hex,
  TOUCH_INTERVAL_MS,
  type PersistedQueryLimits,
} from '../src/graphql/persisted-queries.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
const logger = createLogger('silent');

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.close());
beforeEach(async () => {
  await db.prisma.persistedQuery.deleteMany();
});

const store = (limits?: PersistedQueryLimits, now?: () => number) =>
  createPersistedQueryStore({ prisma: db.prisma, logger, cacheBytes: 1 << 20, ...(limits ? { limits } : {}), now });

/** A document of about `bytes` bytes, distinct per n. */
const documentOf = (n: number, bytes = 40) => `{ meta { dataVersion } } # ${String(n).padEnd(bytes - 28, '.')}`;

const register = async (s: ReturnType<typeof store>, document: string) => s.set(sha256Hex(document), document);
const kept = async () =>
  (await db.prisma.persistedQuery.findMany({ select: { hash: true, bytes: true } })).map((r) => r.hash);
// lastUsedAt is the database's clock in milliseconds: registrations a few ms apart are ordered.
const tick = () => new Promise((r) => setTimeout(r, 4));

describe('persisted queries in the database', () => {
  it('gives another process what one registered, and nothing for an unknown or malformed hash', async () => {
    const document = '{ meta { dataVersion } }';
    await register(store(), document);
    const other = store();
    expect(await other.get(sha256Hex(document))).toBe(document);
    expect(await other.get(sha256Hex('{ meta { stale } }'))).toBeNull();
    expect(await other.get("'; DROP TABLE x; --")).toBeNull();
    expect(other.stats()).toMatchObject({ entries: 1, misses: 2 });
  });

  it('keeps neither a document over the size bound nor one that is not GraphQL', async () => {
    const limits = { documentBytes: 5_000, entries: 10, totalBytes: 100_000 };
    const s = store(limits);
    await register(s, documentOf(1, 6_000));
    await register(s, 'not { graphql');
    await register(s, `{ ${'a '.repeat(2_100)}}`); // 4 KB, within the bytes, over the token limit
    expect(await kept()).toEqual([]);
    expect(s.stats().refused).toBe(3);
    expect(await store(limits).get(sha256Hex(documentOf(1, 6_000)))).toBeNull();
    await register(s, documentOf(2, 4_000));
    expect(await kept()).toEqual([sha256Hex(documentOf(2, 4_000))]);
  });

  it('evicts the least recently used beyond the bounds, and a use counts', async () => {
    let clock = 0;
    const limits = { documentBytes: 1_000, entries: 3, totalBytes: 100_000 };
    const a = store(limits, () => clock);
    for (const n of [1, 2, 3]) {
      await register(a, documentOf(n));
      await tick();
    }
    // document 1 used again, past the touch interval: it is the newest now, and 2 the oldest
    clock += TOUCH_INTERVAL_MS;
    expect(await a.get(sha256Hex(documentOf(1)))).toBe(documentOf(1));
    const hash1 = sha256Hex(documentOf(1));
    for (let i = 0; i < 50; i++) {
      const row = await db.prisma.persistedQuery.findMany({ orderBy: { lastUsedAt: 'desc' }, take: 1 });
      if (row[0]?.hash === hash1) break;
      await tick();
    }
    await tick();
    await register(a, documentOf(4));
    expect(new Set(await kept())).toEqual(new Set([1, 3, 4].map((n) => sha256Hex(documentOf(n)))));
    expect(await store(limits).get(sha256Hex(documentOf(2)))).toBeNull();
  });

  it('stays within its bounds of rows and bytes, keeping the newest registration, for any sequence', async () => {
    const limits = { documentBytes: 1_000, entries: 4, totalBytes: 2_500 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ n: fc.integer({ min: 0, max: 9 }), bytes: fc.integer({ min: 40, max: 1_000 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        async (registrations) => {
          await db.prisma.persistedQuery.deleteMany();
          // a process per registration: each one writes (a process that holds a document writes it once)
          for (const { n, bytes } of registrations) {
            await register(store(limits), documentOf(n, bytes));
            await tick();
          }
          const rows = await db.prisma.persistedQuery.findMany();
          expect(rows.length).toBeLessThanOrEqual(limits.entries);
          expect(rows.reduce((sum, r) => sum + r.bytes, 0)).toBeLessThanOrEqual(limits.totalBytes);
          const last = registrations.at(-1)!;
          expect(rows.map((r) => r.hash)).toContain(sha256Hex(documentOf(last.n, last.bytes)));
          for (const row of rows) expect(row.bytes).toBe(Buffer.byteLength(row.document));
        },
      ),
      { numRuns: 15 },
    );
  }, 60_000);
});
