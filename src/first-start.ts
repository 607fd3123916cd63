// The first start on the embedded database: it creates the database, seeds the sample market (400 days
// through the real ingest) and starts again in its place. Run by src/main.ts before the service's own
// modules are loaded: the seeding then neither waits for them nor shares a heap with them (with them
// loaded it took 2 s longer), and the start in place loads them once. Anywhere else (PostgreSQL, a
// runtime without execve, a database already there) server.ts opens and seeds as it always has.
import cluster from 'node:cluster';
import { ownFlags, restartsWith, restartWith } from './cluster/flags.js';
import { loadConfig, type Config } from './config.js';
import { hasIngested, openDatabase, preloadQueryCompiler, type Database } from './db/client.js';
import { hasEmbeddedDatabase } from './db/embedded.js';
import { takeEarly } from './open-early.js';
import { configuredTurn, takeTurn, withTurn } from './db/write-turn.js';
import { formatSummary } from './ingest/run.js';
import { serviceLogger, type Logger } from './logger.js';
import { memoryPlanOf } from './memory.js';
import { seedSampleIfEmpty } from './sample/seed.js';

/** On a first start: seeds and starts again in place (does not return then). Otherwise returns at once. */
export async function seedFirst(): Promise<void> {
  if (!cluster.isPrimary || typeof process.execve !== 'function') return;
  let config: Config;
  try {
    config = loadConfig();
  } catch {
    return; // server.ts says what is wrong with it
  }
  if (config.databaseUrl || !config.seedSample || hasEmbeddedDatabase(config.dataDir)) return;
  const { logger, flush } = serviceLogger(config.logLevel);
  try {
    const { db, seeded } = await openAndSeed(config, logger);
    if (seeded) await startAgainAfterSeeding(config, db, logger, flush);
    await db.close(); // not started again (flags given by hand): the service opens it as on any start
  } catch (err) {
    logger.fatal({ err }, 'the first start could not prepare the database');
    flush();
    process.exit(1);
  }
  flush();
}

/**
 * The first start's seeding runs with WebAssembly's optimising tier (cluster/flags.ts), whose code the
 * process would otherwise keep for its life: ≈600 MB resident in a cluster's primary before any request,
 * where a later start holds less than half. So once the sample is in, the process starts again in its
 * place with the flags of a later start (the same pid for npm, a supervisor and signals).
 */
export async function startAgainAfterSeeding(config: Config, db: Database, logger: Logger, flush: () => void) {
  const flags = config.databaseUrl ? [] : ownFlags(config, memoryPlanOf(config), process.execArgv);
  if (!restartsWith(flags)) return;
  logger.info({ flags }, 'the sample market is in: starting again in place with the flags of a later start');
  await db.close();
  flush();
  restartWith(flags);
}

export async function openAndSeed(config: Config, logger: Logger): Promise<{ db: Database; seeded: boolean }> {
  const turn = (activity: string) => configuredTurn(config, activity, (line) => logger.warn(line));
  // A single process on one thread queries with Prisma next (the catalogue); a cluster's primary never
  // does, nor the accepting thread of a process that computes on another (src/threads/back.ts queries).
  const preloading = config.workers === 1 && !config.computeThread ? preloadQueryCompiler() : undefined;
  const early = await takeEarly();
  await preloading;
  for (const { level, line } of early?.said ?? []) logger[level](line);
  const held = config.databaseUrl ? null : (early?.held ?? (await takeTurn(config, turn('service start-up'))));
  try {
    const db = await openDatabase({
      ...config,
      log: (msg) => logger.info(msg),
      writeTurn: held ? 'held' : turn('migration'),
      embedded: early?.embedded,
    });
    logger.info({ database: db.kind, dataDir: db.kind === 'embedded' ? config.dataDir : undefined }, 'database ready');
    // Asked without Prisma: in a cluster's primary, a database that needs no seeding never loads
    // Prisma's query compiler (WebAssembly, tens of MB resident), since the workers do the querying.
    if (config.seedSample && !(await hasIngested(db.url))) {
      const now = new Date().toISOString();
      // Checked again in the turn: an ingest may have got there first.
      const seed = () =>
        seedSampleIfEmpty(
          db.prisma,
          { seed: config.sampleSeed, days: config.sampleDays, end: now.slice(0, 10), scale: 1, notAfter: now },
          true,
        );
      const seeded = held ? await seed() : await withTurn(config, turn('first-start sample seeding'), seed);
      if (seeded) logger.info({ summary: seeded }, `loaded the sample market:\n${formatSummary(seeded)}`);
      return { db, seeded: Boolean(seeded) };
    }
    return { db, seeded: false };
  } finally {
    await held?.release();
  }
}
