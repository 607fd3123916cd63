// MEMORY_BUDGET_MB is the memory of the whole service, every process together. It is divided once, at
// start: what the database side takes (the embedded PostgreSQL lives in one process), then an equal
// share per serving process, of which a fixed part is the process itself (Node, the schema, the Prisma
// client, the catalogue) and the rest is for its caches, each given its part in bytes. The V8 heap of
// each worker is bounded by its share, so garbage cannot pile up past it either.
export interface CacheBudget {
  /** Finished answers (bodies and their compressed forms). */
  bodies: number;
  /** The calculator's pieces and exact results, and the recent results per amount. */
  calc: number;
  /** Database reads kept per data version (plans, events, sources, change lists, impact bases). */
  history: number;
  /** graphql-jit's compiled operations (each measured, roughly, by a fixed cost). */
  compiledQueries: number;
  /** Parsed REST URLs and persisted GraphQL documents. */
  requests: number;
}

export interface MemoryPlan {
  /** One serving process's share, in MB. */
  shareMb: number;
  /** The V8 old space of a worker process (--max-old-space-size). */
  heapMb: number;
  /** Bytes per cache, in each serving process. */
  caches: CacheBudget;
}

const MB = 1024 * 1024;
/** The embedded database (PGlite: PostgreSQL in WebAssembly, on its own thread), measured resident. */
export const EMBEDDED_DATABASE_MB = 150;
/** The primary of a cluster besides the database: Node, the pg driver, IPC. */
export const PRIMARY_MB = 50;
/**
 * A serving process before its caches, measured resident at rest on the sample market: Node (≈40 MB),
 * Prisma's query compiler (WebAssembly, ≈35 MB), yoga, the schema and graphql-jit (≈40 MB of heap),
 * the catalogue, the young generation and buffers in flight.
 */
export const PROCESS_MB = 150;
/** The smallest room for caches that still lets repeats be answered from memory. */
const MIN_CACHES_MB = 8;

const SHARES: Readonly<Record<keyof CacheBudget, number>> = {
  bodies: 0.4,
  calc: 0.3,
  history: 0.15,
  compiledQueries: 0.1,
  requests: 0.05,
};

export function planMemory({
  budgetMb,
  workers,
  embedded,
}: {
  budgetMb: number;
  workers: number;
  embedded: boolean;
}): MemoryPlan {
  const database = embedded ? EMBEDDED_DATABASE_MB : 0;
  const primary = workers > 1 ? PRIMARY_MB : 0;
  const shareMb = Math.max(PROCESS_MB + MIN_CACHES_MB, Math.floor((budgetMb - database - primary) / workers));
  const cachesMb = shareMb - PROCESS_MB;
  const caches = Object.fromEntries(
    Object.entries(SHARES).map(([name, part]) => [name, Math.floor(cachesMb * part * MB)]),
  ) as unknown as CacheBudget;
  // The old generation holds the caches and the process's own objects (≈55 MB); bounding it by the
  // whole share leaves garbage room enough that collection does not run constantly.
  return { shareMb, heapMb: shareMb, caches };
}
