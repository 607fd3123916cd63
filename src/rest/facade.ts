// The REST facade at /api, inside yoga (a kept answer computed on the front's thread is asked directly,
// `answer`: no Request, no yoga fetch, the same pipeline below). Every request takes one path: the URL is
// matched to a route and its parameters parsed and checked once (all problems at once; the outcome is
// remembered per URL, so the HTTP layer's cache key and the handler share one parse), then the route runs
// its fixed GraphQL operation through yoga's own pipeline (context, graphql-jit, error masking) and shapes
// the answer.
import type { DocumentNode, ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Context } from '../graphql/context.js';
import { schema } from '../graphql/schema/index.js';
import { RETRY_AFTER_SECONDS, statusOf, type ErrorCode, type ParameterProblem } from '../request/errors.js';
import { CACHE_CONTROL, PAGING_HEADER } from '../http/layer.js';
import { answeredAt } from '../graphql/as-of.js';
import { METHOD_VERSION } from '../domain/method.js';
import type { Asked } from '../http/handler.js';
import { problemResponse } from '../http/problem.js';
import { currentRequestId } from '../request/context.js';
import { isApiPath } from '../request/paths.js';
import { markMomentary, type ReuseKey } from '../request/reuse.js';
import type { Logger } from '../logger.js';
import { calculationPage } from './calculation-page.js';
import { renderDocs } from './docs.js';
import { matchRoute, restRoutes } from './index.js';
import { openApiDocument } from './openapi.js';
import { canonicalQuery, parseParams, withDefaults } from './params.js';
import type { RestRoute, Reuse, Variables } from './route.js';

const ALLOW = 'GET, HEAD';

type Enveloped = ReturnType<Parameters<NonNullable<Plugin['onYogaInit']>>[0]['yoga']['getEnveloped']>;

/** The errors of a GraphQL operation a route ran; answered as problem+json. */
class OperationFailed extends Error {
  constructor(readonly errors: readonly GraphQLError[]) {
    super(errors[0]?.message ?? 'operation failed');
  }
}

/** What a URL means to the facade, worked out once per URL. */
type Classified =
  | { kind: 'unknown' }
  | { kind: 'invalid'; route: RestRoute; problem: () => Response }
  | { kind: 'valid'; route: RestRoute; variables: Variables; key: string; reuse: Reuse };

export interface RestFacade {
  plugin: Plugin<Context>;
  /**
   * A GET or HEAD of a route whose answers are kept, answered without yoga's adapter and fetch: the same
   * route, operation and pipeline (yoga's enveloped context, graphql-jit), the same Response.
   */
  answer(asked: Asked): Promise<Response>;
  /** For the HTTP layer's cache: the normalised request behind a URL, or null when its answer is not reused. */
  reuseKey(pathAndQuery: string): ReuseKey | null;
  routes: readonly RestRoute[];
  /** The parsed URLs kept: entries and bytes (estimated). */
  stats(): { entries: number; bytes: number; maxBytes: number };
}

/** RFC 7231's IMF-fixdate, the form RFC 7089 gives Accept-Datetime in. */
const HTTP_DATE = new RegExp(
  '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} ' +
    '\\d{2}:\\d{2}:\\d{2} GMT$',
);

/** Accept-Datetime (RFC 7089) as asOf, where the route takes asOf and the query does not name one. */
function withAcceptDatetime(route: RestRoute, variables: Variables, header: string | null): Variables | Response {
  if (header === null || variables.asOf != null || !route.params.some((p) => p.name === 'asOf')) return variables;
  const instant = HTTP_DATE.test(header.trim()) ? new Date(header.trim()) : null;
  if (!instant || Number.isNaN(instant.getTime())) {
    const message = 'must be an HTTP date such as "Tue, 20 Oct 2026 08:00:00 GMT" (RFC 7089)';
    return problemResponse('BAD_USER_INPUT', 'Invalid header: Accept-Datetime.', [
      { parameter: 'Accept-Datetime', message },
    ]);
  }
  return { ...variables, asOf: instant.toISOString() };
}

/**
 * Which data version an answer is of and its chain hash (the ledger's, GET /api/ledger); for an asOf
 * answer also the version's instant (RFC 7089's Memento-Datetime), and, for a version before the newest,
 * a Cache-Control that keeps it for ever. A route that takes asOf varies by Accept-Datetime too.
 */
function withVersion(route: RestRoute, response: Response, context: Context): Response {
  if (route.params.some((p) => p.name === 'asOf')) response.headers.append('vary', 'Accept-Datetime');
  const answered = answeredAt(context);
  const entry = answered[0]?.catalog.entry;
  if (!entry || response.status !== 200) return response;
  response.headers.set('data-version', String(entry.version));
  // what the JSON answers say in `method`, for the CSV and the feed as well
  response.headers.set('method-version', METHOD_VERSION);
  response.headers.set('data-chain', entry.chainHash);
  if (answered.every((a) => a.asOf)) {
    response.headers.set('memento-datetime', new Date(entry.observedAt).toUTCString());
    if (answered.every((a) => a.immutable)) response.headers.set('cache-control', CACHE_CONTROL.past);
  }
  return response;
}

/** An answer of the moment (Context.momentary: a plan cut short by its deadline) is kept by no cache. */
function withMoment(response: Response, context: Context): Response {
  if (context.momentary) markMomentary(response.headers);
  return response;
}

/** A paged answer tells the HTTP layer which parameters its route reads: its Link header keeps only those. */
function withReadParameters(route: RestRoute, response: Response): Response {
  const paging = response.headers.get(PAGING_HEADER);
  if (paging) response.headers.set(PAGING_HEADER, `${paging} ${route.params.map((p) => p.name).join(',')}`);
  return response;
}

/**
 * A parsed URL kept for reuse, as UTF-16: the URL, its key, and its variables (values taken from the URL,
 * no longer than the key), with the entry and the variables object around them.
 */
const classifiedBytes = (found: Classified, url: string) =>
  2 * url.length + (found.kind === 'valid' ? 4 * found.key.length + 800 : 0);

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

export function createRestFacade({
  logger,
  rateLimited = false,
  maxUrlBytes = 4 * 1024 * 1024,
}: {
  logger: Logger;
  rateLimited?: boolean;
  maxUrlBytes?: number;
}): RestFacade {
  // Made when first asked for, not on the way to the first answer (≈70 ms of a restart; README, Performance).
  const document = once(() => openApiDocument(schema, routes, { rateLimited }));
  const routes = restRoutes({
    openApi: once(() => JSON.stringify(document())),
    docs: once(() => renderDocs(document())),
    calculation: once(calculationPage),
  });
  let getEnveloped: ((context: Record<string, unknown>) => Enveloped) | undefined;

  // One entry per distinct URL (every new amount is one): bounded by bytes, the URL counted. Only valid
  // requests are kept: junk URLs, one entry each, would push out the requests clients make. A refused
  // one is remembered until the next (the HTTP layer's key and the handler ask about it in turn), else
  // parsed again (microseconds).
  const classified = new LRUCache<string, Classified>({
    maxSize: Math.max(4096, maxUrlBytes),
    sizeCalculation: classifiedBytes,
  });
  let lastRefused: { url: string; found: Classified } | undefined;

  function classify(pathname: string, search: string): Classified {
    const cacheKey = pathname + search;
    if (lastRefused?.url === cacheKey) return lastRefused.found;
    let found = classified.get(cacheKey);
    if (!found) {
      found = classifyUncached(pathname, search);
      if (found.kind === 'valid') classified.set(cacheKey, found);
      else lastRefused = { url: cacheKey, found };
    }
    return found;
  }

  function classifyUncached(pathname: string, search: string): Classified {
    const match = matchRoute(routes, pathname);
    if (!match) return { kind: 'unknown' };
    const { route } = match;
    if (match.malformed) {
      const parameter = match.malformed;
      return {
        kind: 'invalid',
        route,
        problem: () =>
          problemResponse('BAD_USER_INPUT', `Invalid parameter: ${parameter}.`, [
            { parameter, message: 'is not valid percent-encoding' },
          ]),
      };
    }
    const parsed = parseParams(route.params, new URLSearchParams(search), match.path);
    if (!parsed.ok) {
      const { errors } = parsed;
      const list = errors.map((e) => e.parameter).join(', ');
      return {
        kind: 'invalid',
        route,
        problem: () =>
          problemResponse('BAD_USER_INPUT', `Invalid parameter${errors.length > 1 ? 's' : ''}: ${list}.`, errors),
      };
    }
    // graphql-jit reads an omitted nullable variable as null, not as "use the default": fill them in,
    // which also makes a request that spells out a default the same request as one that leaves it out.
    const variables = withDefaults(route.params, parsed.variables);
    const reuse = typeof route.cache.reuse === 'function' ? route.cache.reuse(variables) : route.cache.reuse;
    return { kind: 'valid', route, variables, key: `${route.path}?${canonicalQuery(variables)}`, reuse };
  }

  function problemFor(errors: readonly GraphQLError[]): Response {
    const error = errors.find((e) => e.extensions?.code && e.extensions.code !== 'INTERNAL_SERVER_ERROR') ?? errors[0];
    const code = (error?.extensions?.code as ErrorCode | undefined) ?? 'INTERNAL_SERVER_ERROR';
    const status = statusOf(code);
    if (code === 'SERVICE_UNAVAILABLE') {
      const retryAfter = String(error?.extensions?.retryAfter ?? RETRY_AFTER_SECONDS);
      return problemResponse('SERVICE_UNAVAILABLE', error?.message ?? 'Service unavailable', undefined, {
        'retry-after': retryAfter,
      });
    }
    if (status >= 500) {
      logger.error(
        {
          requestId: currentRequestId(),
          errors: errors.map((e) => ({ message: e.message, code: e.extensions?.code })),
        },
        'unexpected error in a REST operation',
      );
      return problemResponse('INTERNAL_SERVER_ERROR', 'Unexpected error.');
    }
    return problemResponse(
      code,
      error?.message ?? 'Bad request',
      error?.extensions?.errors as ParameterProblem[] | undefined,
    );
  }

  async function respond(asked: Asked, serverContext: Record<string, unknown>): Promise<Response> {
    const { method, url } = asked;
    const found = classify(url.pathname, url.search);
    if (found.kind === 'unknown')
      return problemResponse(
        'NOT_FOUND',
        `There is nothing at ${url.pathname}. The API is described at /api/openapi.json and /api/docs.`,
      );
    if (method !== 'GET' && method !== 'HEAD') {
      return problemResponse(
        'METHOD_NOT_ALLOWED',
        `${method} is not allowed on ${found.route.path}; the API is read-only.`,
        undefined,
        { allow: ALLOW },
      );
    }
    if (found.kind === 'invalid') return found.problem();
    const variables = withAcceptDatetime(found.route, found.variables, asked.header('accept-datetime'));
    if (variables instanceof Response) return variables;

    // One context for every operation of the request: it pins one catalogue (the export runs a page at a time).
    let context: Promise<{ enveloped: Enveloped; contextValue: Context }> | undefined;
    const contextOnce = () =>
      (context ??= (async () => {
        if (!getEnveloped) throw new Error('the REST facade runs before yoga started');
        const enveloped = getEnveloped({ ...serverContext, rest: true });
        return { enveloped, contextValue: (await enveloped.contextFactory()) as Context };
      })());
    const run = async <T>(operation: DocumentNode, variableValues: Variables): Promise<T> => {
      const { enveloped, contextValue } = await contextOnce();
      const result = (await enveloped.execute({
        schema: enveloped.schema,
        document: operation,
        contextValue,
        variableValues,
      })) as ExecutionResult;
      if (result.errors?.length) throw new OperationFailed(result.errors as GraphQLError[]);
      return result.data as T;
    };
    try {
      const response = withReadParameters(
        found.route,
        await found.route.handle({
          variables,
          url,
          run,
          version: async () => (await contextOnce()).contextValue.catalog.version,
          get request() {
            return asked.request();
          },
          context: async () => (await contextOnce()).contextValue,
        }),
      );
      if (!context) return response;
      const { contextValue } = await context;
      return withMoment(withVersion(found.route, response, contextValue), contextValue);
    } catch (err) {
      // A calculation stopped because its client went: no error of ours, and nobody to tell (499, the log's
      // convention for a client that closed the connection first).
      if (err instanceof OperationFailed)
        return asked.gone() ? new Response(null, { status: 499 }) : problemFor(err.errors);
      throw err;
    }
  }

  return {
    routes,
    stats: () => ({
      entries: classified.size,
      bytes: classified.calculatedSize,
      maxBytes: Math.max(4096, maxUrlBytes),
    }),
    answer: (asked) => respond(asked, {}),
    reuseKey(pathAndQuery) {
      const q = pathAndQuery.indexOf('?');
      const pathname = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
      if (!isApiPath(pathname)) return null;
      const found = classify(pathname, q < 0 ? '' : pathAndQuery.slice(q));
      return found.kind === 'valid' && found.reuse !== 'never' ? { key: found.key, reuse: found.reuse } : null;
    },
    plugin: {
      onYogaInit({ yoga }) {
        getEnveloped = yoga.getEnveloped as never;
      },
      onRequest({ request, url, endResponse, serverContext }) {
        if (!isApiPath(url.pathname)) return;
        const asked: Asked = {
          method: request.method,
          url,
          header: (name) => request.headers.get(name),
          request: () => request,
          gone: () => request.signal.aborted,
        };
        return respond(asked, serverContext as Record<string, unknown>).then(endResponse);
      },
    },
  };
}
