// asOf: which data version was in force at an instant, and its catalogue. A version is in force from its
// snapshot's observedAt (the data's own time, as generatedAt says) until the next version's. The
// ledger's entries are kept in memory (a few hundred bytes each) up to the version this process serves,
// so an asOf answer never shows a version newer than the answers without one; past catalogues are
// loaded on demand and kept by bytes.
import type { PrismaClient } from '../db/client.js';
import { readLedger, type LedgerEntry } from '../ingest/ledger.js';
import { catalogWithoutOffers, loadCatalog } from './load.js';
import { LRUCache } from 'lru-cache';
import type { CatalogStore } from './store.js';
import type { Catalog } from './types.js';

/** What a past catalogue holds per active offer, by estimate (its entry, without the swap's second copy). */
export const PAST_BYTES_PER_OFFER = 3.5 * 1024;

/** The instant an answer stands for, and the catalogue of the version in force then. */
export interface At {
  catalog: Catalog;
  /** "Now" for every rule that reads the clock; generatedAt of an answer that depends on it. */
  now: Date;
  /** Asked for with asOf (or Accept-Datetime). */
  asOf: boolean;
  /** A version before the newest: the answer can never change. */
  immutable: boolean;
}

export type AtProblem = { kind: 'future'; latest: Date } | { kind: 'before'; first: Date | null };

export class Timeline {
  private entries: LedgerEntry[] = [];
  private loaded: Promise<void> | null = null;
  /** Past catalogues by version, by their estimated bytes; loads under way are shared. */
  private readonly catalogs: LRUCache<number, Catalog>;
  private readonly loading = new Map<number, Promise<Catalog>>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly store: CatalogStore,
    maxBytes: number,
  ) {
    this.catalogs = new LRUCache({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (c) => 64 * 1024 + c.offers.length * PAST_BYTES_PER_OFFER,
    });
    // The entries follow the catalogue: a swap may bring several versions at once.
    store.onSwap(() => {
      this.loaded = null;
    });
  }

  /** The entries up to the served version, read once and then only those after the last one known. */
  private sync(): Promise<void> {
    const served = this.store.current().version;
    if (this.entries.at(-1)?.version === served) return Promise.resolve();
    this.loaded ??= readLedger(this.prisma, this.entries.at(-1)?.version ?? 0).then(
      (more) => {
        this.entries = [...this.entries, ...more.filter((e) => e.version <= served)];
      },
      (err: unknown) => {
        this.loaded = null;
        throw err;
      },
    );
    return this.loaded;
  }

  /**
   * The answer's instant without asOf: the clock, never before the served version's data (a snapshot may
   * be dated a little ahead of the clock). An answer that reads it is reused for its minute at most, and
   * says which instant it was made for in generatedAt.
   */
  present(clock: Date): At {
    const catalog = this.store.current();
    return {
      catalog,
      now: new Date(Math.max(clock.getTime(), catalog.generatedAt.getTime())),
      asOf: false,
      immutable: false,
    };
  }

  /** The version in force at `instant`, or why there is none. */
  async at(instant: Date, clock: Date, { catalogue = true } = {}): Promise<At | AtProblem> {
    const current = this.store.current();
    const latest = new Date(Math.max(clock.getTime(), current.generatedAt.getTime()));
    if (instant.getTime() > latest.getTime()) return { kind: 'future', latest };
    if (current.version === 0) return { kind: 'before', first: null };
    await this.sync();
    const entries = this.entries;
    // the last entry observed at or before the instant
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (Date.parse(entries[mid]!.observedAt) <= instant.getTime()) lo = mid + 1;
      else hi = mid;
    }
    const entry = entries[lo - 1];
    if (!entry) return { kind: 'before', first: entries[0] ? new Date(entries[0].observedAt) : null };
    const served = this.store.current();
    // without its catalogue (GET /api/state reads the version's state itself): the entry only
    const catalog =
      entry.version === served.version
        ? served
        : catalogue
          ? await this.past(entry.version)
          : catalogWithoutOffers(entry);
    return { catalog, now: instant, asOf: true, immutable: entry.version < served.version };
  }

  private past(version: number): Promise<Catalog> {
    const kept = this.catalogs.get(version);
    if (kept) return Promise.resolve(kept);
    let load = this.loading.get(version);
    if (!load) {
      load = loadCatalog(this.prisma, version).finally(() => this.loading.delete(version));
      this.loading.set(version, load);
      // one too large for the bound is served and not kept
      load.then((c) => this.catalogs.set(version, c)).catch(() => undefined);
    }
    return load;
  }

  /** Every entry up to the served version, oldest first. */
  async ledger(): Promise<readonly LedgerEntry[]> {
    await this.sync();
    return this.entries;
  }

  stats() {
    return {
      versions: this.entries.length,
      entries: this.catalogs.size,
      bytes: this.catalogs.calculatedSize,
      maxBytes: this.catalogs.maxSize,
    };
  }
}
