// The primary of a multi-process service (WORKERS > 1). It serves no HTTP itself: it opens, migrates and
// (on first start) seeds the database, then forks the workers, which share the listening port
// (node:cluster hands each new connection to the next worker). It owns what must be one per service:
// - the embedded database: PGlite is single-process, so the primary serves it on a loopback socket and
//   the workers connect to it like `npm run ingest` does (src/db/embedded.ts); PostgreSQL is used by all;
// - the rate limit's buckets, so that a client's quota is the same however its connections are spread;
// - the news of a new data version: the worker that saw it first tells the others to look now;
// - /metrics and /api/metrics across workers (any worker asks; the primary gathers).
// SIGTERM or SIGINT: every worker stops accepting and drains (its own grace period), then the primary
// closes the database and exits 0. A worker that dies otherwise is replaced, after a delay that grows
// with each death in a row (a worker that cannot load the catalogue would otherwise die and be replaced
// in a loop); while none is alive the primary answers on the port itself (src/cluster/fallback.ts).
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { processRegistry } from '../http/metrics.js';
import { RateLimiter } from '../http/rate-limit.js';
import type { Logger } from '../logger.js';
import type { MemoryPlan } from '../memory.js';
import { Backoff, serveFallback, type Fallback } from './fallback.js';
import { serviceEnv, workerFlags } from './flags.js';
import { stopOnSignals } from './lifecycle.js';
import { isOurs, type ToPrimary, type ToWorker } from './messages.js';
import { aggregateMetrics, combineStats, processFigures } from './stats.js';

export interface PrimaryOptions {
  config: Config;
  logger: Logger;
  flush(): void;
  memory: MemoryPlan;
  /** Opens, migrates and seeds the database (the same steps as a single process takes). */
  prepare(): Promise<Database>;
  startedAt: number;
}

const STATS_TIMEOUT_MS = 3_000;

export async function runPrimary({ config, logger, flush, memory, prepare, startedAt }: PrimaryOptions): Promise<void> {
  const db = await prepare();
  // The primary's own connections were for migrating and seeding; the workers have pools of their own.
  const limiter = config.rateLimitPerMinute > 0 ? new RateLimiter(config.rateLimitPerMinute) : null;
  // The primary's own process figures, beside the workers' in /metrics.
  const ownMetrics = processRegistry('primary');
  let stopping = false;
  let listening = 0;

  cluster.setupPrimary({ execArgv: workerFlags(process.execArgv, memory.heapMb) });

  const send = (worker: Worker, message: ToWorker) => {
    if (worker.isConnected()) worker.send(message);
  };
  const workers = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);

  // Every worker's own figures (or its metrics' JSON), asked for by id; each worker answers once.
  let statsId = 1;
  const statsWaiting = new Map<number, { values: unknown[]; expected: number; done(values: unknown[]): void }>();
  const gatherStats = (what?: 'prometheus') =>
    new Promise<unknown[]>((resolve) => {
      const id = statsId++;
      const targets = workers().filter((w) => w.isConnected());
      const entry = { values: [] as unknown[], expected: targets.length, done: resolve };
      statsWaiting.set(id, entry);
      // A worker that does not answer in time (busy, or just gone) is left out rather than waited for.
      setTimeout(() => {
        if (statsWaiting.delete(id)) resolve(entry.values);
      }, STATS_TIMEOUT_MS).unref();
      for (const worker of targets) send(worker, { savings: 'stats', id, ...(what ? { what } : {}) });
      if (targets.length === 0 && statsWaiting.delete(id)) resolve([]);
    });

  // Restarts: when each worker started, why one said it cannot serve, and the delays ahead.
  const backoff = new Backoff();
  const forkedAt = new Map<number, number>();
  // The workers that listen: while none does, node:cluster has let go of the port and the primary answers.
  const serving = new Set<number>();
  const unfit = new Map<number, { reason: string; capacity: boolean }>();
  const restarts = new Set<NodeJS.Timeout>();
  let fallback: Fallback | null = null;

  const onMessage = (worker: Worker, message: unknown) => {
    if (!isOurs(message)) return;
    const m = message as ToPrimary;
    switch (m.savings) {
      case 'unfit':
        unfit.set(worker.id, { reason: m.reason, capacity: m.capacity });
        return;
      case 'listen': {
        const closing = fallback?.close() ?? Promise.resolve();
        fallback = null;
        void closing.then(() => send(worker, { savings: 'go', id: m.id }));
        return;
      }
      case 'take':
        send(worker, {
          savings: 'taken',
          id: m.id,
          taken: limiter ? limiter.take(m.client) : { retryAfter: 0, remaining: 0, reset: 0 },
        });
        return;
      case 'swapped':
        for (const other of workers()) if (other !== worker) send(other, { savings: 'refresh' });
        return;
      case 'stats': {
        const entry = statsWaiting.get(m.id);
        if (!entry) return;
        entry.values.push(m.value);
        if (entry.values.length >= entry.expected && statsWaiting.delete(m.id)) entry.done(entry.values);
        return;
      }
      case 'gather': {
        const gathered =
          m.what === 'prometheus'
            ? gatherStats('prometheus').then(async (values) =>
                aggregateMetrics([
                  ...(values as Parameters<typeof aggregateMetrics>[0]),
                  await ownMetrics.getMetricsAsJSON(),
                ]),
              )
            : gatherStats().then((values) =>
                combineStats(values, { primary: processFigures(), workers: config.workers }),
              );
        gathered.then(
          (value) => send(worker, { savings: 'gathered', id: m.id, value }),
          (err: Error) => send(worker, { savings: 'failed', id: m.id, error: err.message }),
        );
        return;
      }
    }
  };
  cluster.on('message', onMessage);

  const fork = () => {
    const worker = cluster.fork({ ...serviceEnv(), SAVINGS_WORKER_HEAP_MB: String(memory.heapMb) });
    forkedAt.set(worker.id, Date.now());
  };
  cluster.on('listening', (worker) => {
    serving.add(worker.id);
    if (++listening === config.workers) {
      logger.info(
        { port: config.port, host: config.host, workers: config.workers, startupMs: Date.now() - startedAt },
        `listening on http://${config.host}:${config.port}`,
      );
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const ran = Date.now() - (forkedAt.get(worker.id) ?? Date.now());
    const why = unfit.get(worker.id);
    forkedAt.delete(worker.id);
    unfit.delete(worker.id);
    serving.delete(worker.id);
    if (stopping) return;
    // Anything but a shutdown we asked for: replace it, so the service keeps its capacity.
    const delayMs = backoff.next(ran);
    const reason = why?.reason ?? `a worker stopped (${signal ?? `exit code ${code}`}); another starts`;
    logger.error(
      { worker: worker.id, pid: worker.process.pid, code, signal, ranMs: ran, restartInMs: delayMs, reason },
      'a worker stopped unexpectedly; starting another',
    );
    if (serving.size === 0) {
      fallback ??= serveFallback(config.port, config.host, (err) =>
        logger.error({ err }, 'cannot answer on the port while no worker runs'),
      );
      fallback.say(reason, delayMs / 1000 + 1, why?.capacity ?? false);
    }
    const timer = setTimeout(() => {
      restarts.delete(timer);
      fork();
    }, delayMs);
    restarts.add(timer);
  });
  logger.info(
    { workers: config.workers, heapMbPerWorker: memory.heapMb, memoryBudgetMb: config.memoryBudgetMb },
    'starting the workers',
  );
  for (let i = 0; i < config.workers; i++) fork();

  stopOnSignals({
    config,
    logger,
    flush,
    message: 'shutting down: every worker stops accepting and finishes its requests in flight',
    holdsDatabase: true,
    async drain() {
      stopping = true;
      for (const timer of restarts) clearTimeout(timer);
      await fallback?.close();
      const codes = await Promise.all(
        workers().map(
          (worker) =>
            new Promise<number>((resolve) => {
              if (worker.isDead()) return resolve(worker.process.exitCode ?? 0);
              worker.once('exit', (code: number | null) => resolve(code ?? 1));
              send(worker, { savings: 'shutdown' });
              // A worker that cannot finish in its own grace period (plus time to close) is ended.
              setTimeout(() => worker.process.kill('SIGKILL'), config.shutdownGraceMs + 10_000).unref();
            }),
        ),
      );
      if (codes.some((c) => c !== 0)) logger.error({ codes }, 'a worker did not stop cleanly');
      return codes.every((c) => c === 0);
    },
    close: () => db.close(),
  });
}
