// What the front answers inside yoga, before GraphQL and the REST facade look at a request: the
// Prometheus scrape, a 404 of ours for every path that is none of the service's, and the Vary of the
// GraphQL endpoint, which answers GraphiQL's page or JSON at one URL.
import type { Plugin } from 'graphql-yoga';
import { isApplicationPath, PATHS } from '../request/paths.js';
import { CACHE_CONTROL } from './layer.js';
import { problemResponse } from './problem.js';

/**
 * Paths that are neither GraphQL, its assets nor the REST API: a problem+json 404 ("/" leads to the docs
 * when the page is not built).
 */
export function notFound(): Plugin {
  return {
    onRequest({ url, endResponse }) {
      const path = url.pathname;
      if (isApplicationPath(path)) return;
      if (path === PATHS.page)
        return endResponse(new Response(null, { status: 302, headers: { location: `${PATHS.api}/docs` } }));
      endResponse(
        problemResponse(
          'NOT_FOUND',
          `There is nothing at ${path}. The API is at ${PATHS.api} (described at ${PATHS.api}/docs) and GraphQL at ` +
            `${PATHS.graphql}.`,
        ),
      );
    },
  };
}

/** GET /metrics: Prometheus text for the operator's scraper; never cached. */
export function prometheus(metrics: MetricsText): Plugin {
  return {
    onRequest({ url, request, endResponse }) {
      if (url.pathname !== PATHS.metrics) return;
      return metricsAnswer(request.method, metrics).then(endResponse);
    },
  };
}

export interface MetricsText {
  text(): Promise<string>;
  contentType: string;
}

/** The answer to a request for /metrics, whichever thread makes it. */
export async function metricsAnswer(method: string, metrics: MetricsText): Promise<Response> {
  if (method !== 'GET' && method !== 'HEAD') {
    return problemResponse('METHOD_NOT_ALLOWED', `${method} is not allowed on ${PATHS.metrics}.`, undefined, {
      allow: 'GET, HEAD',
    });
  }
  return new Response(await metrics.text(), {
    headers: { 'content-type': metrics.contentType, 'cache-control': CACHE_CONTROL.none },
  });
}

/** The GraphQL endpoint answers GraphiQL's page or JSON at one URL, chosen by Accept. */
export function graphqlVariesByAccept(): Plugin {
  return {
    onResponse({ request, response }) {
      if (new URL(request.url).pathname === PATHS.graphql) response.headers.set('vary', 'Accept');
    },
  };
}
