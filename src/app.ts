// Builds the HTTP application without listening: yoga serves GraphQL at /graphql, and the REST facade
// at /api is a projection of the same schema. Tests call app.fetch(); server.ts listens.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { YogaServerInstance } from 'graphql-yoga';
import { createCalcService } from './catalog/calc-service.js';
import { createChangeFeed } from './catalog/change-feed.js';
import { TRANSPORTS } from './catalog/follower.js';
import { dataAgeSeconds } from './catalog/freshness.js';
import { HealthCheck } from './catalog/health.js';
import { createMarketHistory } from './catalog/history.js';
import { watchDataVersion } from './catalog/reload.js';
import { createCatalogStore, type CatalogStore } from './catalog/store.js';
import { Timeline } from './catalog/timeline.js';
import type { Catalog } from './catalog/types.js';
import { StateTexts } from './catalog/ledger.js';
import { processFigures } from './cluster/stats.js';
import type { WorkerLink } from './cluster/worker-link.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { DatabaseStatus } from './db/status.js';
import { currentWriter } from './db/write-turn.js';
import { clipErrors } from './graphql/clip-errors.js';
import type { Context, Services } from './graphql/context.js';
import type { ListBounds } from './graphql/cost.js';
import { listBounds } from './graphql/limits.js';
import { HistoryCache } from './graphql/loaders.js';
import { createPersistedQueryStore } from './graphql/persisted-queries.js';
import { errorsNotReused } from './graphql/reuse-key.js';
import { createGraphqlServer, documentCaches } from './graphql/server.js';
import { MAX_BODY_BYTES } from './http/admission.js';
import { graphiql } from './http/graphiql.js';
import type { HttpHandler } from './http/handler.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { graphqlVariesByAccept, notFound, prometheus } from './http/plugins.js';
import { registerStreamMetrics } from './http/stream-metrics.js';
import { registerOverloadMetrics } from './http/overload-metrics.js';
import { watchLag } from './http/overload.js';
import { cpuLane } from './catalog/lane.js';
import type { Logger } from './logger.js';
import { capacityOf } from './ingest/capacity.js';
import { planMemory, requestCaches, type MemoryPlan } from './memory.js';
import { PATHS } from './request/paths.js';
import { createRestFacade, type RestFacade } from './rest/facade.js';
import { adapts, createFront, NO_FRONT, type Front, type FrontFigures } from './front.js';
import { restSpelling } from './rest/spelling.js';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** The wall clock; tests hold it still. */
  clock?: () => Date;
  /** How this process's caches are sized (by default its share of MEMORY_BUDGET_MB). */
  memory?: MemoryPlan;
  /** In a worker of several: the way to the primary (shared rate limit, reload news, figures of all). */
  link?: WorkerLink | null;
}

/** The `worker` label of each thread's own metrics when the front is on a thread of its own. */
export const FRONT_LABEL = 'front';
export const BACK_LABEL = 'app';

export interface BackendDeps extends AppDeps {
  /**
   * The front, when it is on this thread: its caches and its bound are part of this thread's metrics. On
   * another thread (src/threads/) it keeps metrics of its own, and `figures` asks it for its part.
   */
  front?: () => FrontFigures;
  remoteFront?: () => Promise<FrontFigures>;
}

/** The application without its HTTP front: the data, the calculation, yoga, the metrics of what it holds. */
export interface Backend {
  services: Services;
  yoga: YogaServerInstance<Record<string, unknown>, Context>;
  metrics: Metrics;
  rest: RestFacade;
  /** This process's share of the budget, of which the front's caches take their parts. */
  plan: MemoryPlan;
  /** Entries, bytes and bounds of every cache the application keeps. */
  caches(): Record<string, unknown>;
  closeStreams(): void;
  close(): Promise<void>;
  refresh(): void;
  warmUp(): Promise<number>;
}

/** What a server listens with: the front, whichever thread the application is on. */
export interface Serving {
  fetch(request: Request): Promise<Response>;
  /** node:http request listener */
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** node:http 'clientError' listener (requests Node could not parse). */
  clientError: HttpHandler['clientError'];
  /** Entries, bytes and bounds of every cache this process keeps (its part of /metrics and /api/metrics). */
  caches(): Record<string, unknown>;
  /** Ends every change stream and subscription and refuses new ones (the first step of a shutdown). */
  closeStreams(): void;
  /** Ends the streams and stops watching for new data (the database itself is the caller's). */
  close(): Promise<void>;
  /** Looks for a new data version now (another worker saw one). */
  refresh(): void;
  /** Answers the default list once, to no client (see below); resolves with the milliseconds it took. */
  warmUp(): Promise<number>;
}

export interface App extends Serving {
  services: Services;
  yoga: YogaServerInstance<Record<string, unknown>, Context>;
}

/** The application with its front on the same thread: the default, the tests, a cluster's workers. */
export async function createApp(deps: AppDeps): Promise<App> {
  const { config, logger, clock = () => new Date(), link } = deps;
  // The backend reports the front's figures, and the front is made from what the backend holds.
  const made: { front?: Front } = {};
  const backend = await createBackend({
    ...deps,
    front: () => made.front?.figures() ?? NO_FRONT,
  });
  const { services, yoga, metrics } = backend;
  const front = (made.front = await createFront({
    config,
    logger,
    clock,
    upstream: async (request) => yoga.fetch(request),
    direct: (asked) => backend.rest.answer(asked),
    rest: backend.rest,
    memory: backend.plan,
    version: () => services.store.current().version,
    cacheable: () => services.database.ok(),
    observe: (method, route, status, seconds) => metrics.observeRequest(method, route, status, seconds),
    link: link ?? null,
  }));
  services.store.onSwap(() => front.newVersion());
  const { http } = front;
  // The bound follows the loop's lag (the latency every request here shares) and its answers' time, both
  // judged in the lag watcher's windows.
  const stopWatchingLag = front.inFlight && adapts(config) ? watchLag((lag) => front.lagged(lag)) : () => {};
  return {
    fetch: http.fetch,
    listener: http.listener,
    clientError: http.clientError,
    services,
    caches: () => ({ ...backend.caches(), ...front.caches() }),
    yoga,
    closeStreams: backend.closeStreams,
    refresh: backend.refresh,
    warmUp: backend.warmUp,
    async close() {
      stopWatchingLag();
      await backend.close();
    },
  };
}

export async function createBackend({
  config,
  db,
  logger,
  clock = () => new Date(),
  memory,
  link,
  front = () => NO_FRONT,
  remoteFront,
}: BackendDeps): Promise<Backend> {
  const cluster = link ?? null;
  // How much each part may keep: this process's share of MEMORY_BUDGET_MB (src/memory.ts).
  const plan =
    memory ??
    planMemory({ budgetMb: config.memoryBudgetMb, workers: config.workers, embedded: db.kind === 'embedded' });
  const budget = plan.caches;
  const requestBytes = requestCaches(budget.requests);

  // The data: the catalogue and its calculations, the database's reads, the change feed.
  const store = await createCatalogStore(db.prisma, capacityOf(config, plan.maxOffers));
  const calc = createCalcService({ maxBytes: budget.calc });
  // A piece of the calculation per offer, where the budget has room for it; a larger catalogue is served
  // all the same, each list tracing the market again (at 13,000 offers 0.6–1.6 s a list against 0.06–0.16 s).
  const holdPieces = (catalog: Catalog) => {
    if (!calc.holdPassOver(catalog, plan.heldOffers))
      logger.warn(
        { offers: catalog.offers.length, heldOffers: plan.heldOffers },
        "more active offers than this process's share of MEMORY_BUDGET_MB keeps calculation pieces for: " +
          'every list calculates the market again; a larger budget makes lists several times faster',
      );
  };
  holdPieces(store.current());
  store.onSwap(holdPieces);
  // The market view per window of days (up to 3,650): a quarter of the database reads' part; past
  // versions' catalogues (asOf) another quarter.
  const marketBytes = Math.floor(budget.history / 4);
  const market = createMarketHistory(db.prisma, marketBytes);
  const timeline = new Timeline(db.prisma, store, Math.floor(budget.history / 4));
  // canonical states (GET /api/state): a few, from the request caches' part
  const states = new StateTexts(db.prisma, Math.floor(budget.requests / 4));
  const history = new HistoryCache(budget.history - 2 * marketBytes);
  const database = new DatabaseStatus();
  const healthCheck = new HealthCheck(db.prisma, database, async () => (await currentWriter(config)) !== null);
  const changes = await createChangeFeed({
    prisma: db.prisma,
    store,
    logger,
    database,
    maxPerClient: config.streamsPerIp,
    replayEvents: config.streamReplayEvents,
    heartbeatMs: config.streamHeartbeatMs,
  });

  // What requests leave behind, each bounded by bytes: documents, persisted queries, parsed URLs, route
  // labels, finished answers.
  const documents = documentCaches({ ...requestBytes, compiledQueries: budget.compiledQueries });
  // Documents registered by hash (APQ), in the database so that every worker and instance knows them.
  const persistedQueries = createPersistedQueryStore({
    prisma: db.prisma,
    database,
    logger,
    cacheBytes: requestBytes.persistedQueries,
  });
  const rest = createRestFacade({
    logger,
    rateLimited: config.rateLimitPerMinute > 0,
    maxUrlBytes: requestBytes.restUrls,
  });
  // What the process reports: its caches, its figures (/api/metrics), its metrics (/metrics). The front's
  // (finished answers, GraphQL URLs, route labels) are its own.
  const caches = () => ({
    calculator: calc.stats(),
    history: history.stats(),
    market: market.stats(),
    // past versions' catalogues, loaded for asOf
    pastCatalogues: timeline.stats(),
    states: states.stats(),
    ...documents.stats(),
    persistedQueries: persistedQueries.stats(),
    // REST URLs and their parsed parameters (named before GraphQL URLs had a cache of their own).
    requests: rest.stats(),
  });
  const ownFigures = async () => {
    const catalog = store.current();
    const frontPart = remoteFront ? await remoteFront() : front();
    return {
      process: processFigures(),
      data: { version: catalog.version, offers: catalog.offers.length },
      caches: { ...caches(), ...frontPart.caches },
      streams: changes.stats(),
      load: { inFlight: frontPart.inFlight, lane: cpuLane.figures() },
    };
  };
  const metrics = createMetrics(
    {
      caches: () => ({ ...caches(), ...front().caches }),
      dataVersion: () => store.current().version,
      dataAgeSeconds: () => dataAgeSeconds(store.current().lastObservedAt, clock()),
    },
    // Behind a front on another thread, each thread's own figures (heap, event loop) are told apart.
    cluster ? { worker: String(cluster.worker) } : remoteFront ? { worker: BACK_LABEL } : {},
  );
  registerStreamMetrics(metrics.registry, TRANSPORTS, () => changes.stats());
  registerOverloadMetrics(metrics.registry, () => ({ inFlight: front().inFlight, lane: cpuLane.figures() }));
  cluster?.useRegistry(metrics.registry);
  cluster?.onStats(ownFigures);

  // What every resolver gets.
  const services: Services = {
    prisma: db.prisma,
    store,
    calc,
    market,
    config,
    clock,
    health: () => healthCheck.report(store.current(), clock(), config.maxDataAgeSeconds, store.refused() !== null),
    figures: cluster ? () => cluster.gatherStats() : ownFigures,
    history,
    database,
    changes,
    timeline,
    states,
  };

  // GraphQL, with the front's plugins in front of it; then the HTTP front around both.
  const yoga = createGraphqlServer({
    services,
    caches: documents,
    persistedQueries,
    bounds: listBoundsPerVersion(store),
    front: [
      graphiql(),
      clipErrors(),
      prometheus(cluster ? { ...metrics, text: () => cluster.gatherPrometheus() } : metrics),
      notFound(),
      graphqlVariesByAccept(),
      errorsNotReused(),
      rest.plugin,
      restSpelling(),
    ],
    maxBodyBytes: MAX_BODY_BYTES,
    logger,
  });
  // New data: looked for, and in a cluster told to the other workers, so that they all answer from it
  // within moments rather than each at its own next poll.
  const watcher = watchDataVersion(store, {
    pollMs: config.reloadPollMs,
    listenUrl: db.kind === 'postgresql' ? db.url : undefined,
    logger,
    database,
  });
  if (cluster) {
    store.onSwap((catalog) => cluster.swapped(catalog.version));
    cluster.onRefresh(() => watcher.refresh('another worker loaded new data'));
  }

  return {
    services,
    yoga,
    metrics,
    rest,
    plan,
    caches,
    closeStreams: () => changes.close(),
    refresh: () => watcher.refresh('asked'),
    // The first list a process answers pays for compiling its query and for the calculation's first runs
    // (≈250 ms here, against ≈20 ms later): paid by a client's request, it stalls everything that arrived
    // with it, health too. Asked of yoga directly, it is neither logged nor counted nor kept by the body
    // cache; the compiled query and the calculation's caches are what it leaves.
    async warmUp() {
      const started = performance.now();
      for (const target of [`${PATHS.api}/products`, `${PATHS.graphql}?query=%7B__typename%7D`, PATHS.graphql])
        await (await yoga.fetch(new Request(`http://localhost${target}`))).arrayBuffer();
      return performance.now() - started;
    },
    async close() {
      changes.close();
      await watcher.stop();
    },
  };
}

/** The list lengths the data allows, for the cost estimate: worked out once per data version. */
function listBoundsPerVersion(store: CatalogStore): () => ListBounds {
  let last: { version: number; bounds: ListBounds } | undefined;
  return () => {
    const catalog = store.current();
    if (last?.version !== catalog.version) last = { version: catalog.version, bounds: listBounds(catalog) };
    return last.bounds;
  };
}
