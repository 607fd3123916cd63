// The service's own paths, in one table: what the front, the facade, GraphQL and the metrics' route labels
// all tell apart.
export const PATHS = {
  /** GraphQL, and GraphiQL's page for a browser. */
  graphql: '/graphql',
  /** The REST API, under it. */
  api: '/api',
  /** Prometheus text. */
  metrics: '/metrics',
  /** Liveness and readiness: the REST route, the primary's fallback, the front of a process on two threads. */
  health: '/api/health',
  /** yoga's own health check, moved out of the way of /api/health (yoga answers any path ending in /health). */
  yogaHealth: '/_yoga/health',
  /** GraphiQL's bundle. */
  graphiqlAssets: '/graphiql/',
  /** The comparison page's hashed files. */
  pageAssets: '/assets/',
  /** The comparison page. */
  page: '/',
} as const;

/** A path of the REST API. */
export const isApiPath = (path: string): boolean => path === PATHS.api || path.startsWith(`${PATHS.api}/`);

/** A path yoga answers: GraphQL, the API, the scrape and its own health check; the rest is a 404 of ours. */
export const isApplicationPath = (path: string): boolean =>
  path === PATHS.graphql || isApiPath(path) || path === PATHS.yogaHealth || path === PATHS.metrics;
