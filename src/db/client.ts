// The one way the service reaches its database: embedded PGlite (default) or PostgreSQL
// (DATABASE_URL), both through pg and @prisma/adapter-pg, so everything above this file is the same.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { EMBEDDED_POOL_SIZE, embeddedProcesses, openEmbedded, type EmbeddedDatabase } from './embedded.js';
import { PrismaClient } from './generated/client.js';
import { applyMigrations, isUpToDate } from './migrate.js';
import { withTurn, type TurnOptions } from './write-turn.js';

export type { PrismaClient } from './generated/client.js';
export { Prisma } from './generated/client.js';

export interface Database {
  prisma: PrismaClient;
  kind: 'embedded' | 'postgresql';
  /** Connection URL (for the embedded database: its loopback socket). */
  url: string;
  /** The embedded database's serving process, when another one (a service an ingest reached). */
  servedBy?: number;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  migrate?: boolean;
  log?: (msg: string) => void;
  /**
   * Migrating writes, so it waits for its turn among the writers (see write-turn.ts): 'held' when the
   * caller has its turn already (an ingest), else how long to wait for one.
   */
  writeTurn: 'held' | TurnOptions;
  /** Processes that will share the embedded database (the workers and the primary of a cluster). */
  workers?: number;
  /** How long one statement may take before the client gives up on it (default QUERY_TIMEOUT_MS). */
  queryTimeoutMs?: number;
  /** The embedded database, opened already (src/open-early.ts). */
  embedded?: EmbeddedDatabase;
}

/** A service's statement: beyond this the database is taken for gone, not busy. */
export const QUERY_TIMEOUT_MS = 30_000;
/**
 * An ingest's statement: a snapshot of tens of thousands of offers writes them in a few statements, each
 * longer than a service's query (the repair of an oversized catalogue removes them all in one). Its
 * transaction's own limit, not a statement's, is what bounds it.
 */
export const INGEST_QUERY_TIMEOUT_MS = 10 * 60_000;

export function createPrisma(url: string, poolSize: number, queryTimeoutMs = QUERY_TIMEOUT_MS): PrismaClient {
  // Short timeouts: when the database is down or the network to it is cut, callers learn it in
  // seconds instead of hanging (the ingest's transactions carry their own, longer limit).
  const adapter = new PrismaPg({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    query_timeout: queryTimeoutMs,
    idleTimeoutMillis: 30_000,
  });
  return new PrismaClient({ adapter });
}

/**
 * Prisma's query compiler: WebAssembly held in a 4.6 MB module, which the client imports at its first
 * query (src/db/generated/internal/class.ts names it; test/bundle.test.ts holds the two equal).
 */
export const QUERY_COMPILER_MODULE = '@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs';

/**
 * Imports the query compiler's module ahead of the first query: reading and compiling it takes the
 * loading thread ≈160 ms, which a start spends waiting for the embedded database anyway; the client's
 * own import then finds it loaded. A failure is left for the client to meet and report.
 */
export function preloadQueryCompiler(): Promise<void> {
  return import(QUERY_COMPILER_MODULE).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * Options for reads that must see one committed version (several queries that have to agree). Prisma
 * would give up after 2 s waiting for a connection; under load that wait is queueing, not an outage
 * (the pool's own connection timeout still catches a database that is gone).
 */
export const SNAPSHOT_READ = { isolationLevel: 'RepeatableRead', maxWait: 10_000, timeout: 30_000 } as const;

/** Whether anything was ever ingested (a migrated database). */
export async function hasIngested(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM "IngestRun" LIMIT 1')).rowCount! > 0;
  } finally {
    await client.end();
  }
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const log = options.log ?? (() => {});
  let embedded: EmbeddedDatabase | undefined;
  let url: string;
  if (options.databaseUrl) {
    url = options.databaseUrl;
  } else {
    embedded =
      options.embedded ??
      (await openEmbedded(options.dataDir, { log, processes: embeddedProcesses(options.workers ?? 1) }));
    url = embedded.url;
  }
  try {
    if (options.migrate !== false && !(await isUpToDate(url))) {
      // Two processes migrating one database at once both fail, and leave it marked as failed for good.
      const migrate = async () => ((await isUpToDate(url)) ? [] : applyMigrations(url));
      const applied =
        options.writeTurn === 'held' ? await migrate() : await withTurn(options, options.writeTurn, migrate);
      if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
    }
    const prisma = createPrisma(url, embedded ? EMBEDDED_POOL_SIZE : 10, options.queryTimeoutMs);
    return {
      prisma,
      kind: embedded ? 'embedded' : 'postgresql',
      url,
      ...(embedded && !embedded.owner ? { servedBy: embedded.servedBy } : {}),
      async close() {
        await prisma.$disconnect();
        await embedded?.close();
      },
    };
  } catch (err) {
    await embedded?.close();
    throw err;
  }
}
