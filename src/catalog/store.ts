// Holds the current catalogue and swaps it atomically when the data version changes. A request takes
// the catalogue once and keeps it to the end, so it sees the old data or the new, never a mix.
import type { PrismaClient } from '../db/client.js';
import { loadCatalog } from './load.js';
import type { Catalog } from './types.js';

export interface CatalogStore {
  current(): Catalog;
  /** Reloads when the database's data version differs from the catalogue's; true when it swapped. */
  refresh(): Promise<boolean>;
  /** Called with the new catalogue after each swap. */
  onSwap(listener: (catalog: Catalog) => void): void;
}

export async function createCatalogStore(prisma: PrismaClient): Promise<CatalogStore> {
  let catalog = await loadCatalog(prisma);
  let inFlight: Promise<boolean> | null = null;
  const listeners: ((c: Catalog) => void)[] = [];

  const refresh = async (): Promise<boolean> => {
    const row = await prisma.dataVersion.findUnique({ where: { id: 1 }, select: { version: true } });
    if ((row?.version ?? 0) === catalog.version) return false;
    const next = await loadCatalog(prisma);
    if (next.version === catalog.version) return false;
    catalog = next;
    for (const listener of listeners) listener(next);
    return true;
  };

  return {
    current: () => catalog,
    refresh() {
      // Concurrent callers share one reload.
      inFlight ??= refresh().finally(() => {
        inFlight = null;
      });
      return inFlight;
    },
    onSwap(listener) {
      listeners.push(listener);
    },
  };
}
