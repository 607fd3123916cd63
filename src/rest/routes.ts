// The spec's nine endpoints. Five are sofa projections of a GraphQL root field (the response is the
// field's value); four are written by hand because their answers are not one field's JSON (CSV, the
// 503 of health, the rate-history views, the OpenAPI document and its reference page).
import { GraphQLEnumType, type GraphQLArgument, type GraphQLSchema } from 'graphql';
import { paramsOf, type ParamSpec } from './params.js';

export type RouteKind = 'sofa' | 'export' | 'history' | 'health' | 'openapi' | 'docs' | 'metrics';

export interface RestRoute {
  /** OpenAPI path template, e.g. /api/products/{id} */
  path: string;
  kind: RouteKind;
  /** The GraphQL root field a sofa route projects. */
  field?: string;
  params: ParamSpec[];
  summary: string;
  description: string;
  /** The GraphQL type of the JSON body (for the OpenAPI document). */
  bodyType?: string;
}

/** REST-only: which view of /api/rates/history. */
export const RateHistoryView = new GraphQLEnumType({
  name: 'RateHistoryView',
  values: { PLANS: { value: 'plans' }, MARKET: { value: 'market' } },
});

const viewParam: ParamSpec = {
  name: 'view',
  in: 'query',
  arg: {
    name: 'view',
    type: RateHistoryView,
    defaultValue: 'plans',
    description: 'plans: rate plans (of one offer with offerId, or all of them, paged); market: the best headline rate per day and type',
  } as unknown as GraphQLArgument,
  base: RateHistoryView,
  list: false,
};

export function restRoutes(schema: GraphQLSchema): RestRoute[] {
  const fields = schema.getQueryType()!.getFields();
  const args = (name: string, path: string[] = []) => paramsOf(fields[name]!, path);
  return [
    {
      path: '/api/products',
      kind: 'sofa',
      field: 'products',
      params: args('products'),
      bodyType: 'ProductListResult',
      summary: 'Savings offers calculated for an amount',
      description: 'A filtered, calculated and sorted list of DGS-verified savings offers, paged, with facets, term curve, per-type maxima and a market summary.',
    },
    {
      path: '/api/products/export',
      kind: 'export',
      params: args('products').filter((p) => p.name !== 'page' && p.name !== 'pageSize'),
      summary: 'The same list as CSV',
      description: 'Every matching row (page and pageSize are ignored): separator `;`, decimal comma, UTF-8 with BOM, CRLF line ends.',
    },
    {
      path: '/api/products/{id}',
      kind: 'sofa',
      field: 'product',
      params: args('product', ['id']),
      bodyType: 'OfferDetail',
      summary: 'One offer in detail',
      description: 'The offer with the monthly steps of its calculation, its rate history, sources, events and the other offers under the same licence. Without amount the detail uses 50000, without horizon 12.',
    },
    {
      path: '/api/institutions',
      kind: 'sofa',
      field: 'institutions',
      params: [],
      bodyType: 'InstitutionList',
      summary: 'Legal institutions',
      description: 'Every legal institution with its deposit guarantee scheme and brands.',
    },
    {
      path: '/api/rates/history',
      kind: 'history',
      // rateHistory's parameters, then marketHistory's days, then the view that chooses between them
      params: [...args('rateHistory'), ...args('marketHistory'), viewParam],
      summary: 'Rate history',
      description: 'With offerId: the append-only rate-plan history of that offer. Without: every historic rate plan, newest first, filterable by brand and type, paged. With view=market: per day, the best headline rate per product type over the last `days` days, across offers whose institution has a verified DGS.',
    },
    {
      path: '/api/changes',
      kind: 'sofa',
      field: 'changes',
      params: args('changes'),
      bodyType: 'ChangeList',
      summary: 'Recent change events',
      description: 'Rate up and down, promotion start and end, new and removed offers, DGS changes; newest first.',
    },
    {
      path: '/api/meta/last-updated',
      kind: 'sofa',
      field: 'meta',
      params: [],
      bodyType: 'MetaSummary',
      summary: 'Freshness and source health',
      description: 'When the data last changed, the newest ingest, offer counts by freshness and the health of every source.',
    },
    {
      path: '/api/health',
      kind: 'health',
      params: [],
      bodyType: 'Health',
      summary: 'Liveness and readiness',
      description: '200 when ok; 503 when degraded: the database does not answer, or the data is older than the configured maximum age.',
    },
    {
      path: '/api/metrics',
      kind: 'metrics',
      params: [],
      summary: 'Operational metrics',
      description: 'Not part of the published specification: memory of the process and the size, limits and hit counts of its caches (finished answers, calculations). Never cached.',
    },
    {
      path: '/api/openapi.json',
      kind: 'openapi',
      params: [],
      summary: 'This description (OpenAPI 3.1)',
      description: 'The machine-readable description of the API.',
    },
    {
      path: '/api/docs',
      kind: 'docs',
      params: [],
      summary: 'Human-readable reference',
      description: 'This API reference, rendered from the OpenAPI document.',
    },
  ];
}

/**
 * The route a path belongs to, and its path parameters (percent-decoded; `malformed` names one whose
 * escapes do not decode). Exact paths win over /products/{id}.
 */
export function matchRoute(routes: readonly RestRoute[], pathname: string): { route: RestRoute; path: Record<string, string>; malformed?: string } | null {
  const exact = routes.find((r) => r.path === pathname);
  if (exact) return { route: exact, path: {} };
  for (const route of routes) {
    if (!route.path.includes('{')) continue;
    const names: string[] = [];
    const pattern = new RegExp(`^${route.path.replace(/\{(\w+)\}/g, (_m, name: string) => (names.push(name), '([^/]+)'))}$`);
    const m = pattern.exec(pathname);
    if (m) {
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
  }
  return null;
}
