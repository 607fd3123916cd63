// The REST facade's routes: the spec's endpoints (each a projection of the GraphQL schema) and the
// service's own. Exact paths win over /products/{id}.
import { changesRoute } from './routes/changes.js';
import { exportRoute } from './routes/export.js';
import { feedRoute } from './routes/feed.js';
import { healthRoute } from './routes/health.js';
import { historyRoute } from './routes/history.js';
import { institutionsRoute } from './routes/institutions.js';
import { ledgerRoute, stateRoute } from './routes/ledger.js';
import { metaRoute } from './routes/meta.js';
import { planRoute } from './routes/plan.js';
import { productRoute } from './routes/product.js';
import { productsRoute } from './routes/products.js';
import { serviceRoutes, type ServiceInfo } from './routes/service.js';
import { streamRoute } from './routes/stream.js';
import type { RestRoute } from './route.js';

export const SPEC_ROUTES: readonly RestRoute[] = [
  productsRoute,
  exportRoute,
  productRoute,
  planRoute,
  institutionsRoute,
  historyRoute,
  changesRoute,
  streamRoute,
  feedRoute,
  metaRoute,
  healthRoute,
];

/** The ledger and the states it hashes (issue 24): data answers beyond the spec's. */
export const LEDGER_ROUTES: readonly RestRoute[] = [ledgerRoute, stateRoute];

export const restRoutes = (info: ServiceInfo): RestRoute[] => [
  ...SPEC_ROUTES,
  ...LEDGER_ROUTES,
  ...serviceRoutes(info),
];

export interface RouteMatch {
  route: RestRoute;
  /** Path parameters, percent-decoded. */
  path: Record<string, string>;
  /** A path parameter whose escapes do not decode. */
  malformed?: string;
}

const patterns = new WeakMap<RestRoute, { pattern: RegExp; names: string[] }>();

function patternOf(route: RestRoute) {
  let compiled = patterns.get(route);
  if (!compiled) {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      })}$`,
    );
    patterns.set(route, (compiled = { pattern, names }));
  }
  return compiled;
}

export function matchRoute(routes: readonly RestRoute[], pathname: string): RouteMatch | null {
  const exact = routes.find((r) => r.path === pathname);
  if (exact) return { route: exact, path: {} };
  for (const route of routes) {
    if (!route.path.includes('{')) continue;
    const { pattern, names } = patternOf(route);
    const m = pattern.exec(pathname);
    if (!m) continue;
    const path: Record<string, string> = {};
    let malformed: string | undefined;
    names.forEach((name, i) => {
      try {
        path[name] = decodeURIComponent(m[i + 1]!);
      } catch {
        path[name] = m[i + 1]!;
        malformed ??= name;
      }
    });
    return malformed ? { route, path, malformed } : { route, path };
  }
  return null;
}
