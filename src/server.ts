// Starts the service: configuration, database (migrated), sample data on first start, then listen.
// On SIGTERM or SIGINT it stops accepting, ends the change streams, lets requests in flight finish (for
// a bounded time), closes the database and exits 0.
// With WORKERS > 1 this process becomes the primary of a cluster (src/cluster/primary.ts) and the same
// file runs in each worker, which serves HTTP on the shared port and shuts down when the primary says.
import cluster from 'node:cluster';
import http from 'node:http';
import { createApp, type Serving } from './app.js';
import { MAX_HEADER_BYTES } from './http/node-writer.js';
import { CatalogueTooLarge } from './catalog/store.js';
import { Backoff, serveFallback, type Fallback } from './cluster/fallback.js';
import { stopOnSignals } from './cluster/lifecycle.js';
import { runPrimary } from './cluster/primary.js';
import { workerLink, type WorkerLink } from './cluster/worker-link.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { frontsThread, memoryPlanOf } from './memory.js';
import { openDatabase, type Database } from './db/client.js';
import { serviceLogger, type Logger } from './logger.js';
import { openAndSeed, startAgainAfterSeeding } from './first-start.js';
import { createThreadedApp } from './threads/front.js';

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/**
 * Opens the database, migrates it and on first start seeds it: writes, each in a turn among the writers
 * (see db/write-turn.ts). On the embedded database the turn comes first: an ingest that runs while no
 * service does has the data folder open and closes it when done, so the service waits for it and then
 * opens the folder itself.
 */
async function openAndPrepare(config: Config, logger: Logger, flush: () => void): Promise<Database> {
  const { db, seeded } = await openAndSeed(config, logger);
  if (seeded) await startAgainAfterSeeding(config, db, logger, flush);
  return db;
}

/** A worker that cannot serve exits with this code after telling the primary why (EX_CONFIG). */
const EXIT_UNFIT = 78;

/**
 * The app, once its catalogue fits. One that does not (src/catalog/store.ts) is not a crash to repeat: a
 * worker says why and exits, and its primary restarts it with growing delays; a single process answers
 * on the port itself meanwhile (503, health with the reason) and tries again with growing delays, so a
 * repair ingest or a raised budget brings it back without an operator restarting it.
 */
async function appOrFallback(
  create: () => Promise<Serving>,
  config: Config,
  logger: Logger,
  link: WorkerLink | null,
  flush: () => void,
): Promise<Serving> {
  const backoff = new Backoff();
  let fallback: Fallback | null = null;
  for (;;) {
    try {
      const app = await create();
      await fallback?.close();
      return app;
    } catch (err) {
      if (!(err instanceof CatalogueTooLarge)) throw err;
      logger.error({ ...err.refused }, err.message);
      if (link) {
        await link.unfit(err.message, true);
        flush();
        process.exit(EXIT_UNFIT);
      }
      const delayMs = Math.max(1_000, backoff.next(0));
      fallback ??= serveFallback(config.port, config.host, (e) =>
        logger.error({ err: e }, 'cannot answer on the port'),
      );
      fallback.say(err.message, delayMs / 1000, true);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

async function main() {
  const started = Date.now();
  const config = configOrExit();
  const worker = cluster.isWorker ? cluster.worker!.id : null;
  const memory = memoryPlanOf(config);
  const { logger: processLogger, flush } = serviceLogger(config.logLevel, {
    shared: worker !== null || config.workers > 1 || frontsThread(config.workers, config.computeThread),
  });
  const link = workerLink();
  const logger = worker === null ? processLogger : processLogger.child({ worker });
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));
  process.on('uncaughtException', (err) => {
    // The process may be in any state now: say so and leave it to the supervisor to start a fresh one.
    logger.fatal({ err }, 'uncaught exception; exiting');
    flush();
    process.exit(1);
  });

  if (worker === null && config.workers > 1) {
    return runPrimary({
      config,
      logger,
      flush,
      memory,
      prepare: () => openAndPrepare(config, logger, flush),
      startedAt: started,
    });
  }
  // A worker finds the database ready: the primary migrated and seeded it, and serves the embedded one.
  const db =
    worker === null
      ? await openAndPrepare(config, logger, flush)
      : await openDatabase({ ...config, migrate: false, writeTurn: 'held' });

  // A single process computes on a thread of its own (src/threads/); a cluster's worker on its one thread.
  const threaded = worker === null && frontsThread(config.workers, config.computeThread);
  const create = threaded
    ? () =>
        createThreadedApp({
          config,
          db,
          logger,
          memory,
          onExit(code) {
            // Nothing can be computed any more: the supervisor starts a fresh process.
            logger.fatal({ code }, 'the application thread ended; exiting');
            flush();
            process.exit(1);
          },
        })
    : () => createApp({ config, db, logger, memory, link });
  const app = await appOrFallback(create, config, logger, link, flush);
  const server = http.createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: 60_000, // to receive a whole request
      headersTimeout: 15_000,
      keepAliveTimeout: 5_000,
      // Clients are told 5 s and let an idle connection go a second before; the server closes it later,
      // so that a busy moment (the loop late by a few seconds under overload) does not close a connection
      // a client has just sent a request on (it would see ECONNRESET).
      keepAliveTimeoutBuffer: 5_000,
    },
    app.listener,
  );
  server.on('clientError', app.clientError);
  // Before listening: the first list's one-off cost (app.ts) is then paid before anyone can wait behind it,
  // and the time to a first list answered is the same.
  await app.warmUp().then(
    (ms) => logger.debug({ ms: Math.round(ms) }, 'answered the default list once, to no client'),
    (err: unknown) => logger.warn({ err }, 'could not answer the default list before listening'),
  );
  await link?.beforeListen();
  server.listen(config.port, config.host, () => {
    const where = { port: config.port, host: config.host, startupMs: Date.now() - started };
    // In a cluster the primary says it once all workers listen.
    if (worker === null) logger.info(where, `listening on http://${config.host}:${config.port}`);
    else logger.debug(where, 'worker listening');
  });

  const stop = stopOnSignals({
    config,
    logger,
    flush,
    message: 'shutting down: no new connections; finishing the requests in flight',
    holdsDatabase: worker === null,
    async drain() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open change streams would hold their connections for as long as their clients stay: ended here
      // (their clients resume elsewhere with Last-Event-ID), they finish like any other answer.
      app.closeStreams();
      // A keep-alive connection whose last request just finished would otherwise wait out the grace period.
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      sweep.unref();
      const force = setTimeout(() => {
        logger.warn('requests still running at the end of the grace period; closing their connections');
        server.closeAllConnections();
      }, config.shutdownGraceMs);
      force.unref();
      await closed;
      clearTimeout(force);
      clearInterval(sweep);
      return true;
    },
    async close() {
      await app.close();
      await db.close();
    },
  });
  link?.onShutdown(() => stop('the primary is shutting down'));
}

main().catch((err: Error) => {
  console.error(`failed to start: ${err.message}`);
  process.exit(1);
});
