import { describe, expect, it } from 'vitest';
import type { PrismaClient } from '../db/client.js';
import { applySnapshot } from '../ingest/apply.js';
import { generateSnapshots } from '../sample/generate.js';
import { createTestDatabase } from '../../test/support/database.js';
import { budgetFor } from '../memory.js';
import { capacityOf } from '../ingest/capacity.js';
import { CatalogueTooLarge, createCatalogStore } from './store.js';

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

  it('refuses a catalogue larger than the capacity, naming the budget that would hold it', async () => {
    const [first, second] = [...generateSnapshots({ seed: 3, days: 2, end: '2026-11-20', scale: 1 })];
    const db = await createTestDatabase();
    try {
      await applySnapshot(db.prisma, first!, { now: () => new Date(first!.observedAt) });
      const config = { memoryBudgetMb: 544, workers: 1, databaseUrl: undefined, computeThread: false };
      const offers = await db.prisma.offer.count({ where: { status: 'active' } });
      // the first catalogue does not fit: the process cannot start with it
      const small = capacityOf(config, offers - 1);
      const refused = await createCatalogStore(db.prisma, small).then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(CatalogueTooLarge);
      const needed = budgetFor(offers, { workers: 1, embedded: true });
      expect((refused as Error).message).toContain(`; ${offers} need MEMORY_BUDGET_MB=${needed} (or fewer WORKERS)`);
      expect((refused as CatalogueTooLarge).refused).toMatchObject({ offers, maxOffers: offers - 1 });
      // a later version that does not fit is left unloaded, with the same advice
      const store = await createCatalogStore(db.prisma, capacityOf(config, offers));
      const serving = store.current().version;
      await applySnapshot(db.prisma, second!, { now: () => new Date(second!.observedAt) });
      const grown = await db.prisma.offer.count({ where: { status: 'active' } });
      expect(grown).toBeGreaterThan(offers); // the sample's second day lists more offers
      expect(await store.refresh()).toBe(false);
      expect(store.current().version).toBe(serving); // the old catalogue keeps serving
      expect(store.refused()).toMatchObject({ offers: grown, maxOffers: offers });
      expect(store.refused()?.advice).toBe(capacityOf(config, offers).describe(grown));
    } finally {
      await db.close();
    }
  });
});
