// MEMORY_BUDGET_MB is the memory of the whole service, every process together, as the kernel counts it
// (resident). It is divided once, at start: what the database side takes (the embedded PostgreSQL lives
// in one process), then an equal share per serving process. A share holds the process itself, its V8
// heap and its caches, each cache given its part in bytes; what garbage collection needs room for is
// counted too, since the kernel counts it. The old generation of each worker's V8 heap is bounded by what
// it must hold, so garbage cannot pile up past the share either.
//
// The sizes below are what `npm run soak` finds on the sample market (resident memory from /proc, V8's
// own account from process.memoryUsage()); the soak prints them per process to re-check them.
export interface CacheBudget {
  /** Finished answers (bodies and their compressed forms; buffers, outside the V8 heap). */
  bodies: number;
  /** The calculator's pieces and exact results, and the recent results per amount. */
  calc: number;
  /** Database reads kept per data version (plans, events, sources, change lists, removed offers' terms). */
  history: number;
  /** graphql-jit's compiled operations (each measured, roughly, by a fixed cost). */
  compiledQueries: number;
  /** What requests leave behind: parsed URLs, GraphQL documents, persisted queries (see requestCaches). */
  requests: number;
}

export interface MemoryPlan {
  /** One serving process's share, in MB. */
  shareMb: number;
  /** The old generation of a worker's V8 heap (--max-old-space-size), in MB. */
  heapMb: number;
  /** Bytes per cache, in each serving process. */
  caches: CacheBudget;
  /** The most active offers a serving process can hold (see catalogueCapacity). */
  maxOffers: number;
  /**
   * The most for which it can also keep a piece of the calculation per offer (PASS_BYTES_PER_OFFER). A
   * catalogue between the two is served, its lists tracing the market again each time.
   */
  heldOffers: number;
}

const MB = 1024 * 1024;
/** The embedded database (PGlite: PostgreSQL in WebAssembly, on its own thread) and its process. */
export const EMBEDDED_DATABASE_MB = 160;
/** The primary of a cluster besides the database: Node, the pg driver, IPC. */
export const PRIMARY_MB = 50;
/**
 * A single process that computes on a thread of its own (COMPUTE_THREAD, src/threads/): the accepting
 * thread's heap and young generation, besides the application's. Measured as the soak's resident memory
 * at the end against the same build on one thread: 593 against 447 MB.
 */
export const FRONT_THREAD_MB = 160;
/**
 * A serving process outside its V8 heap: Node's runtime and code, Prisma's query compiler (WebAssembly),
 * thread stacks, the allocator's slack (resident minus heap minus buffers, under load).
 */
export const OUTSIDE_HEAP_MB = 85;
/** V8's young generation, which --max-old-space-size does not bound (two semi-spaces of 16 MB). */
export const YOUNG_GENERATION_MB = 32;
/** What a serving process keeps in its heap before any cache: yoga, the schema, graphql-jit, the catalogue. */
export const OWN_HEAP_MB = 60;
/**
 * The old generation may hold as much garbage as is live: with less room a worker spends its time
 * collecting, answers a fraction of the requests and can be stopped at its heap limit.
 */
const GC_ROOM = 2;
/**
 * What one active offer costs a serving process at its peak: its catalogue entry twice (the old catalogue
 * serves while the new one loads) and the list's work per offer. Calibrated at the default budget with
 * two workers, between the sample ×20 (served) and ×30 (both workers out of heap).
 */
export const PEAK_BYTES_PER_OFFER = 7 * 1024;
/**
 * The calculator's piece for an offer, which it keeps whatever its share of the caches says when the room
 * holds one per offer, so that one list over the whole catalogue finds every piece the list before it
 * built (src/domain/fast-calc.ts, holdAtLeast): the piece, its key's entry and compiled terms. Measured on
 * the sample ×20 (13,249 offers): 8,825 pieces added 38.6 MB to the heap after a collection, 4.4 KB each.
 */
export const PASS_BYTES_PER_OFFER = 4.5 * 1024;
/** The smallest room for caches that still lets repeats be answered from memory. */
const MIN_CACHES_MB = 8;

const SHARES: Readonly<Record<keyof CacheBudget, number>> = {
  bodies: 0.4,
  calc: 0.3,
  history: 0.15,
  compiledQueries: 0.1,
  requests: 0.05,
};
/** The part of the caches that lives in the V8 heap (bodies are buffers outside it). */
const IN_HEAP = 1 - SHARES.bodies;

/** A share's resident memory for caches of `cachesMb`: the process, its heap with room to collect, the caches. */
const residentFor = (cachesMb: number) =>
  OUTSIDE_HEAP_MB + YOUNG_GENERATION_MB + SHARES.bodies * cachesMb + GC_ROOM * (OWN_HEAP_MB + IN_HEAP * cachesMb);

export function planMemory({
  budgetMb,
  workers,
  embedded,
  frontThread = false,
}: {
  budgetMb: number;
  workers: number;
  embedded: boolean;
  /** A single process whose accepting thread is apart from its application's (COMPUTE_THREAD). */
  frontThread?: boolean;
}): MemoryPlan {
  const database = embedded ? EMBEDDED_DATABASE_MB : 0;
  const primary = workers > 1 ? PRIMARY_MB : 0;
  const front = frontsThread(workers, frontThread) ? FRONT_THREAD_MB : 0;
  const shareMb = Math.max(residentFor(MIN_CACHES_MB), Math.floor((budgetMb - database - primary - front) / workers));
  // residentFor is linear in the caches: the caches that fill the share.
  const cachesMb = (shareMb - residentFor(0)) / (residentFor(1) - residentFor(0));
  const caches = Object.fromEntries(
    Object.entries(SHARES).map(([name, part]) => [name, Math.floor(cachesMb * part * MB)]),
  ) as unknown as CacheBudget;
  const heapMb = Math.ceil(GC_ROOM * (OWN_HEAP_MB + IN_HEAP * cachesMb));
  return {
    shareMb,
    heapMb,
    caches,
    maxOffers: catalogueCapacity(heapMb, cachesMb, PEAK_BYTES_PER_OFFER),
    heldOffers: catalogueCapacity(heapMb, cachesMb, PEAK_BYTES_PER_OFFER + PASS_BYTES_PER_OFFER),
  };
}

/** Whether the service has an accepting thread apart from its application's: a single process only. */
export const frontsThread = (workers: number, computeThread: boolean): boolean => workers === 1 && computeThread;

/** The settings that size the service (the Config's fields of the same names). */
export interface ServiceShape {
  memoryBudgetMb: number;
  workers: number;
  databaseUrl: string | undefined;
  computeThread: boolean;
}

/** The plan of a configuration: its budget, its processes, the embedded database unless a URL is given. */
export const memoryPlanOf = (config: ServiceShape): MemoryPlan =>
  planMemory({
    budgetMb: config.memoryBudgetMb,
    workers: config.workers,
    embedded: !config.databaseUrl,
    frontThread: config.computeThread,
  });

/**
 * The catalogue lives in the heap's room above what the process and its full caches keep: the room that
 * garbage collection works in. A larger catalogue than that room holds does not slow the service down, it
 * stops it (every worker out of heap, again after each restart), so the ingest refuses a snapshot that
 * would need more (src/ingest/capacity.ts) and a worker does not load one (src/catalog/store.ts).
 */
function catalogueCapacity(heapMb: number, cachesMb: number, bytesPerOffer: number): number {
  const room = heapMb - (OWN_HEAP_MB + IN_HEAP * cachesMb);
  return Math.max(0, Math.floor((room * MB) / bytesPerOffer));
}

/**
 * The smallest MEMORY_BUDGET_MB, in steps of 64 MB, whose serving processes hold `offers` (null: none does);
 * `held`: with a piece of the calculation kept per offer too.
 */
export function budgetFor(
  offers: number,
  options: { workers: number; embedded: boolean; frontThread?: boolean; held?: boolean },
): number | null {
  const { held = false, ...shape } = options;
  for (let budgetMb = 256; budgetMb <= 1024 * 1024; budgetMb += 64) {
    const plan = planMemory({ budgetMb, ...shape });
    if ((held ? plan.heldOffers : plan.maxOffers) >= offers) return budgetMb;
  }
  return null;
}

/**
 * The request caches' part, shared among them. Every one is keyed by what a client sends (a URL up to
 * 8 KB, a document up to 100 KB), so each counts its keys, and a client sending only distinct requests
 * fills each to its part and no further: the rest of the budget cannot be taken from here.
 */
export interface RequestCaches {
  /** Parsed GraphQL documents: the larger part, since a parse and validation is the costliest to repeat. */
  documents: number;
  /** Documents that failed to parse (a small part: a junk document costs only its parse to repeat). */
  documentErrors: number;
  /** REST URLs with their checked parameters (the handler and the cache key share one parse). */
  restUrls: number;
  /** GraphQL GET URLs and their normalised form (what the body cache's key is made from). */
  graphqlUrls: number;
  /** Persisted queries (APQ): a client registers them, so they must not push out the parsed documents. */
  persistedQueries: number;
  /** The metrics' route of a path (paths are client-chosen; labels are a few templates). */
  routeLabels: number;
}

const REQUEST_SHARES: Readonly<Record<keyof RequestCaches, number>> = {
  documents: 0.4,
  documentErrors: 0.05,
  restUrls: 0.2,
  graphqlUrls: 0.15,
  persistedQueries: 0.15,
  routeLabels: 0.05,
};

export function requestCaches(bytes: number): RequestCaches {
  return Object.fromEntries(
    Object.entries(REQUEST_SHARES).map(([name, part]) => [name, Math.floor(bytes * part)]),
  ) as unknown as RequestCaches;
}
