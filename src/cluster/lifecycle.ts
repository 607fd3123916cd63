// How a process of the service stops, written once for the single process, a cluster's primary and its
// workers: on SIGTERM or SIGINT (or when told to), once, it logs why, drains what it serves (each kind of
// process its own way) while it waits for an ingest writing to the embedded database it holds (which would
// otherwise lose its connection half-way), closes the database, says how it went, flushes the log and
// exits 0, or 1 when something did not stop cleanly.
import type { Config } from '../config.js';
import { finishWriters, WRITERS_AT_SHUTDOWN_MS } from '../db/write-turn.js';
import type { Logger } from '../logger.js';

export interface Stopping {
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'shutdownGraceMs'>;
  logger: Logger;
  flush(): void;
  /** What the log says when the stop begins. */
  message: string;
  /** Stops taking work and lets what runs finish; false when something did not finish cleanly. */
  drain(): Promise<boolean>;
  /** Closes what the process opened: the database last. */
  close(): Promise<void>;
  /** Whether this process holds the embedded database (then ingests writing to it finish first). */
  holdsDatabase: boolean;
}

/** Stops on SIGTERM and SIGINT; the returned function stops for another reason (the primary says so). */
export function stopOnSignals(stopping: Stopping): (why: string) => void {
  const { config, logger, flush } = stopping;
  let started = false;
  const stop = async (why: string) => {
    if (started) return;
    started = true;
    logger.info({ signal: why, graceMs: config.shutdownGraceMs }, stopping.message);
    // The writers' turn is asked for while draining, not after: the ingest that writes now is waited for
    // from the signal on (and named in the log at once), and none queued behind it starts in between.
    const writersFinished = stopping.holdsDatabase
      ? finishWriters(config, WRITERS_AT_SHUTDOWN_MS, {
          warn: (line) => logger.warn(line),
          error: (line) => logger.error(line),
        })
      : Promise.resolve(null);
    let clean = await stopping.drain();
    const writers = await writersFinished;
    try {
      await stopping.close();
      await writers?.release();
    } catch (err) {
      logger.error({ err }, 'could not close the database cleanly');
      clean = false;
    }
    const exitCode = clean ? 0 : 1;
    logger.info({ exitCode }, 'stopped');
    flush();
    process.exit(exitCode);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return (why) => void stop(why);
}
