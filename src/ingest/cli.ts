// npm run ingest -- FILE|DIR [FILE|DIR ...]
// Applies snapshots (a directory: its *.json files in file-name order), each in its own transaction.
// Ingests take turns: one started while another runs (or while the service migrates or seeds a new
// database) waits, saying for whom, up to INGEST_WAIT_SECONDS, and then applies; turns go in the order
// the ingests started.
//
// Exit codes:
//   0  done
//   1  a snapshot was rejected: every problem is listed; it was not written (those before it were)
//   2  usage: no arguments, no such file, no snapshots, a bad setting
//   3  gave up waiting for the ingest before it (INGEST_WAIT_SECONDS); nothing was written
//   4  the database failed (unreachable, out of disk space…): the snapshot being applied was not written;
//      run the ingest again once the database is back (applied snapshots are skipped)
//   5  a snapshot would leave more active offers than the service's memory budget holds (MEMORY_BUDGET_MB,
//      WORKERS: read from the same settings as the service's): it was not written (those before it were)
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig, type Config } from '../config.js';
import { INGEST_QUERY_TIMEOUT_MS, openDatabase } from '../db/client.js';
import { processAlive } from '../db/embedded.js';
import { describeDatabaseFailure } from '../db/failure.js';
import { configuredTurn, takeTurn, TurnTimeout, type Turn } from '../db/write-turn.js';
import { IngestError } from './apply.js';
import { capacityOf, TooLarge } from './capacity.js';
import { formatSummary, ingestAll, SnapshotFailed, type SnapshotSource } from './run.js';
import { parseJsonBytes } from './validate.js';

async function collect(args: string[]): Promise<SnapshotSource[]> {
  const files: string[] = [];
  for (const arg of args) {
    const info = await stat(arg);
    if (info.isDirectory()) {
      const names = (await readdir(arg)).filter((n) => n.endsWith('.json')).sort();
      files.push(...names.map((n) => path.join(arg, n)));
    } else {
      files.push(arg);
    }
  }
  return files.map((file) => ({ name: file, load: async () => parseJsonBytes(await readFile(file)) }));
}

/** Whether a process ends within a few seconds (a stopping service closes the database, then exits). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 30; i++) {
    if (!processAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

export const EXIT = { done: 0, rejected: 1, usage: 2, waitedTooLong: 3, failed: 4, tooLarge: 5 } as const;

export async function main(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (args.length === 0 || args.includes('--help')) {
    console.error('usage: npm run ingest -- FILE|DIR [FILE|DIR ...]');
    return EXIT.usage;
  }
  let snapshots: SnapshotSource[];
  let config: Config;
  try {
    config = loadConfig(env);
    snapshots = await collect(args);
  } catch (err) {
    console.error((err as Error).message);
    return EXIT.usage;
  }
  if (snapshots.length === 0) {
    console.error(`no *.json snapshots in ${args.join(', ')}`);
    return EXIT.usage;
  }
  let turn: Turn;
  try {
    // Before connecting: on the embedded database a waiting connection would wait inside the session
    // of the ingest before it, and could even be left on the socket of an ingest that owns the folder.
    turn = await takeTurn(config, configuredTurn(config, 'ingest', console.error));
  } catch (err) {
    if (err instanceof TurnTimeout) {
      console.error(`${err.message}; nothing was written.`);
      return EXIT.waitedTooLong;
    }
    console.error(`error: ${describeDatabaseFailure(err, config)}; nothing was written.`);
    return EXIT.failed;
  }
  let servedBy: number | undefined;
  try {
    const db = await openDatabase({
      ...config,
      log: (m) => console.error(m),
      writeTurn: 'held',
      queryTimeoutMs: INGEST_QUERY_TIMEOUT_MS,
    });
    servedBy = db.servedBy;
    try {
      const summary = await ingestAll(db.prisma, snapshots, {
        progress: true,
        maxFutureSkewMs: config.ingestMaxFutureSkewMs,
        capacity: capacityOf(config),
      });
      console.log(formatSummary(summary));
      return EXIT.done;
    } finally {
      // Whatever was committed stays so: a failure to close is worth a line, not another exit code.
      await db
        .close()
        .catch((err: Error) => console.error(`warning: the database did not close cleanly: ${err.message}`));
    }
  } catch (err) {
    if (err instanceof SnapshotFailed) {
      if (err.completed.snapshots > 0) console.error(`${err.completed.snapshots} snapshot(s) before it were applied.`);
      if (err.cause instanceof TooLarge) {
        console.error(`refused ${err.snapshot}; nothing of it was written.\n${err.cause.message}`);
        return EXIT.tooLarge;
      }
      console.error(
        `${err.cause instanceof IngestError ? 'rejected' : 'could not apply'} ${err.snapshot}; nothing of it ` +
          `was written.`,
      );
      console.error(
        err.cause instanceof IngestError
          ? err.cause.message
          : servedBy !== undefined && (await gone(servedBy))
            ? `error: the service that holds the embedded database (pid ${servedBy}) stopped while the snapshot ` +
              `was being written (${describeDatabaseFailure(err.cause, config)}); run the ingest again (applied ` +
              `snapshots are skipped)`
            : `error: ${describeDatabaseFailure(err.cause, config)}`,
      );
      return err.cause instanceof IngestError ? EXIT.rejected : EXIT.failed;
    }
    console.error(`error: ${describeDatabaseFailure(err, config)}; nothing was written.`);
    return EXIT.failed;
  } finally {
    await turn.release();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`ingest failed: ${err.stack ?? err.message}`);
      process.exit(EXIT.failed);
    },
  );
}
