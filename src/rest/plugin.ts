// The REST facade at /api, inside yoga: every request is matched to a spec path, its parameters are
// parsed and checked (all problems at once), and then it runs as a GraphQL operation on the same
// schema, through yoga's own pipeline (context, graphql-jit, error masking): sofa for the endpoints
// that are one root field's value, a handler for the others.
import { createHash } from 'node:crypto';
import { parse, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { useSofa } from 'sofa-api';
import { LIMITS } from '../graphql/args.js';
import type { Context } from '../graphql/context.js';
import { RETRY_AFTER_SECONDS, statusOf, type ErrorCode, type ParameterProblem } from '../http/errors.js';
import { STREAM_ETAG } from '../http/handler.js';
import { problemResponse } from '../http/problem.js';
import { currentRequestId } from '../http/request-context.js';
import type { Logger } from '../logger.js';
import { csvStream, EXPORT_SELECTION, type ExportItem } from './csv.js';
import { renderDocs } from './docs.js';
import { openApiDocument } from './openapi.js';
import { parseParams, withDefaults, type ParamSpec } from './params.js';
import { matchRoute, restRoutes, type RestRoute } from './routes.js';


const ALLOW = 'GET, HEAD';

type Enveloped = ReturnType<Parameters<NonNullable<Plugin['onYogaInit']>>[0]['yoga']['getEnveloped']>;

function graphqlErrorResponse(errors: readonly GraphQLError[], logger: Logger): Response {
  const error = errors.find((e) => e.extensions?.code && e.extensions.code !== 'INTERNAL_SERVER_ERROR') ?? errors[0];
  const code = (error?.extensions?.code as ErrorCode | undefined) ?? 'INTERNAL_SERVER_ERROR';
  const status = statusOf(code);
  if (code === 'SERVICE_UNAVAILABLE') {
    const retryAfter = String(error?.extensions?.retryAfter ?? RETRY_AFTER_SECONDS);
    return problemResponse('SERVICE_UNAVAILABLE', error?.message ?? 'Service unavailable', undefined, { 'retry-after': retryAfter });
  }
  if (status >= 500) {
    logger.error({ requestId: currentRequestId(), errors: errors.map((e) => ({ message: e.message, code: e.extensions?.code })) }, 'unexpected error in a REST operation');
    return problemResponse('INTERNAL_SERVER_ERROR', 'Unexpected error.');
  }
  const errorList = error?.extensions?.errors as ParameterProblem[] | undefined;
  return problemResponse(code, error?.message ?? 'Bad request', errorList);
}

/** The variables as a canonical query string: GraphQL spellings, lists as repeated keys, sorted. */
function canonicalQuery(variables: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const name of Object.keys(variables).sort()) {
    const value = variables[name];
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  return params.toString();
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

export function restFacade(logger: Logger): Plugin<Context> {
  let getEnveloped: (context: Record<string, unknown>) => Enveloped;
  let routes: RestRoute[];
  let sofa: ReturnType<typeof useSofa>;
  let openApi: string;
  let docs: string;
  const documents = new Map<string, DocumentNode>();
  const envelopedByContext = new WeakMap<object, Enveloped>();

  const document = (source: string) => {
    let doc = documents.get(source);
    if (!doc) documents.set(source, (doc = parse(source)));
    return doc;
  };

  /** Runs a GraphQL operation through yoga's pipeline; the same context pins one catalogue across runs. */
  async function run(enveloped: Enveloped, contextValue: object, source: string, variables: Record<string, unknown>): Promise<ExecutionResult> {
    return (await enveloped.execute({ schema: enveloped.schema, document: document(source), contextValue, variableValues: variables })) as ExecutionResult;
  }

  async function contextFor(serverContext: Record<string, unknown>) {
    const enveloped = getEnveloped({ ...serverContext, rest: true });
    const contextValue = (await enveloped.contextFactory()) as Context;
    return { enveloped, contextValue };
  }

  async function exportCsv(route: RestRoute, parsed: Record<string, unknown>, serverContext: Record<string, unknown>): Promise<Response> {
    const { enveloped, contextValue } = await contextFor(serverContext);
    const pageSize = LIMITS.pageSizeMax;
    // One document for every export, whatever the filters: each distinct document costs a compiled
    // query (graphql-jit, hundreds of KB), so one per combination of parameters would fill memory.
    const names = route.params.map((p) => p.name);
    const source = `query($page: Int, $pageSize: Int${names.map((n) => `, $${n}: ${argType(n)}`).join('')}) {
      products(page: $page, pageSize: $pageSize${names.map((n) => `, ${n}: $${n}`).join('')}) { total items { ${EXPORT_SELECTION} } } }`;
    // graphql-jit reads an omitted nullable variable as null, not as "use the default": fill them in.
    const variables = withDefaults(route.params, parsed);
    const page = (n: number) => run(enveloped, contextValue, source, { ...variables, page: n, pageSize });
    const products = (result: ExecutionResult) => (result.data as { products: { total: number; items: ExportItem[] } }).products;
    // The first page decides the answer (a 4xx before any byte is sent); later pages only stream.
    const first = await page(1);
    if (first.errors?.length) return graphqlErrorResponse(first.errors as GraphQLError[], logger);
    const { total, items } = products(first);
    const pages = (async function* () {
      yield items;
      for (let n = 2; (n - 1) * pageSize < total; n++) {
        const next = await page(n);
        if (next.errors?.length) throw new Error(`export page ${n}: ${next.errors[0]!.message}`);
        yield products(next).items;
      }
    })();
    // The same data version and the same normalised request give the same bytes.
    const etag = `W/"${createHash('sha1').update(`${contextValue.catalog.version}|${canonicalQuery(parsed)}`).digest('base64url')}"`;
    return new Response(csvStream(pages), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="savings-offers.csv"',
        [STREAM_ETAG]: etag,
      },
    });
  }

  let argTypes: Map<string, string>;
  const argType = (name: string) => argTypes.get(name) ?? 'String';

  async function history(variables: Record<string, unknown>, serverContext: Record<string, unknown>): Promise<Response> {
    const { enveloped, contextValue } = await contextFor(serverContext);
    const { view, days, ...rest } = variables;
    const result =
      view === 'MARKET'
        ? await run(enveloped, contextValue, 'query($days: Int) { marketHistory(days: $days) { items { date flexible notice deposit12 deposit60 } } }', { days })
        : await run(
            enveloped,
            contextValue,
            `query($offerId: ID, $limit: Int, $brand: ID, $type: TypeFilter, $page: Int, $pageSize: Int) {
              rateHistory(offerId: $offerId, limit: $limit, brand: $brand, type: $type, page: $page, pageSize: $pageSize) {
                items { id offerId offer { id name brand { id name country } } validFrom validTo observedAt headlineRate rateType tierMode
                  tiers { from to rate } promotion { kind rate months maxBalance } sourceId }
                total page pageSize } }`,
            rest,
          );
    if (result.errors?.length) return graphqlErrorResponse(result.errors as GraphQLError[], logger);
    const data = result.data as Record<string, unknown>;
    return json(view === 'MARKET' ? data.marketHistory : data.rateHistory);
  }

  async function health(serverContext: Record<string, unknown>): Promise<Response> {
    const { enveloped, contextValue } = await contextFor(serverContext);
    const result = await run(enveloped, contextValue, '{ health { status checks { database data } dataAgeSeconds } }', {});
    if (result.errors?.length) return graphqlErrorResponse(result.errors as GraphQLError[], logger);
    const body = (result.data as { health: { status: string } }).health;
    return json(body, body.status === 'ok' ? 200 : 503, { 'cache-control': 'no-cache' });
  }

  async function dispatch(request: Request, url: URL, serverContext: Record<string, unknown>): Promise<Response> {
    const found = matchRoute(routes, url.pathname);
    if (!found) return problemResponse('NOT_FOUND', `There is nothing at ${url.pathname}. The API is described at /api/openapi.json and /api/docs.`);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return problemResponse('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${found.route.path}; the API is read-only.`, undefined, { allow: ALLOW });
    }
    const { route } = found;
    if (found.malformed) {
      return problemResponse('BAD_USER_INPUT', `Invalid parameter: ${found.malformed}.`, [{ parameter: found.malformed, message: 'is not valid percent-encoding' }]);
    }
    const parsed = parseParams(route.params, url.searchParams, found.path);
    if (!parsed.ok) {
      const list = parsed.errors.map((e) => e.parameter).join(', ');
      return problemResponse('BAD_USER_INPUT', `Invalid parameter${parsed.errors.length > 1 ? 's' : ''}: ${list}.`, parsed.errors);
    }
    switch (route.kind) {
      case 'sofa': {
        // Sofa reads its variables from the URL: hand it the checked values in GraphQL spelling.
        const sofaUrl = new URL(url.pathname, url);
        const variables = withDefaults(route.params, parsed.variables);
        sofaUrl.search = canonicalQuery(Object.fromEntries(Object.entries(variables).filter(([name]) => !found.path[name])));
        const response = await sofa.handle(new Request(sofaUrl, { headers: request.headers }), { ...serverContext, rest: true } as never);
        return response ?? problemResponse('NOT_FOUND', `There is nothing at ${url.pathname}.`);
      }
      case 'export':
        return exportCsv(route, parsed.variables, serverContext);
      case 'history':
        // graphql-jit reads an omitted nullable variable as null, not as "use the default": fill them in.
        return history(withDefaults(route.params, parsed.variables), serverContext);
      case 'health':
        return health(serverContext);
      case 'metrics': {
        const { contextValue } = await contextFor(serverContext);
        const memory = process.memoryUsage();
        const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
        return json(
          {
            process: { rssMb: mb(memory.rss), heapUsedMb: mb(memory.heapUsed), heapTotalMb: mb(memory.heapTotal), uptimeSeconds: Math.round(process.uptime()) },
            data: { version: contextValue.catalog.version, offers: contextValue.catalog.offers.length },
            caches: contextValue.services.caches(),
          },
          200,
          { 'cache-control': 'no-store' },
        );
      }
      case 'openapi':
        return new Response(openApi, { headers: { 'content-type': 'application/json; charset=utf-8' } });
      case 'docs':
        return new Response(docs, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    }
  }

  return {
    onYogaInit({ yoga }) {
      getEnveloped = yoga.getEnveloped as never;
    },
    onSchemaChange(payload) {
      const schema = payload.schema as GraphQLSchema;
      routes = restRoutes(schema);
      argTypes = new Map(schema.getQueryType()!.getFields().products!.args.map((a): [string, string] => [a.name, String(a.type).replace(/!$/, '')]));
      const document = openApiDocument(schema, routes);
      openApi = JSON.stringify(document);
      docs = renderDocs(document);
      sofa = useSofa({
        schema,
        basePath: '/api',
        routes: {
          'Query.product': { method: 'GET', path: '/products/:id' },
          'Query.meta': { method: 'GET', path: '/meta/last-updated' },
        },
        // Run sofa's operations through yoga's pipeline, as @graphql-yoga/plugin-sofa does.
        context(serverContext: Record<string, unknown>) {
          const enveloped = getEnveloped(serverContext);
          return Promise.resolve(enveloped.contextFactory(serverContext)).then((contextValue) => {
            envelopedByContext.set(contextValue as object, enveloped);
            return contextValue;
          });
        },
        execute(args: never) {
          const executionArgs = args as { contextValue: object };
          const enveloped = envelopedByContext.get(executionArgs.contextValue);
          if (!enveloped) throw new TypeError('sofa executed outside a request');
          return enveloped.execute(executionArgs as never);
        },
        errorHandler: (errors: readonly GraphQLError[]) => graphqlErrorResponse(errors, logger) as never,
      } as never);
    },
    onRequest({ request, url, endResponse, serverContext }) {
      if (url.pathname !== '/api' && !url.pathname.startsWith('/api/')) return;
      return dispatch(request, url, serverContext as Record<string, unknown>).then(endResponse);
    },
  };
}

export type { ParamSpec, YogaInitialContext };
