// The embedded default: PostgreSQL compiled to WASM (PGlite), served on a loopback socket so the
// service talks to it through the very same driver (pg + @prisma/adapter-pg) as to a real server.
//
// PGlite is single-process: two processes opening one data folder would corrupt it. The process
// that opens the folder (the owner) writes a lock file with its pid and port; any other process —
// `npm run ingest` while the service runs, say — connects to the owner's socket instead.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { siblingModule, startWorker } from '../worker-file.js';
import type { WorkerInput, WorkerMessage } from './pglite-worker.js';

/** pg's pool size for the embedded database; the socket server must accept at least this many. */
export const EMBEDDED_POOL_SIZE = 8;

/** Whether an embedded database is in `dataDir` (the folder PostgreSQL's initdb, or the template, made). */
export const hasEmbeddedDatabase = (dataDir: string): boolean => existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'));

/** The processes that connect with a pool each: the workers, and a cluster's primary. */
export const embeddedProcesses = (workers: number): number => workers + (workers > 1 ? 1 : 0);

export interface EmbeddedDatabase {
  /** postgresql:// URL of the socket, for pg and for tools such as psql. */
  url: string;
  /** true when this process opened the data folder; false when it reached another owner. */
  owner: boolean;
  /** The process serving it: this one, or the owner reached. */
  servedBy: number;
  close(): Promise<void>;
}

interface LockInfo {
  pid: number;
  port: number;
  startedAt: string;
}

const lockPath = (dataDir: string) => path.join(dataDir, 'embedded.lock.json');
const socketUrl = (port: number) => `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function portAnswers(port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(false); // its owner is still starting PostgreSQL
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * How long a lock may stay unreadable (created, its owner not written yet) before it is taken for the
 * remains of a process that died in between: its owner writes it at once.
 */
const UNWRITTEN_LOCK_MS = 5_000;

/** The lock: its owner, none, or a file that does not say (empty or cut short). */
async function readLock(dataDir: string): Promise<LockInfo | 'unreadable' | null> {
  let text: string;
  try {
    text = await readFile(lockPath(dataDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const lock = JSON.parse(text) as LockInfo;
    return typeof lock?.pid === 'number' ? lock : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** Whether the lock file was last written longer ago than `ms`. */
async function olderThan(file: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(file)).mtimeMs > ms;
  } catch {
    return false;
  }
}

// '../db/' rather than './': from the bundle (dist/bundle/, scripts/bundle.mjs) too, the worker and the
// template are tsc's files in dist/db/.
const workerFile = siblingModule(import.meta.url, '../db/pglite-worker');

/**
 * A migrated, empty data folder, packed by the build (npm run build, after the compiler): `node
 * dist/db/migrate-cli.js template`. Under tsx or vitest it is not there, and a new folder is made by
 * initdb and migrated as it always could be; migrations newer than the template are applied on top.
 */
export const TEMPLATE = fileURLToPath(new URL('../db/template.tar.gz', import.meta.url));

/**
 * Writes a template (TEMPLATE by default): a new data folder, migrated, packed; and beside it (`.digest`)
 * `digest`, which names the migrations it holds (migrationsDigest in migrate.ts).
 */
export async function writeTemplate(
  migrate: (url: string) => Promise<string[]>,
  file: string = TEMPLATE,
  digest?: string,
): Promise<string[]> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'savings-template-'));
  try {
    const dataDir = path.join(scratch, 'pglite');
    const served = await startPglite(dataDir, undefined, 1, null);
    let applied: string[];
    try {
      applied = await migrate(socketUrl(served.port));
    } finally {
      await served.stop();
    }
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create({ dataDir, ...(await compiledWasm()) });
    try {
      const packed = await db.dumpDataDir('gzip');
      await writeFile(`${file}.partial`, Buffer.from(await packed.arrayBuffer()));
      await rename(`${file}.partial`, file);
      if (digest !== undefined) await writeFile(`${file}.digest`, digest);
    } finally {
      await db.close();
    }
    return applied;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

let wasm: Promise<{ pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module }> | undefined;
const compile = (file: string) =>
  readFile(path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), file)).then(
    (bytes) => WebAssembly.compile(bytes),
  );
const compiledWasm = () =>
  (wasm ??= Promise.all([compile('pglite.wasm'), compile('initdb.wasm')]).then(
    ([pgliteWasmModule, initdbWasmModule]) => ({ pgliteWasmModule, initdbWasmModule }),
  ));

/**
 * Starts PGlite (a data folder, or null for memory) on its own thread, served on a loopback port.
 * Should the thread fail later, `onFailure` hears of it; the service then sees a database that does not
 * answer (503 where it is needed), as with a PostgreSQL server that went away.
 */
export async function startPglite(
  dataDir: string | null,
  onFailure: (msg: string) => void = () => {},
  processes = 1,
  template: string | null = TEMPLATE,
  onThread: () => void = () => {},
): Promise<{ port: number; stop(): Promise<void> }> {
  // Each serving process's pool, and room for one more (an ingest) and a few single connections.
  const input: WorkerInput = {
    dataDir,
    template,
    maxConnections: EMBEDDED_POOL_SIZE * (processes + 1) + 4,
    ...(await compiledWasm()),
  };
  const worker = startWorker(workerFile, input);
  onThread();
  let closed: () => void = () => {};
  return new Promise((resolve, reject) => {
    let ready = false;
    worker.on('error', (err) =>
      ready ? onFailure(`the embedded database thread failed: ${err.stack ?? err.message}`) : reject(err),
    );
    worker.on('exit', (code) => {
      closed();
      if (!ready) reject(new Error(`the embedded database thread stopped (exit code ${code}) before it was ready`));
    });
    worker.on('message', (message: WorkerMessage) => {
      if (message === 'closed') return closed();
      if ('error' in message) return reject(new Error(`the embedded database did not open: ${message.error}`));
      ready = true;
      resolve({
        port: message.port,
        async stop() {
          const done = new Promise<void>((r) => (closed = r));
          worker.postMessage('close');
          await done; // the database is closed and flushed; the thread may now go
          await worker.terminate();
        },
      });
    });
  });
}

/**
 * An in-memory database for tests and the shadow database of `createMigration`: empty, or a copy of
 * `template` (see writeTemplate).
 */
export async function openInMemory(template: string | null = null): Promise<EmbeddedDatabase> {
  const served = await startPglite(null, undefined, 1, template);
  return { url: socketUrl(served.port), owner: true, servedBy: process.pid, close: () => served.stop() };
}

/**
 * Opens the embedded database in `dataDir` or reaches the process that has it open.
 * `waitMs` bounds how long to wait for a lock whose owner is alive but not yet answering; `processes`
 * is how many will connect with a pool each (the workers of a cluster and its primary).
 */
export async function openEmbedded(
  dataDir: string,
  options: {
    log?: (msg: string) => void;
    waitMs?: number;
    processes?: number;
    /** Called once the database's thread has been started (it is not ready yet). */
    onThread?: () => void;
  } = {},
): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => {});
  await mkdir(dataDir, { recursive: true }); // PGlite does not create parent folders
  const deadline = Date.now() + (options.waitMs ?? 30_000);

  for (;;) {
    const lock = await readLock(dataDir);
    if (lock === 'unreadable') {
      // Being written by a process that has just made it, or left by one that died before it could: a
      // lock nobody could ever read would otherwise keep every start waiting for good.
      if (await olderThan(lockPath(dataDir), UNWRITTEN_LOCK_MS)) await rm(lockPath(dataDir), { force: true });
      else await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    if (lock?.pid === process.pid) throw new Error(`the embedded database ${dataDir} is already open in this process`);
    if (lock && processAlive(lock.pid)) {
      if (await portAnswers(lock.port)) {
        log(`embedded database ${dataDir} is open in process ${lock.pid}; connecting to it on port ${lock.port}`);
        return { url: socketUrl(lock.port), owner: false, servedBy: lock.pid, close: async () => {} };
      }
      if (Date.now() > deadline) {
        throw new Error(
          `the embedded database ${dataDir} is locked by process ${lock.pid}, which does not answer on port ` +
            `${lock.port}`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    if (lock) await rm(lockPath(dataDir), { force: true }); // stale: its process is gone

    // Exclusive create: of two processes starting at once, exactly one becomes the owner.
    let handle;
    try {
      handle = await open(lockPath(dataDir), 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        await new Promise((r) => setTimeout(r, 100)); // another process is creating it right now
        continue;
      }
      throw err;
    }
    try {
      // Its owner at once (no port yet: "starting"), so that a process that dies while PostgreSQL starts
      // leaves a lock whose process is gone, taken over by the next start.
      const starting: LockInfo = { pid: process.pid, port: 0, startedAt: new Date().toISOString() };
      await handle.write(JSON.stringify(starting), 0);
      const served = await startPglite(
        path.join(dataDir, 'pglite'),
        log,
        options.processes,
        TEMPLATE,
        options.onThread,
      );
      const info: LockInfo = { pid: process.pid, port: served.port, startedAt: starting.startedAt };
      await handle.truncate(0);
      await handle.write(JSON.stringify(info), 0);
      await handle.close();
      return {
        url: socketUrl(served.port),
        owner: true,
        servedBy: process.pid,
        async close() {
          await served.stop();
          await rm(lockPath(dataDir), { force: true });
        },
      };
    } catch (err) {
      await handle.close().catch(() => {});
      await rm(lockPath(dataDir), { force: true });
      throw err;
    }
  }
}
