// The application's thread: the catalogue, the calculation and yoga, fed the requests the front passed
// (src/threads/front.ts). Its event loop computes; it never accepts a connection, so however long a turn
// of it takes, the front still answers cached answers, refusals, health and the metrics.
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { createBackend, type Backend } from '../app.js';
import type { FrontFigures } from '../front.js';
import { CatalogueTooLarge } from '../catalog/store.js';
import { createPrisma, type Database } from '../db/client.js';
import { EMBEDDED_POOL_SIZE } from '../db/embedded.js';
import { STREAM_ETAG, isEventStream } from '../http/layer.js';
import { watchLag } from '../http/overload.js';
import { serviceLogger } from '../logger.js';
import { requestScope } from '../request/context.js';
import { PATHS } from '../request/paths.js';
import { type BackInput, type ToBack, type ToFront } from './messages.js';

const port = parentPort as MessagePort;
const input = workerData as BackInput;
const send = (message: ToFront, transfer?: ArrayBuffer[]) => {
  try {
    port.postMessage(message, transfer ?? []);
  } catch (err) {
    // A body that is a view into a buffer it shares cannot be moved: it is copied.
    if (!transfer?.length) throw err;
    port.postMessage(message);
  }
};

const { config, memory } = input;
const { logger, flush } = serviceLogger(config.logLevel, { shared: true });
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));

/** The requests being computed, by the front's id: what aborts each. */
const running = new Map<number, AbortController>();
let nextAsk = 1;
const askedFront = new Map<number, (figures: FrontFigures) => void>();

function connect(): Database {
  const prisma = createPrisma(input.database.url, input.database.kind === 'embedded' ? EMBEDDED_POOL_SIZE : 10);
  return {
    prisma,
    kind: input.database.kind,
    url: input.database.url,
    // The process that opened the database closes it; this thread only lets its connections go.
    close: () => prisma.$disconnect(),
  };
}

function start(db: Database): Promise<Backend> {
  return createBackend({
    config,
    db,
    logger,
    memory,
    remoteFront: () =>
      new Promise((resolve) => {
        const id = nextAsk++;
        askedFront.set(id, resolve);
        send({ t: 'figures', id });
      }),
  });
}

/** One request the front passed: computed within its scope, answered whole or, for streams, chunk by chunk. */
async function compute(backend: Backend, m: Extract<ToBack, { t: 'request' }>): Promise<void> {
  const abort = new AbortController();
  running.set(m.id, abort);
  try {
    const request = new Request(m.url, {
      method: m.method,
      headers: m.headers,
      body: m.body,
      signal: abort.signal,
    });
    const scope = {
      id: m.requestId,
      startedAt: process.hrtime.bigint(),
      client: m.client,
      signal: abort.signal,
      deadline: performance.now() + m.deadlineInMs,
    };
    const response = await requestScope.run(scope, () => backend.yoga.fetch(request));
    const headers = [...response.headers];
    const streamed = response.body !== null && (isEventStream(response) || response.headers.has(STREAM_ETAG));
    if (!streamed) {
      const body = response.body ? await response.arrayBuffer() : null;
      send(
        {
          t: 'head',
          id: m.id,
          status: response.status,
          headers,
          body,
          streamed: false,
          cacheable: backend.services.database.ok(),
        },
        body ? [body] : [],
      );
      return;
    }
    send({ t: 'head', id: m.id, status: response.status, headers, body: null, streamed: true, cacheable: false });
    const reader = response.body!.getReader();
    abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      send({ t: 'chunk', id: m.id, data: value });
    }
    send({ t: 'end', id: m.id });
  } catch (err) {
    if (!abort.signal.aborted) logger.error({ requestId: m.requestId, err }, 'unexpected error');
    send({ t: 'end', id: m.id, error: err instanceof Error ? err.message : String(err) });
  } finally {
    running.delete(m.id);
  }
}

/** How often the application tells the front its metrics and its health. */
const REPORT_EVERY_MS = 1_000;

/** Its metrics and its health, now and every REPORT_EVERY_MS, for the front to answer from. */
function report(backend: Backend): () => void {
  let reporting = false;
  const once = async () => {
    if (reporting) return;
    reporting = true;
    try {
      const [metrics, health] = await Promise.all([
        backend.metrics.registry.getMetricsAsJSON(),
        backend.yoga.fetch(new Request(`http://localhost${PATHS.health}`)),
      ]);
      send({
        t: 'report',
        metrics,
        health: { status: health.status, headers: [...health.headers], body: await health.text() },
      });
    } catch (err) {
      logger.warn({ err }, 'could not report to the front');
    } finally {
      reporting = false;
    }
  };
  void once();
  const timer = setInterval(() => void once(), REPORT_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The calculation is the work that can wait; accepting, refusing and answering from the cache cannot. On
 * a machine whose cores are all busy the kernel gives this thread the CPU after the front's
 * (COMPUTE_THREAD_NICE; Linux gives a thread a nice value of its own; elsewhere it stays as it is).
 */
function yieldToTheFront(nice: number): void {
  if (nice === 0) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, nice);
  } catch {
    // not Linux, or not allowed: the kernel shares the cores evenly
  }
}

async function main(): Promise<void> {
  yieldToTheFront(config.computeThreadNice);
  const db = connect();
  let backend: Backend;
  try {
    backend = await start(db);
  } catch (err) {
    const tooLarge = err instanceof CatalogueTooLarge ? err.refused : undefined;
    send({ t: 'failed', message: err instanceof Error ? err.message : String(err), ...(tooLarge ? { tooLarge } : {}) });
    flush();
    return;
  }
  const { services } = backend;
  services.store.onSwap((catalog) => send({ t: 'state', version: catalog.version, cacheable: services.database.ok() }));
  const stopWatchingLag = watchLag((ms) => send({ t: 'lag', ms }));
  let stopReporting = () => {};

  port.on('message', (m: ToBack) => {
    switch (m.t) {
      case 'request':
        void compute(backend, m);
        return;
      case 'abort':
        running
          .get(m.id)
          ?.abort(
            m.reason === 'gone'
              ? new DOMException('the client went', 'AbortError')
              : new DOMException('the request timed out', 'TimeoutError'),
          );
        return;
      case 'figures': {
        const resolve = askedFront.get(m.id);
        askedFront.delete(m.id);
        resolve?.(m.value);
        return;
      }
      case 'closeStreams':
        backend.closeStreams();
        return;
      case 'refresh':
        backend.refresh();
        return;
      case 'close':
        stopWatchingLag();
        stopReporting();
        void backend
          .close()
          .then(() => db.close())
          .catch((err: unknown) => logger.warn({ err }, 'could not close the application cleanly'))
          .finally(() => {
            flush();
            send({ t: 'closed' });
            port.close();
          });
        return;
    }
  });

  const warmUpMs = await backend.warmUp().catch((err: unknown) => {
    logger.warn({ err }, 'could not answer the default list before listening');
    return 0;
  });
  stopReporting = report(backend);
  send({ t: 'ready', version: services.store.current().version, warmUpMs });
}

void main();
