// The embedded database opened while the service's modules load (main.ts): PostgreSQL starting on
// its own thread and Node loading the service take about a second each, on two cores, and neither needs
// the other. openAndSeed (first-start.ts) takes what was opened as if it had opened it itself.
import cluster from 'node:cluster';
import { startInputs } from './cluster/flags.js';
import { embeddedProcesses, hasEmbeddedDatabase, openEmbedded, type EmbeddedDatabase } from './db/embedded.js';
import { configuredTurn, takeTurn, type Turn } from './db/write-turn.js';

export interface EarlyOpen {
  /** The writers' turn the service's start-up takes before it opens the folder (see write-turn.ts). */
  held: Turn;
  embedded: EmbeddedDatabase;
  /** What it would have logged meanwhile: the service's logger is not loaded yet. */
  said: { level: 'info' | 'warn'; line: string }[];
}

let early: Promise<EarlyOpen> | null = null;

/**
 * Starts opening an embedded database that exists, in a cluster's primary or a single process; resolves
 * once the database has a thread of its own (its turn taken, its folder locked), so that the caller
 * loads the service while PostgreSQL starts. A first start is left to first-start.ts, and PostgreSQL,
 * a worker or a configuration that does not parse to server.ts, as before.
 */
export async function openEarly(): Promise<void> {
  if (!cluster.isPrimary) return;
  // With the defaults, read without loading the configuration's schemas: PostgreSQL starts sooner.
  const config = await startInputs();
  if (!config || config.databaseUrl || !hasEmbeddedDatabase(config.dataDir)) return;
  const said: EarlyOpen['said'] = [];
  const { dataDir, workers } = config;
  const turn = configuredTurn(config, 'service start-up', (line) => said.push({ level: 'warn', line }));
  let threadStarted!: () => void;
  const started = new Promise<void>((resolve) => (threadStarted = resolve));
  early = (async () => {
    const held = await takeTurn(config, turn);
    try {
      const log = (line: string) => said.push({ level: 'info', line });
      const embedded = await openEmbedded(dataDir, {
        log,
        processes: embeddedProcesses(workers),
        onThread: threadStarted,
      });
      return { held, embedded, said };
    } catch (err) {
      await held.release();
      throw err;
    }
  })();
  // awaited, and its failure reported, by whoever takes it
  early.then(threadStarted, threadStarted);
  return started;
}

/** What openEarly started (once; null when it started nothing). */
export function takeEarly(): Promise<EarlyOpen> | null {
  const taken = early;
  early = null;
  return taken;
}
