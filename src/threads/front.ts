// A single process with COMPUTE_THREAD: the thread that accepts connections keeps the HTTP front
// (src/front.ts: the gate, the body cache and its 304s, the bound of work and its refusals, the log and
// the request metrics) and hands every answer that must be computed to the application's own thread
// (back.ts). A cached answer, a refusal, a file then costs this thread a fraction of a millisecond however
// busy the calculation is; health and the metrics are answered here from the application's last report.
import { FRONT_LABEL, type Serving } from '../app.js';
import { CatalogueTooLarge } from '../catalog/store.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { createFront, NO_FRONT, type Front, type FrontFigures } from '../front.js';
import { Gauge } from 'prom-client';
import { aggregateMetrics, type MetricsJson } from '../cluster/stats.js';
import { createMetrics } from '../http/metrics.js';
import { metricsAnswer } from '../http/plugins.js';
import { PATHS } from '../request/paths.js';
import { registerOverloadMetrics } from '../http/overload-metrics.js';
import { cpuLane } from '../catalog/lane.js';
import type { Logger } from '../logger.js';
import { requestCaches, type MemoryPlan } from '../memory.js';
import { requestScope } from '../request/context.js';
import { createRestFacade } from '../rest/facade.js';
import { siblingModule, startWorker } from '../worker-file.js';
import { type Answer, type BackInput, type ToBack, type ToFront } from './messages.js';

// From the bundle (dist/bundle/, scripts/bundle.mjs) the thread is the bundle's second entry, beside the
// chunk this is in.
const backFile = siblingModule(import.meta.url, './back');

/** How old the application's last health answer may be and still answer for it. */
const HEALTH_STALE_MS = 3_000;

/** How long the application's thread may take to close (its streams ended, its connections let go). */
const CLOSE_WAIT_MS = 5_000;

interface Pending {
  resolve(response: Response): void;
  reject(err: Error): void;
  stream?: ReadableStreamDefaultController<Uint8Array>;
}

export interface ThreadedDeps {
  config: Config;
  db: Database;
  logger: Logger;
  memory: MemoryPlan;
  /** The application's thread ended unexpectedly: nothing can be computed any more. */
  onExit(code: number): void;
}

/**
 * The front on this thread and the application on its own, once the application has answered its first
 * list. A catalogue too large for the budget rejects with CatalogueTooLarge, as createApp does.
 */
export async function createThreadedApp({ config, db, logger, memory, onExit }: ThreadedDeps): Promise<Serving> {
  const input: BackInput = { config, memory, database: { url: db.url, kind: db.kind } };
  const worker = startWorker(backFile, input);
  const send = (message: ToBack) => worker.postMessage(message);
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let version = 0;
  let cacheable = true;
  let closing = false;

  // Only for what the front reads of a URL (its reuse key, its route); the application parses its own.
  const rest = createRestFacade({
    logger,
    rateLimited: config.rateLimitPerMinute > 0,
    maxUrlBytes: requestCaches(memory.caches.requests).restUrls,
  });
  const made: { front?: Front } = {};
  const figures = (): FrontFigures => {
    const own = made.front?.figures() ?? NO_FRONT;
    return { ...own, caches: { ...own.caches, requests: rest.stats() } };
  };
  const metrics = createMetrics(
    { caches: () => figures().caches, dataVersion: () => version, dataAgeSeconds: () => null },
    { worker: FRONT_LABEL },
  );
  registerOverloadMetrics(metrics.registry, () => ({ inFlight: figures().inFlight, lane: cpuLane.figures() }));

  /** The application's last report (every second): its metrics and its health answer. */
  let last: { at: number; metrics: MetricsJson; health: Answer } | null = null;
  const reportAge = () => (last ? (performance.now() - last.at) / 1000 : null);
  new Gauge({
    name: 'savings_app_report_age_seconds',
    help:
      "Seconds since the application's thread last reported its metrics and health (every second); the " +
      'figures of that thread in this scrape are that old. Growing: the thread is stuck.',
    registers: [metrics.registry],
    collect() {
      this.reset();
      const age = reportAge();
      if (age !== null) this.set(age);
    },
  });
  const scrape = {
    contentType: metrics.contentType,
    text: async () => aggregateMetrics([await metrics.registry.getMetricsAsJSON(), last?.metrics ?? []]),
  };

  /**
   * What the front answers itself: the scrape, from its own registry and the application's last report;
   * health, from the application's last answer to it while that is recent (the health check's own probes
   * are reused for as long, src/catalog/health.ts). An application thread that has not reported for longer
   * is asked, and its health is as slow as it is.
   */
  function answeredHere(request: Request): Promise<Response> | Response | null {
    const url = new URL(request.url);
    if (url.pathname === PATHS.metrics) return metricsAnswer(request.method, scrape);
    if (url.pathname !== PATHS.health || url.search !== '' || !last) return null;
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    if (performance.now() - last.at > HEALTH_STALE_MS) return null;
    return new Response(request.method === 'HEAD' ? null : last.health.body, {
      status: last.health.status,
      headers: last.health.headers,
    });
  }

  /** An answer computed on the application's thread: the request goes over whole, its answer comes back. */
  async function upstream(request: Request): Promise<Response> {
    const here = answeredHere(request);
    if (here) return here;
    const scope = requestScope.getStore();
    const id = nextId++;
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.arrayBuffer();
    const answered = new Promise<Response>((resolve, reject) => pending.set(id, { resolve, reject }));
    const gone = () => send({ t: 'abort', id, reason: 'gone' });
    request.signal.addEventListener('abort', gone, { once: true });
    // The front answers 503 when the time is up (handler.ts) and aborts this: the calculation stops too.
    if (scope) scope.expiry ??= new AbortController();
    scope?.expiry?.signal.addEventListener('abort', () => send({ t: 'abort', id, reason: 'expired' }), { once: true });
    send(
      {
        t: 'request',
        id,
        method: request.method,
        url: request.url,
        headers: [...request.headers],
        body,
        requestId: scope?.id ?? '',
        client: scope?.client ?? 'local',
        deadlineInMs: scope?.deadline !== undefined ? scope.deadline - performance.now() : config.requestTimeoutMs,
      },
      // Copied, not moved: a body read from the socket may be a view into a buffer shared with others.
    );
    return answered;
  }

  function received(m: Extract<ToFront, { t: 'head' | 'chunk' | 'end' }>): void {
    const waiting = pending.get(m.id);
    if (!waiting) return;
    if (m.t === 'head') {
      cacheable = m.cacheable;
      const init = { status: m.status, headers: m.headers };
      if (!m.streamed) {
        pending.delete(m.id);
        return waiting.resolve(new Response(m.body, init));
      }
      const stream = new ReadableStream<Uint8Array>({
        start: (controller) => void (waiting.stream = controller),
        // The front stopped reading (its client went): the application stops producing.
        cancel: () => {
          pending.delete(m.id);
          send({ t: 'abort', id: m.id, reason: 'gone' });
        },
      });
      return waiting.resolve(new Response(stream, init));
    }
    if (m.t === 'chunk') return waiting.stream?.enqueue(m.data);
    pending.delete(m.id);
    if (!waiting.stream) return waiting.reject(new Error(m.error ?? 'the application ended the answer'));
    if (m.error) waiting.stream.error(new Error(m.error));
    else waiting.stream.close();
  }

  const ready = new Promise<number>((resolve, reject) => {
    worker.on('message', (m: ToFront) => {
      switch (m.t) {
        case 'head':
        case 'chunk':
        case 'end':
          return received(m);
        case 'state':
          if (m.version !== version) made.front?.newVersion();
          version = m.version;
          cacheable = m.cacheable;
          return;
        case 'lag':
          return made.front?.lagged(m.ms);
        case 'figures':
          return send({ t: 'figures', id: m.id, value: figures() });
        case 'report':
          last = { at: performance.now(), metrics: m.metrics as MetricsJson, health: m.health };
          return;
        case 'ready':
          version = m.version;
          return resolve(m.warmUpMs);
        case 'failed':
          return reject(m.tooLarge ? new CatalogueTooLarge(m.tooLarge) : new Error(m.message));
        case 'closed':
          return void worker.terminate();
      }
    });
    worker.once('error', (err) => {
      logger.error({ err }, 'the application thread failed');
      reject(err);
    });
    worker.once('exit', (code) => {
      for (const waiting of pending.values()) {
        const err = new Error('the application thread ended');
        if (waiting.stream) waiting.stream.error(err);
        else waiting.reject(err);
      }
      pending.clear();
      reject(new Error(`the application thread ended (exit code ${code})`));
      if (!closing) onExit(code);
    });
  });
  await ready.catch(async (err: unknown) => {
    closing = true;
    await worker.terminate();
    throw err;
  });

  const front = (made.front = await createFront({
    config,
    logger,
    clock: () => new Date(),
    upstream,
    rest,
    memory,
    version: () => version,
    cacheable: () => cacheable,
    observe: (method, route, status, seconds) => metrics.observeRequest(method, route, status, seconds),
    link: null,
  }));

  return {
    fetch: front.http.fetch,
    listener: front.http.listener,
    clientError: front.http.clientError,
    caches: () => figures().caches,
    closeStreams: () => send({ t: 'closeStreams' }),
    refresh: () => send({ t: 'refresh' }),
    warmUp: () => ready,
    async close() {
      closing = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      send({ t: 'close' });
      // The thread says when it has let its connections go; one stuck in a query is not waited for long.
      const late = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
      await exited;
      clearTimeout(late);
    },
  };
}
