// npm run ingest -- FILE|DIR [FILE|DIR ...]
// Applies snapshots (a directory: its *.json files in file-name order), each in its own transaction.
// Exit 0: done; 1: a snapshot was rejected (every problem listed, that snapshot not written); 2: usage.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { IngestError } from './apply.js';
import { formatSummary, ingestAll, SnapshotFailed, type SnapshotSource } from './run.js';

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
  return files.map((file) => ({ name: file, load: async () => JSON.parse(await readFile(file, 'utf8')) as unknown }));
}

export async function main(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (args.length === 0 || args.includes('--help')) {
    console.error('usage: npm run ingest -- FILE|DIR [FILE|DIR ...]');
    return 2;
  }
  let snapshots: SnapshotSource[];
  try {
    snapshots = await collect(args);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  if (snapshots.length === 0) {
    console.error(`no *.json snapshots in ${args.join(', ')}`);
    return 2;
  }
  const config = loadConfig(env);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log: (m) => console.error(m) });
  try {
    const summary = await ingestAll(db.prisma, snapshots, { progress: true, maxFutureSkewMs: config.ingestMaxFutureSkewMs });
    console.log(formatSummary(summary));
    return 0;
  } catch (err) {
    if (err instanceof SnapshotFailed) {
      if (err.completed.snapshots > 0) console.error(`${err.completed.snapshots} snapshot(s) before it were applied.`);
      console.error(`rejected ${err.snapshot}; nothing of it was written.`);
      console.error(err.cause instanceof IngestError ? err.cause.message : `error: ${(err.cause as Error).message}`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`ingest failed: ${err.message}`);
      process.exit(1);
    },
  );
}
