// The embedded database's own thread: PGlite runs PostgreSQL's executor synchronously in WASM, so on
// the service's thread every query would stop the event loop (requests answered from memory included)
// for as long as it runs. Here it takes the second core, and the service only waits on a socket.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { installSessionAffinity } from './pglite-session.js';

export interface WorkerInput {
  /** null: in memory. */
  dataDir: string | null;
  /**
   * A new data folder (or database in memory) starts as a copy of this migrated one (see writeTemplate in
   * embedded.ts), when it exists: PostgreSQL's initdb and the migrations then cost nothing.
   */
  template: string | null;
  maxConnections: number;
  /** Compiled once per process and shared: compiling them takes each new thread about two seconds. */
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
}

export type WorkerMessage = { port: number } | { error: string } | 'closed';

/**
 * PostgreSQL's 128 MB of shared buffers would sit in this process's memory; the service reads the
 * database rarely (the catalogue is in memory), so 16 MB saves ≈120 MB resident at the same speed.
 */
const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB', '-c', 'work_mem=8MB'];

const { dataDir, template, maxConnections, pgliteWasmModule, initdbWasmModule } = workerData as WorkerInput;
const port = parentPort!;
try {
  const fromTemplate =
    template && existsSync(template) && !(dataDir && existsSync(path.join(dataDir, 'PG_VERSION')))
      ? { loadDataDir: new Blob([readFileSync(template)]) }
      : {};
  const db = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...fromTemplate,
    startParams,
    pgliteWasmModule,
    initdbWasmModule,
  });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  installSessionAffinity(server);
  await server.start();
  port.on('message', (message) => {
    if (message !== 'close') return;
    void (async () => {
      await server.stop();
      await db.close();
      port.postMessage('closed' satisfies WorkerMessage);
      port.close();
    })();
  });
  port.postMessage({ port: Number(server.getServerConn().split(':').pop()) } satisfies WorkerMessage);
} catch (err) {
  port.postMessage({ error: (err as Error).stack ?? String(err) } satisfies WorkerMessage);
  port.close();
}
