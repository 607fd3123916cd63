// What the ledger answers (GET /api/ledger, /api/state): the entries up to a version, and the canonical
// state of a version, exactly the text whose SHA-256 its entry holds. States are made from the
// database on demand (a version's blocks and plans) and the last few kept, by bytes.
import { LRUCache } from 'lru-cache';
import type { PrismaClient } from '../db/client.js';
import { readVersion, stateText } from '../ingest/ledger.js';

export class StateTexts {
  private readonly texts: LRUCache<number, string>;
  private readonly loading = new Map<number, Promise<string | null>>();

  constructor(
    private readonly prisma: PrismaClient,
    maxBytes: number,
  ) {
    this.texts = new LRUCache({ maxSize: Math.max(1, maxBytes), sizeCalculation: (text) => 2 * text.length + 64 });
  }

  /** The canonical state of a version (null: no such version). */
  at(version: number): Promise<string | null> {
    const kept = this.texts.get(version);
    if (kept !== undefined) return Promise.resolve(kept);
    let load = this.loading.get(version);
    if (!load) {
      load = readVersion(this.prisma, version)
        .then((found) => {
          if (!found) return null;
          const text = stateText(found.state);
          if (2 * text.length + 64 <= this.texts.maxSize) this.texts.set(version, text);
          return text;
        })
        .finally(() => this.loading.delete(version));
      this.loading.set(version, load);
    }
    return load;
  }

  stats() {
    return { entries: this.texts.size, bytes: this.texts.calculatedSize, maxBytes: this.texts.maxSize };
  }
}
