// The V8 flags each process of the service runs with. V8 takes its flags when it starts (Node 24's V8
// ignores a later v8.setFlagsFromString), so a process that needs others starts again with them, in
// place, before it has loaded anything else (src/main.ts); a worker is forked with them. A flag given
// to node by hand wins over each.
import type { Config } from '../config.js';
import { hasEmbeddedDatabase } from '../db/embedded.js';
import { earlyInputs, type EarlyInputs } from '../defaults.js';
import { YOUNG_GENERATION_MB, type MemoryPlan } from '../memory.js';

/** What a process's flags depend on, of its configuration (src/defaults.ts reads it before loadConfig). */
export type FlagInputs = Pick<
  Config,
  'databaseUrl' | 'dataDir' | 'seedSample' | 'workers' | 'memoryBudgetMb' | 'computeThread'
>;

/**
 * What a start needs before the service loads (its flags, the early open): read without loadConfig when
 * the defaults hold (src/defaults.ts), else loadConfig's; null when the configuration does not parse
 * (server.ts says why).
 */
export async function startInputs(env: NodeJS.ProcessEnv = process.env): Promise<EarlyInputs | null> {
  const early = earlyInputs(env);
  if (early) return early;
  const { loadConfig } = await import('../config.js');
  try {
    return loadConfig(env);
  } catch {
    return null;
  }
}

/** Node flags that choose how WebAssembly is compiled. */
export const givesWasmTiering = (execArgv: readonly string[]): boolean =>
  execArgv.some((a) => /^--(no-)?(liftoff|wasm-tier-up|wasm-dynamic-tiering)/.test(a));

/**
 * The heap's flags, of those not given: the old generation bounded by the process's share of
 * MEMORY_BUDGET_MB (src/memory.ts), the young generation the two 16 MB semi-spaces that share counts
 * (YOUNG_GENERATION_MB; Node 24's V8 sizes it otherwise, and a worker whose caches had filled its share
 * spent most of its time in full collections: detail and GraphQL answers at a quarter of their rate).
 * V8's flags hold for every thread's heap, a worker thread's resourceLimits included: a process that
 * computes on a thread of its own (src/threads/) has two such heaps, and its budget counts the second
 * (FRONT_THREAD_MB, src/memory.ts). Two 8 MB semi-spaces each instead made the thread's loop lag more and
 * the bound of work shrink, refusing a quarter of the requests at half the capacity in one overload run.
 */
export function heapFlags(execArgv: readonly string[], heapMb: number): string[] {
  const flags: string[] = [];
  if (!execArgv.some((a) => a.startsWith('--max-old-space-size'))) flags.push(`--max-old-space-size=${heapMb}`);
  if (!execArgv.some((a) => a.startsWith('--max-semi-space-size')))
    flags.push(`--max-semi-space-size=${YOUNG_GENERATION_MB / 2}`);
  if (!execArgv.some((a) => /^--(no-)?allocation-site-pretenuring$/.test(a))) flags.push(NO_PRETENURING);
  return flags;
}

/**
 * V8 allocates straight into the old generation from the code sites whose objects it has seen survive
 * (allocation-site pretenuring). The catalogue and the caches are built by the same code that then serves
 * requests, so the sites of a request's short-lived objects were judged long-lived, and every such object
 * went to the old generation: under a load of 304s, 38 full collections in 10 s (the old generation
 * filling by ≈100 MB/s) and 17,100–18,000 answers/s; without pretenuring, no full collection and 28,700/s.
 * Mixed traffic, whose caches really do keep what they make, collected as often either way.
 */
export const NO_PRETENURING = '--no-allocation-site-pretenuring';

/**
 * A worker's: its heap's, and WebAssembly (Prisma's query compiler: it plans database queries, never on
 * the path of an answer from memory) compiled once by the baseline compiler only, which keeps ≈50 MB of
 * optimised machine code out of every worker.
 */
export function workerFlags(execArgv: readonly string[], heapMb: number): string[] {
  const flags = [...execArgv, ...heapFlags(execArgv, heapMb)];
  if (!givesWasmTiering(flags)) flags.push('--liftoff-only');
  return flags;
}

/**
 * The flags the process started by `npm start` lacks (a cluster's primary, or the single process):
 * - PGlite (PostgreSQL compiled to WebAssembly) and Prisma's query compiler are machine code in this
 *   process: optimised, they take ≈50 MB more resident memory than compiled once by V8's baseline
 *   compiler. An existing embedded database is read at start and written by a daily ingest, where the
 *   baseline code is fast enough; the first start's 400-day seeding is not, so it keeps the optimising
 *   tier.
 * - A single process (WORKERS=1) is its own worker: its heap is bounded by its share like a worker's,
 *   from the start in place after the first start's seeding.
 */
export function ownFlags(config: FlagInputs, memory: MemoryPlan, execArgv: readonly string[]): string[] {
  const flags: string[] = [];
  const existing = !config.databaseUrl && hasEmbeddedDatabase(config.dataDir);
  if (existing && !givesWasmTiering(execArgv)) flags.push('--liftoff-only');
  // The first start's seeding ends in a restart with these flags (server.ts); bounded by a worker's share
  // meanwhile, the seeding's heap (the modules of the service loaded besides) collected for 4 s more.
  const seeding = !config.databaseUrl && !existing && config.seedSample;
  if (config.workers === 1 && !seeding) flags.push(...heapFlags(execArgv, memory.heapMb));
  return flags;
}

/** Whether restartWith(flags) would start the process again: flags to add, and a runtime with execve. */
export const restartsWith = (flags: readonly string[]): boolean =>
  flags.length > 0 && typeof process.execve === 'function';

/**
 * glibc's malloc arenas for a serving process, unless set by hand. By default glibc gives each thread
 * that allocates an arena of its own (up to eight per core): V8's helpers, libuv's pool and the embedded
 * database's thread each kept freed memory apart. With two, after the same 40 s of mixed traffic a
 * process held 436–453 MB instead of 478–493 MB, at the same throughput.
 */
export const MALLOC_ARENAS = '2';

/**
 * Allocations from this size up get pages of their own (mmap), given back when freed. glibc's default
 * threshold starts here too but rises after each large free, up to 32 MB, and its trim threshold with it:
 * a process that frees answers' buffers (tens to hundreds of KB) all day then keeps up to 64 MB of freed
 * memory at the top of its heap. Fixed here, it stays at 128 KB.
 */
export const MMAP_THRESHOLD = '131072';

/** The environment a process of the service starts with: its own, and the malloc settings above unless given. */
export const serviceEnv = (env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv => ({
  ...env,
  MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? MALLOC_ARENAS,
  MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? MMAP_THRESHOLD,
});

/** Starts this process again in its place with `flags` added (execve: the same pid for npm, a supervisor, signals). */
export function restartWith(flags: readonly string[]): void {
  if (!restartsWith(flags)) return;
  process.execve!(
    process.execPath,
    [process.execPath, ...process.execArgv, ...flags, ...process.argv.slice(1)],
    serviceEnv() as Record<string, string>,
  );
}
