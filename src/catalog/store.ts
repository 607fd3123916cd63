// Holds the current catalogue and swaps it atomically when the data version changes. A request takes
// the catalogue once and keeps it to the end, so it sees the old data or the new, never a mix.
// A version with more active offers than this process can hold (src/memory.ts) is not loaded: the old
// catalogue keeps serving and health says why, instead of the process running out of heap.
import type { PrismaClient } from '../db/client.js';
import { INGEST_LOCK } from '../ingest/apply.js';
import type { Capacity } from '../ingest/capacity.js';
import { ensureLedger } from '../ingest/ledger.js';
import { loadCatalog } from './load.js';
import type { Catalog } from './types.js';

/** A data version left unloaded: its active offers, the most this process holds, and what would hold them. */
export interface Refused {
  version: number;
  offers: number;
  maxOffers: number;
  /** The settings and the budget that would hold the offers, as the ingest says it (capacity.ts). */
  advice: string;
}

export class CatalogueTooLarge extends Error {
  constructor(readonly refused: Refused) {
    super(
      `the catalogue of data version ${refused.version} has ${refused.offers.toLocaleString('en')} active ` +
        `offers; ${refused.advice}, or ingest a snapshot that removes offers`,
    );
  }
}

export interface CatalogStore {
  current(): Catalog;
  /** Reloads when the database's data version differs from the catalogue's; true when it swapped. */
  refresh(): Promise<boolean>;
  /** Called with the new catalogue after each swap. */
  onSwap(listener: (catalog: Catalog) => void): void;
  /** The newer version this process would not load, while it is the newest. */
  refused(): Refused | null;
}

const dataVersion = async (prisma: PrismaClient) =>
  (await prisma.dataVersion.findUnique({ where: { id: 1 }, select: { version: true } }))?.version ?? 0;
const activeOffers = (prisma: PrismaClient) => prisma.offer.count({ where: { status: 'active' } });

/** Throws CatalogueTooLarge when even the first catalogue does not fit. */
export async function createCatalogStore(prisma: PrismaClient, capacity?: Capacity): Promise<CatalogStore> {
  const maxOffers = capacity?.maxOffers ?? Infinity;
  const refusal = (version: number, offers: number): Refused => ({
    version,
    offers,
    maxOffers,
    advice: capacity?.describe(offers) ?? '',
  });
  // A database from before the ledger: its ledger starts at its current version (catalogues load from it).
  await ensureLedger(prisma, INGEST_LOCK);
  const offers = await activeOffers(prisma);
  if (offers > maxOffers) throw new CatalogueTooLarge(refusal(await dataVersion(prisma), offers));
  let catalog = await loadCatalog(prisma);
  let refused: Refused | null = null;
  let inFlight: Promise<boolean> | null = null;
  const listeners: ((c: Catalog) => void)[] = [];

  const refresh = async (): Promise<boolean> => {
    const version = await dataVersion(prisma);
    if (version === catalog.version || version === refused?.version) return false;
    // Counted before loading (the count and the load may straddle an ingest: the ingest checks too).
    const offers = await activeOffers(prisma);
    if (offers > maxOffers) {
      refused = refusal(version, offers);
      return false;
    }
    const next = await loadCatalog(prisma);
    refused = null;
    if (next.version === catalog.version) return false;
    catalog = next;
    for (const listener of listeners) listener(next);
    return true;
  };

  let next: Promise<boolean> | null = null;
  const request = (): Promise<boolean> => {
    if (inFlight === null) {
      inFlight = refresh().finally(() => {
        inFlight = null;
      });
      return inFlight;
    }
    // The reload under way may have read the data version before the caller's change (an ingest it was
    // told of): one more follows it, shared by everyone who asks meanwhile. Sharing the one under way
    // instead left a store on the old version until the next news, with PostgreSQL's notifications.
    next ??= inFlight
      .catch(() => false)
      .then(() => {
        next = null;
        return request();
      });
    return next;
  };

  return {
    current: () => catalog,
    refresh: request,
    onSwap(listener) {
      listeners.push(listener);
    },
    refused: () => refused,
  };
}
