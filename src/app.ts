// Builds the HTTP application without listening: yoga serves GraphQL at /graphql, and the REST facade
// at /api is a projection of the same schema. Tests call app.fetch(); server.ts listens.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { useGraphQlJit, type JITCache } from '@envelop/graphql-jit';
import { useAPQ } from '@graphql-yoga/plugin-apq';
import { getOperationAST, type GraphQLError } from 'graphql';
import { createYoga, maskError, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { DocumentNode } from 'graphql';
import { createCalcService } from './catalog/calc-service.js';
import { createChangeFeed } from './catalog/change-feed.js';
import { HealthCheck } from './catalog/health.js';
import { createMarketHistory } from './catalog/history.js';
import { watchDataVersion } from './catalog/reload.js';
import { createCatalogStore } from './catalog/store.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { createContext, type Context, type Services } from './graphql/context.js';
import { HistoryCache } from './graphql/loaders.js';
import { DatabaseStatus } from './db/status.js';
import type { ListBounds } from './graphql/cost.js';
import { listBounds, OPERATION_LIMITS, operationLimits } from './graphql/limits.js';
import { variableErrors } from './graphql/variable-errors.js';
import { batchesWithoutStreams } from './graphql/batches.js';
import { schema } from './graphql/schema/index.js';
import { graphiql, graphiqlFiles } from './http/graphiql.js';
import { allOf } from './http/static.js';
import { BodyCache } from './http/body-cache.js';
import { createHttpHandler, MAX_BODY_BYTES, type HttpHandler } from './http/handler.js';
import { clipErrors, clipped } from './graphql/clip-errors.js';
import { problemResponse } from './http/problem.js';
import { currentRequestId } from './http/request-context.js';
import { loadWebPage } from './http/web.js';
import type { Logger } from './logger.js';
import { createGraphqlReuse, errorsNotReused } from './graphql/reuse-key.js';
import { useKnownOperationTypes } from './graphql/operation-types.js';
import { createPersistedQueryStore } from './graphql/persisted-queries.js';
import { registerStreamMetrics } from './http/stream-metrics.js';
import { createRestFacade } from './rest/facade.js';
import { matchRoute } from './rest/index.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { CACHE_CONTROL } from './http/layer.js';
import { dataAgeSeconds } from './catalog/freshness.js';
import { restSpelling } from './rest/spelling.js';
import { processFigures } from './cluster/stats.js';
import type { WorkerLink } from './cluster/worker-link.js';
import { planMemory, requestCaches, type MemoryPlan } from './memory.js';

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

export interface App {
  fetch(request: Request): Promise<Response>;
  /** node:http request listener */
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** node:http 'clientError' listener (requests Node could not parse). */
  clientError: HttpHandler['clientError'];
  services: Services;
  yoga: YogaServerInstance<Record<string, unknown>, Context>;
  /** Ends every change stream and subscription and refuses new ones (the first step of a shutdown). */
  closeStreams(): void;
  /** Ends the streams and stops watching for new data (the database itself is the caller's). */
  close(): Promise<void>;
  /** Looks for a new data version now (another worker saw one). */
  refresh(): void;
}

/**
 * A document that fails validation is not kept among the parsed documents: what the validation found
 * (up to 100 errors, each with its message and locations) stays with the document in yoga's validation
 * cache for as long as the document does, far more than the document's own size counts for. Junk
 * documents are parsed again when they come again; the ones clients use stay.
 */
function forgetInvalidDocuments(documents: LRUCache<string, DocumentNode>): Plugin {
  return {
    onValidate({ params }) {
      return ({ result }) => {
        const source = params.documentAST.loc?.source.body;
        if (result.length > 0 && source !== undefined) documents.delete(source);
      };
    },
  };
}

/**
 * Paths that are neither GraphQL, its assets nor the REST API: a problem+json 404 ("/" leads to the docs when the page
 * is not built).
 */
function notFound(): Plugin {
  return {
    onRequest({ url, endResponse }) {
      const path = url.pathname;
      if (
        path === '/graphql' ||
        path === '/api' ||
        path.startsWith('/api/') ||
        path === '/_yoga/health' ||
        path === '/metrics'
      )
        return;
      if (path === '/') return endResponse(new Response(null, { status: 302, headers: { location: '/api/docs' } }));
      endResponse(
        problemResponse(
          'NOT_FOUND',
          `There is nothing at ${path}. The API is at /api (described at /api/docs) and GraphQL at /graphql.`,
        ),
      );
    },
  };
}

/** GET /metrics: Prometheus text for the operator's scraper; never cached. */
function prometheus(metrics: Metrics): Plugin {
  return {
    onRequest({ url, request, endResponse }) {
      if (url.pathname !== '/metrics') return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return endResponse(
          problemResponse('METHOD_NOT_ALLOWED', `${request.method} is not allowed on /metrics.`, undefined, {
            allow: 'GET, HEAD',
          }),
        );
      }
      return metrics.text().then((text) =>
        endResponse(
          new Response(text, {
            headers: { 'content-type': metrics.contentType, 'cache-control': CACHE_CONTROL.none },
          }),
        ),
      );
    },
  };
}

/** The GraphQL endpoint answers GraphiQL's page or JSON at one URL, chosen by Accept. */
function graphqlVariesByAccept(): Plugin {
  return {
    onResponse({ request, response }) {
      if (new URL(request.url).pathname === '/graphql') response.headers.set('vary', 'Accept');
    },
  };
}

/**
 * A GraphQLError raised on purpose, not one wrapping some other exception. Checked by name, not by
 * class: graphql-jit loads graphql's CommonJS build, whose GraphQLError is another class.
 */
function isOriginalGraphQLError(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'GraphQLError') return false;
  const original = (error as GraphQLError).originalError;
  return original == null || isOriginalGraphQLError(original);
}

/** A compiled operation is generated code: a product list's is several hundred KB. */
const COMPILED_QUERY_BYTES = 400 * 1024;
/** A parsed document held for reuse, per character of its text (its AST and locations). */
const DOCUMENT_BYTES_PER_CHAR = 40;
/** A parse error kept per document: the error, its location and message (the document is its key). */
const DOCUMENT_ERROR_BYTES = 1024;

export async function createApp({ config, db, logger, clock = () => new Date(), memory, link }: AppDeps): Promise<App> {
  const plan =
    memory ??
    planMemory({ budgetMb: config.memoryBudgetMb, workers: config.workers, embedded: db.kind === 'embedded' });
  const budget = plan.caches;
  const requestBytes = requestCaches(budget.requests);
  const store = await createCatalogStore(db.prisma, plan.maxOffers);
  const calc = createCalcService({ maxBytes: budget.calc });
  // The market view per window of days (up to 3,650): a quarter of the database reads' part.
  const marketBytes = Math.floor(budget.history / 4);
  const market = createMarketHistory(db.prisma, marketBytes);
  const database = new DatabaseStatus();
  const healthCheck = new HealthCheck(db.prisma, database);
  const changes = await createChangeFeed({
    prisma: db.prisma,
    store,
    logger,
    database,
    maxPerClient: config.streamsPerIp,
    replayEvents: config.streamReplayEvents,
    heartbeatMs: config.streamHeartbeatMs,
  });
  // Documents GraphQL clients send, parsed once: bounded by their size, not their number (a client may
  // send any number of distinct documents, each up to the token limit).
  const documents = new LRUCache<string, DocumentNode>({
    maxSize: requestBytes.documents,
    maxEntrySize: Math.floor(requestBytes.documents / 4),
    sizeCalculation: (_doc, key) => key.length * DOCUMENT_BYTES_PER_CHAR + 256,
  });
  const documentErrors = new LRUCache<string, object>({
    maxSize: requestBytes.documentErrors,
    sizeCalculation: (_e, key) => key.length * 2 + DOCUMENT_ERROR_BYTES,
  });
  // A compiled query of the product list is several hundred KB of generated code: the REST routes use a
  // handful of fixed documents; the rest of this room is for the distinct documents GraphQL clients send.
  // Keyed by the document's text (up to the body limit), counted too. graphql-jit also keeps a compiled
  // query with its parsed document (a WeakMap), so one evicted here takes its document out of the parsed
  // ones: else every document kept there would keep its compiled query alive, uncounted.
  const compiledQueries = new LRUCache<string, NonNullable<ReturnType<JITCache['get']>>>({
    maxSize: Math.max(4 * COMPILED_QUERY_BYTES, budget.compiledQueries),
    sizeCalculation: (_compiled, key) => COMPILED_QUERY_BYTES + 2 * key.length,
    dispose: (_compiled, key, reason) => {
      if (reason !== 'set') documents.delete(key);
    },
  });
  // Documents registered by hash (APQ), in the database so that every worker and instance knows them.
  const persistedQueries = createPersistedQueryStore({
    prisma: db.prisma,
    database,
    logger,
    cacheBytes: requestBytes.persistedQueries,
  });
  const graphqlReuse = createGraphqlReuse(requestBytes.graphqlUrls);
  const services: Services = {
    prisma: db.prisma,
    store,
    calc,
    market,
    config,
    clock,
    health: () => healthCheck.report(store.current(), clock(), config.maxDataAgeSeconds, store.refused() !== null),
    caches: () => ({}),
    history: new HistoryCache(budget.history - marketBytes),
    database,
    changes,
  };

  // The list lengths the data allows, for the cost estimate: worked out once per data version.
  let boundsOf: { version: number; bounds: ListBounds } | undefined;
  const bounds = () => {
    const catalog = store.current();
    if (boundsOf?.version !== catalog.version) boundsOf = { version: catalog.version, bounds: listBounds(catalog) };
    return boundsOf.bounds;
  };
  const metrics = createMetrics(
    {
      caches: () => services.caches(),
      dataVersion: () => store.current().version,
      dataAgeSeconds: () => dataAgeSeconds(store.current().lastObservedAt, clock()),
    },
    link ? { worker: String(link.worker) } : {},
  );
  registerStreamMetrics(metrics.registry, () => changes.stats());
  const cluster = link ?? null;
  cluster?.useRegistry(metrics.registry);
  const rest = createRestFacade({
    logger,
    metrics: async () => (cluster ? cluster.gatherStats() : processMetrics()),
    rateLimited: config.rateLimitPerMinute > 0,
    maxUrlBytes: requestBytes.restUrls,
  });
  /**
   * The route a path belongs to, for the metrics: its template, never the raw path. Remembered per path
   * (every answer is counted, a cache hit too), bounded by bytes: paths are the client's, up to 8 KB.
   */
  const routeLabels = new LRUCache<string, string>({
    maxSize: Math.max(4096, requestBytes.routeLabels),
    sizeCalculation: (label, path) => 2 * (path.length + label.length) + 64,
  });
  const routeLabel = (path: string): string => {
    if (path === '/graphql' || path === '/metrics' || path === '/') return path;
    if (path.startsWith('/graphiql/')) return '/graphiql/{asset}';
    if (path.startsWith('/assets/')) return '/assets/{file}';
    let label = routeLabels.get(path);
    if (label === undefined) {
      label = matchRoute(rest.routes, path)?.route.path ?? 'unmatched';
      routeLabels.set(path, label);
    }
    return label;
  };
  const yoga = createYoga<Record<string, unknown>, Context>({
    schema,
    context: () => createContext(services),
    graphqlEndpoint: '/graphql',
    // yoga answers every URL ending in /health itself unless told otherwise; /api/health is ours.
    healthCheckEndpoint: '/_yoga/health',
    landingPage: false,
    logging: false,
    parserAndValidationCache: { documentCache: documents, errorCache: documentErrors },
    // CORS is the HTTP layer's, one policy for every answer (src/http/cors.ts); yoga's would echo the
    // Origin and allow credentials.
    cors: false,
    // GraphiQL is a page of our own (src/http/graphiql.ts).
    graphiql: false,
    // Clients that batch detail lookups send a JSON array of operations (limits in src/graphql/limits.ts).
    batching: { limit: OPERATION_LIMITS.batch },
    // The HTTP front refuses a declared length above this; yoga cuts a chunked body at the same bound.
    maxRequestBodySize: MAX_BODY_BYTES,
    maskedErrors: {
      // Errors we raise on purpose (GraphQLErrors with a code) reach the client; anything else is
      // logged with the request id and answered as "Unexpected error." without internals.
      maskError(error, message, isDev) {
        if (isOriginalGraphQLError(error)) return clipped(error as GraphQLError);
        const original = (error as { originalError?: unknown }).originalError ?? error;
        logger.error({ requestId: currentRequestId(), err: original }, 'unexpected error');
        return maskError(error, message, isDev);
      },
    },
    plugins: [
      graphiql(),
      clipErrors(),
      prometheus(cluster ? { ...metrics, text: () => cluster.gatherPrometheus() } : metrics),
      notFound(),
      graphqlVariesByAccept(),
      errorsNotReused(),
      rest.plugin,
      restSpelling(),
      useAPQ({ store: persistedQueries }),
      useKnownOperationTypes(),
      ...operationLimits(bounds),
      batchesWithoutStreams(),
      forgetInvalidDocuments(documents),
      variableErrors(),
      // Subscriptions run on graphql-js: graphql-jit 0.8 hands a subscription field's resolver the
      // operation's variables instead of the field's arguments (literal arguments are lost, and the
      // argument checks see the wrong values). A subscription executes one small selection per event.
      useGraphQlJit(
        {},
        {
          cache: compiledQueries,
          enableIf: (args) => getOperationAST(args.document, args.operationName)?.operation !== 'subscription',
        },
      ),
    ],
  });

  // The comparison page (dist/web) and GraphiQL's bundle: files served as they are, through the same front.
  const web = await loadWebPage({ logger });
  const bodies = new BodyCache(budget.bodies);
  store.onSwap(() => bodies.clear()); // new data: every cached answer is of the old version
  const http = createHttpHandler({
    upstream: async (request) => yoga.fetch(request),
    cache: bodies,
    statics: allOf(web.files, graphiqlFiles()),
    reuseKey: (pathAndQuery, accept) =>
      pathAndQuery.startsWith('/graphql') ? graphqlReuse.reuseKey(pathAndQuery, accept) : rest.reuseKey(pathAndQuery),
    cacheable: () => services.database.ok(),
    version: () => store.current().version,
    clock,
    logger,
    rateLimitPerMinute: config.rateLimitPerMinute,
    ...(cluster ? { takeToken: (client: string) => cluster.take(client) } : {}),
    // Health and metrics are never limited: the routes that say so, and the Prometheus scrape.
    counted: (path) => path !== '/metrics' && matchRoute(rest.routes, path)?.route.exemptFromRateLimit !== true,
    trustedProxies: config.trustedProxies,
    requestTimeoutMs: config.requestTimeoutMs,
    observe: (method, path, status, seconds) => metrics.observeRequest(method, routeLabel(path), status, seconds),
  });
  const { fetch, listener } = http;
  const processMetrics = async () => {
    const catalog = store.current();
    return {
      process: processFigures(),
      data: { version: catalog.version, offers: catalog.offers.length },
      caches: services.caches(),
      streams: changes.stats(),
    };
  };
  services.caches = () => ({
    bodies: bodies.stats(),
    calculator: calc.stats(),
    history: services.history.stats(),
    market: market.stats(),
    compiledQueries: {
      entries: compiledQueries.size,
      bytes: compiledQueries.calculatedSize,
      maxBytes: compiledQueries.maxSize,
    },
    documents: { entries: documents.size, bytes: documents.calculatedSize, maxBytes: documents.maxSize },
    documentErrors: {
      entries: documentErrors.size,
      bytes: documentErrors.calculatedSize,
      maxBytes: documentErrors.maxSize,
    },
    persistedQueries: persistedQueries.stats(),
    // REST URLs and their parsed parameters (named before GraphQL URLs had a cache of their own).
    requests: rest.stats(),
    graphqlUrls: graphqlReuse.stats(),
    routeLabels: { entries: routeLabels.size, bytes: routeLabels.calculatedSize, maxBytes: routeLabels.maxSize },
  });
  cluster?.onStats(processMetrics);
  const watcher = watchDataVersion(store, {
    pollMs: config.reloadPollMs,
    listenUrl: db.kind === 'postgresql' ? db.url : undefined,
    logger,
    database: services.database,
  });
  if (cluster) {
    // The first worker to see a new version tells the others (through the primary), so that they all
    // answer from it within moments rather than each at its own next poll.
    store.onSwap((catalog) => cluster.swapped(catalog.version));
    cluster.onRefresh(() => watcher.refresh('another worker loaded new data'));
  }
  return {
    fetch,
    listener,
    clientError: http.clientError,
    services,
    yoga,
    closeStreams: () => changes.close(),
    refresh: () => watcher.refresh('asked'),
    async close() {
      changes.close();
      await watcher.stop();
    },
  };
}
