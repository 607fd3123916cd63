import { describe, expect, it } from 'vitest';
import type { PrismaClient } from '../db/client.js';
import { applySnapshot } from '../ingest/apply.js';
import { generateSnapshots } from '../sample/generate.js';
import { createTestDatabase } from '../../test/support/database.js';
import { createCatalogStore } from './store.js';

describe('createCatalogStore', () => {
  it('reloads again for a caller that asks while a reload that read the old version is under way', async () => {
    const [first, second] = [...generateSnapshots({ seed: 3, days: 2, end: '2026-11-20', scale: 1 })];
    const db = await createTestDatabase();
    try {
      await applySnapshot(db.prisma, first!, { now: () => new Date(first!.observedAt) });
      // The store's reads of the data version, held back on request: a reload that has read it, not finished.
      let held: Promise<void> | null = null;
      let read!: () => void;
      const hasRead = new Promise<void>((resolve) => (read = resolve));
      const prisma = new Proxy(db.prisma, {
        get(target, prop) {
          if (prop !== 'dataVersion') return Reflect.get(target, prop, target) as unknown;
          return {
            findUnique: async (args: Parameters<PrismaClient['dataVersion']['findUnique']>[0]) => {
              const row = await target.dataVersion.findUnique(args);
              if (held) {
                read();
                await held;
              }
              return row;
            },
          };
        },
      });
      const store = await createCatalogStore(prisma);
      const before = store.current().version;

      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      const underWay = store.refresh();
      await hasRead; // the old version, read before the ingest below
      await applySnapshot(db.prisma, second!, { now: () => new Date(second!.observedAt) });
      const asked = store.refresh(); // after the ingest, as its notification would
      held = null;
      release();

      expect(await underWay).toBe(false);
      expect(await asked).toBe(true);
      expect(store.current().version).toBeGreaterThan(before);
      expect(await store.refresh()).toBe(false); // nothing more to load
    } finally {
      await db.close();
    }
  });
});
