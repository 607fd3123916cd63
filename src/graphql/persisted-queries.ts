// The store behind automatic persisted queries (graphql-yoga's useAPQ): a document registered on any
// worker of any instance is known to all of them, and after a restart, because it is kept in the
// database (PersistedQuery); each process keeps the documents it used lately in memory in front of it.
//
// A registration must not be a way to fill the database, so what is kept is bounded three ways: a
// document of at most PERSISTED_QUERY_LIMITS.documentBytes that parses within the token limit (anything
// else still runs, it is just not kept: the client sends it again next time); at most `entries` rows
// and `totalBytes` of documents, the least recently used evicted first. An evicted document costs its
// client one round trip (PersistedQueryNotFound, then the document again), never an error, so eviction
// beats refusing new documents: a client filling the store cannot lock others out of it.
import { createHash } from 'node:crypto';
import { parse } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { PrismaClient } from '../db/client.js';
import type { DatabaseStatus } from '../db/status.js';
import type { Logger } from '../logger.js';
import { OPERATION_LIMITS } from './limits.js';

export const PERSISTED_QUERY_LIMITS = {
  /** The longest real document is a few KB; a 2,000-token document of long names stays under this. */
  documentBytes: 32 * 1024,
  entries: 5_000,
  totalBytes: 8 * 1024 * 1024,
} as const;

export type PersistedQueryLimits = { [K in keyof typeof PERSISTED_QUERY_LIMITS]: number };

/**
 * How often a process tells the database that it still uses a document (eviction goes by last use):
 * often enough to order documents by use, rarely enough that using one is not a write.
 */
export const TOUCH_INTERVAL_MS = 5 * 60_000;
/**
 * How long a registration waits for the database before its answer goes out anyway (the write goes on):
 * on the embedded database a write waits behind an ingest's transaction.
 */
const WRITE_WAIT_MS = 2_000;

const SHA256_HEX = /^[0-9a-f]{64}$/;

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

export interface PersistedQueryStore {
  get(hash: string): Promise<string | null>;
  set(hash: string, document: string): Promise<void>;
  stats(): { entries: number; bytes: number; maxBytes: number; hits: number; misses: number; refused: number };
}

export interface PersistedQueryOptions {
  prisma: PrismaClient;
  database?: DatabaseStatus;
  logger: Logger;
  /** Bytes of documents this process keeps in memory in front of the database. */
  cacheBytes: number;
  limits?: PersistedQueryLimits;
  now?: () => number;
}

interface Held {
  document: string;
  /** When this process last told the database it used the document. */
  touchedAt: number;
}

/** Whether a document is one worth keeping: small enough, and GraphQL within the token limit. */
function keepable(document: string, maxBytes: number): boolean {
  if (Buffer.byteLength(document) > maxBytes) return false;
  try {
    parse(document, { noLocation: true, maxTokens: OPERATION_LIMITS.tokens });
    return true;
  } catch {
    return false;
  }
}

export function createPersistedQueryStore({
  prisma,
  database,
  logger,
  cacheBytes,
  limits = PERSISTED_QUERY_LIMITS,
  now = Date.now,
}: PersistedQueryOptions): PersistedQueryStore {
  const held = new LRUCache<string, Held>({
    maxSize: Math.max(cacheBytes, limits.documentBytes * 2 + 256),
    sizeCalculation: (entry, hash) => (entry.document.length + hash.length) * 2 + 128,
  });
  let hits = 0;
  let misses = 0;
  let refused = 0;

  /**
   * Kept (again, if it was evicted meanwhile) and marked as used now, by the database's clock (the same
   * for every instance); when it was new, the least recently used beyond the bounds go.
   */
  async function persist(hash: string, document: string): Promise<void> {
    const rows = await prisma.$queryRaw<{ inserted: boolean }[]>`
      INSERT INTO "PersistedQuery" ("hash", "document", "bytes", "lastUsedAt")
      VALUES (${hash}, ${document}, ${Buffer.byteLength(document)}, now())
      ON CONFLICT ("hash") DO UPDATE SET "lastUsedAt" = now()
      RETURNING (xmax = 0) AS inserted`;
    if (!rows[0]?.inserted) return;
    await prisma.$executeRaw`
      DELETE FROM "PersistedQuery" WHERE "hash" IN (
        SELECT "hash" FROM (
          SELECT "hash", row_number() OVER newest AS n, sum("bytes") OVER newest AS total
          FROM "PersistedQuery"
          WINDOW newest AS (ORDER BY "lastUsedAt" DESC, "hash")
        ) ranked
        WHERE n > ${limits.entries} OR total > ${limits.totalBytes}
      )`;
  }

  const persisted = (hash: string, document: string): Promise<void> =>
    persist(hash, document).catch((err: unknown) => {
      // Kept in this process all the same; the other processes learn it when the client sends it to them.
      logger.warn({ err, hash }, 'could not keep a persisted query in the database');
    });

  return {
    async get(hash) {
      if (!SHA256_HEX.test(hash)) return null;
      const entry = held.get(hash);
      if (entry) {
        hits++;
        if (now() - entry.touchedAt >= TOUCH_INTERVAL_MS) {
          entry.touchedAt = now();
          void persisted(hash, entry.document);
        }
        return entry.document;
      }
      misses++;
      let row: { document: string; lastUsedAt: Date } | null;
      try {
        const read = () =>
          prisma.persistedQuery.findUnique({ where: { hash }, select: { document: true, lastUsedAt: true } });
        row = await (database ? database.track(read) : read());
      } catch (err) {
        // Not found, as far as this request can tell: the client sends the document, which still runs.
        logger.warn({ err, hash }, 'could not read a persisted query from the database');
        return null;
      }
      if (!row) return null;
      // Recorded as used lately by some process, or now by this one (the database's clock against ours:
      // close enough for an order of use).
      const stale = now() - row.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS;
      held.set(hash, { document: row.document, touchedAt: stale ? now() : row.lastUsedAt.getTime() });
      if (stale) void persisted(hash, row.document);
      return row.document;
    },

    async set(hash, document) {
      const entry = held.get(hash);
      if (entry && now() - entry.touchedAt < TOUCH_INTERVAL_MS) return;
      if (!keepable(document, limits.documentBytes)) {
        refused++;
        return;
      }
      held.set(hash, { document, touchedAt: now() });
      // The answer waits for the write (briefly), so that the client's next request, on whichever
      // worker or instance, finds the document.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        persisted(hash, document),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, WRITE_WAIT_MS))),
      ]);
      clearTimeout(timer);
    },

    stats: () => ({
      entries: held.size,
      bytes: held.calculatedSize,
      maxBytes: held.maxSize,
      hits,
      misses,
      refused,
    }),
  };
}
