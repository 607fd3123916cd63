// The HTTP front, built the same way whichever thread computes the answers: the gate (bounds, rate
// limit, preflight, files), the body cache and its 304s, the bound of computed answers in progress, the
// request metrics and log lines (src/http/handler.ts). `upstream` is yoga on this thread (app.ts: the
// default, the tests, a cluster's workers) or the application's own thread (src/threads/, COMPUTE_THREAD):
// then the thread that accepts connections does nothing but this, and a cached answer, a refusal, health
// and the metrics never wait behind a calculation.
import { LRUCache } from 'lru-cache';
import type { WorkerLink } from './cluster/worker-link.js';
import type { Config } from './config.js';
import { createGraphqlReuse } from './graphql/reuse-key.js';
import { BodyCache } from './http/body-cache.js';
import { graphiqlFiles } from './http/graphiql.js';
import { createHttpHandler, type HttpDeps, type HttpHandler } from './http/handler.js';
import { EVENT_STREAM } from './http/layer.js';
import { InFlight, type InFlightFigures } from './http/overload.js';
import { allOf } from './http/static.js';
import { loadWebPage } from './http/web.js';
import type { Logger } from './logger.js';
import { requestCaches, type MemoryPlan } from './memory.js';
import { PATHS } from './request/paths.js';
import type { RestFacade } from './rest/facade.js';
import { matchRoute } from './rest/index.js';
import type { RestRoute } from './rest/route.js';

export interface FrontDeps {
  config: Config;
  logger: Logger;
  clock: () => Date;
  /** What computes an answer the gate passed. */
  upstream(request: Request): Promise<Response>;
  /** The REST facade itself, when the application is on this thread (HttpDeps.direct). */
  direct?: HttpDeps['direct'];
  /** The REST routes (what is exempt from limits, the route labels) and their URLs' reuse keys. */
  rest: RestFacade;
  /** This process's share of the budget: the front's caches take their parts of it. */
  memory: MemoryPlan;
  /** The data version the next request will see. */
  version(): number;
  /** Whether new answers may be kept (not while the database fails: they may lack what it holds). */
  cacheable(): boolean;
  /** Told of every answer: method, route label, status, seconds. */
  observe(method: string, route: string, status: number, seconds: number): void;
  link: WorkerLink | null;
}

/** What the front in front of the application tells of itself, for /api/metrics and /metrics. */
export interface FrontFigures {
  caches: Record<string, unknown>;
  inFlight: InFlightFigures | null;
}

/** The figures of a front not made yet. */
export const NO_FRONT: FrontFigures = { caches: {}, inFlight: null };

export interface Front {
  http: HttpHandler;
  /** The bound of computed answers in progress (none when MAX_IN_FLIGHT is 0). */
  inFlight: InFlight | undefined;
  /**
   * The most the application's event loop lagged in the last window (ms): the bound shrinks beyond
   * LOOP_LAG_TARGET_MS while reached, and grows back below it (overload.ts).
   */
  lagged(ms: number): void;
  /** New data: every finished answer kept is of the old version. */
  newVersion(): void;
  /** The front's caches, for /metrics and /api/metrics. */
  caches(): Record<string, unknown>;
  /** Its caches and its bound's figures. */
  figures(): FrontFigures;
}

/** Whether the bound of work in progress adapts: to the loop's lag, to its answers' time, or both. */
export const adapts = (config: Pick<Config, 'loopLagTargetMs' | 'answerTimeTargetMs'>): boolean =>
  config.loopLagTargetMs > 0 || config.answerTimeTargetMs > 0;

export async function createFront(deps: FrontDeps): Promise<Front> {
  const { config, rest, link } = deps;
  const requestBytes = requestCaches(deps.memory.caches.requests);
  const bodies = new BodyCache(deps.memory.caches.bodies);
  const graphqlReuse = createGraphqlReuse(requestBytes.graphqlUrls);
  const routeLabels = routeLabeller(rest.routes, requestBytes.routeLabels);
  // The comparison page (dist/web) and GraphiQL's bundle: files served as they are, through the same gate.
  const web = await loadWebPage({ logger: deps.logger });
  const inFlight =
    config.maxInFlight > 0
      ? new InFlight({
          limit: config.maxInFlight,
          queueWaitMs: config.queueWaitMs,
          answerTimeTargetMs: config.answerTimeTargetMs,
        })
      : undefined;
  // Health and metrics are never limited nor refused for load: the routes that say so, and the scrape.
  const operational = (path: string) =>
    path === PATHS.metrics || matchRoute(rest.routes, path)?.route.exemptFromRateLimit === true;
  const http = createHttpHandler({
    upstream: deps.upstream,
    ...(deps.direct ? { direct: deps.direct } : {}),
    cache: bodies,
    statics: allOf(web.files, graphiqlFiles()),
    reuseKey: (pathAndQuery, accept) =>
      pathAndQuery.startsWith(PATHS.graphql)
        ? graphqlReuse.reuseKey(pathAndQuery, accept)
        : rest.reuseKey(pathAndQuery),
    cacheable: deps.cacheable,
    version: deps.version,
    clock: deps.clock,
    logger: deps.logger,
    rateLimitPerMinute: config.rateLimitPerMinute,
    ...(link ? { takeToken: (client: string) => link.take(client) } : {}),
    counted: (path) => !operational(path),
    trustedProxies: config.trustedProxies,
    requestTimeoutMs: config.requestTimeoutMs,
    inFlight,
    // Health, the metrics and open streams are never refused for load: the operator needs them most then.
    shed: (path, accept) => !(accept && EVENT_STREAM.test(accept)) && !operational(path),
    observe: (method, path, status, seconds) => deps.observe(method, routeLabels.of(path), status, seconds),
  });
  const caches = () => ({
    bodies: bodies.stats(),
    graphqlUrls: graphqlReuse.stats(),
    routeLabels: routeLabels.stats(),
  });
  return {
    http,
    inFlight,
    lagged(ms) {
      if (adapts(config)) inFlight?.adjust(config.loopLagTargetMs > 0 && ms > config.loopLagTargetMs);
    },
    newVersion: () => bodies.clear(),
    caches,
    figures: () => ({ caches: caches(), inFlight: inFlight?.figures() ?? null }),
  };
}

/**
 * The route a path belongs to, for the metrics: its template, never the raw path. Remembered per path
 * (every answer is counted, a cache hit too), bounded by bytes: paths are the client's, up to 8 KB.
 */
function routeLabeller(routes: readonly RestRoute[], maxBytes: number) {
  const labels = new LRUCache<string, string>({
    maxSize: Math.max(4096, maxBytes),
    sizeCalculation: (label, path) => 2 * (path.length + label.length) + 64,
  });
  return {
    of(path: string): string {
      if (path === PATHS.graphql || path === PATHS.metrics || path === PATHS.page) return path;
      if (path.startsWith(PATHS.graphiqlAssets)) return `${PATHS.graphiqlAssets}{asset}`;
      if (path.startsWith(PATHS.pageAssets)) return `${PATHS.pageAssets}{file}`;
      let label = labels.get(path);
      if (label === undefined) {
        label = matchRoute(routes, path)?.route.path ?? 'unmatched';
        labels.set(path, label);
      }
      return label;
    },
    stats: () => ({ entries: labels.size, bytes: labels.calculatedSize, maxBytes: labels.maxSize }),
  };
}
