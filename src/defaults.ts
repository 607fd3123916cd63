// The defaults of the settings a start needs before the service is loaded: how many processes serve and
// the memory they share (what the machine gives), where the embedded database is, how long a start waits
// for a writer's turn. src/config.ts parses every setting with these defaults; earlyInputs reads just
// these without its schemas (zod: ≈200 ms to load), so that a start decides its V8 flags and opens its
// database before it loads anything else (src/main.ts).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EMBEDDED_DATABASE_MB, FRONT_THREAD_MB, frontsThread, PRIMARY_MB } from './memory.js';

/** Where the embedded database lives when DATA_DIR is not given. */
export const DEFAULT_DATA_DIR = './data';

/** How long a start or an ingest waits for the writers' turn when INGEST_WAIT_SECONDS is not given. */
export const DEFAULT_INGEST_WAIT_SECONDS = 600;

/**
 * A serving process's share of the budget when MEMORY_BUDGET_MB is not given: room for ≈90 MB of caches
 * (every offer's calculation pieces for many amounts, a few hundred finished answers) and a catalogue of
 * ≈16,900 offers, of which ≈10,300 with a piece of the calculation kept each, as src/memory.ts divides it.
 */
export const DEFAULT_SHARE_MB = 384;

/**
 * Serving processes when WORKERS is not given. The embedded database's executor runs on a thread of
 * its own and keeps a core busy while it works, so it is given one: on two cores one process serves.
 * Measured on two cores (`npm run soak`): a second worker answered 25 % more of the mixed traffic for
 * twice the resident memory.
 */
export function defaultWorkers(cores: number, embedded: boolean): number {
  return embedded ? Math.max(1, cores - 1) : cores;
}

/** The budget when MEMORY_BUDGET_MB is not given: the database's part, the primary's, a share per process. */
export function defaultBudgetMb(workers: number, embedded: boolean, computeThread = false): number {
  return (
    (embedded ? EMBEDDED_DATABASE_MB : 0) +
    (workers > 1 ? PRIMARY_MB : 0) +
    (frontsThread(workers, computeThread) ? FRONT_THREAD_MB : 0) +
    workers * DEFAULT_SHARE_MB
  );
}

/**
 * The cores this process may use: the machine's, or fewer when a cgroup (a container's CPU limit)
 * allows less: cpu.max holds "quota period" (or "max"), in microseconds per period.
 */
export function availableCores(cpuMax: () => string = () => readFileSync('/sys/fs/cgroup/cpu.max', 'utf8')): number {
  const cores = os.availableParallelism();
  try {
    const [quota, period] = cpuMax().trim().split(/\s+/);
    if (quota === 'max' || !quota || !period) return cores;
    const allowed = Number(quota) / Number(period);
    return Number.isFinite(allowed) && allowed > 0 ? Math.max(1, Math.min(cores, Math.ceil(allowed))) : cores;
  } catch {
    return cores; // no cgroup v2 here
  }
}

/** What a start needs of its configuration before the service is loaded (src/config.ts's Config has it). */
export interface EarlyInputs {
  databaseUrl: string | undefined;
  dataDir: string;
  seedSample: boolean;
  workers: number;
  memoryBudgetMb: number;
  ingestWaitMs: number;
  computeThread: boolean;
}

/** The variables behind EarlyInputs that have defaults (DATA_DIR, a path, is taken as given). */
const DEFAULTED = [
  'DATABASE_URL',
  'SEED_SAMPLE',
  'WORKERS',
  'MEMORY_BUDGET_MB',
  'INGEST_WAIT_SECONDS',
  'COMPUTE_THREAD',
] as const;

/**
 * EarlyInputs as loadConfig gives them when the environment leaves them to their defaults, as `npm start`
 * does; null when any of them is set (empty counts as unset, as there): loadConfig decides then.
 */
export function earlyInputs(env: NodeJS.ProcessEnv): EarlyInputs | null {
  const given = (name: string) => env[name] !== undefined && env[name] !== '';
  if (DEFAULTED.some(given)) return null;
  const workers = defaultWorkers(availableCores(), true);
  return {
    databaseUrl: undefined,
    dataDir: path.resolve(given('DATA_DIR') ? env.DATA_DIR! : DEFAULT_DATA_DIR),
    seedSample: true,
    workers,
    memoryBudgetMb: defaultBudgetMb(workers, true),
    ingestWaitMs: DEFAULT_INGEST_WAIT_SECONDS * 1000,
    computeThread: false,
  };
}
