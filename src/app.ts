// Builds the HTTP application without listening: yoga serves GraphQL at /graphql, and the REST facade
// at /api is a projection of the same schema. Tests call app.fetch(); server.ts listens.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { createInMemoryAPQStore, useAPQ } from '@graphql-yoga/plugin-apq';
import { GraphQLError, type ValidationContext } from 'graphql';
import { createLRUCache, createYoga, maskError, type YogaServerInstance } from 'graphql-yoga';
import { createCalcService } from './catalog/calc-service.js';
import { checkHealth } from './catalog/health.js';
import { createMarketHistory } from './catalog/history.js';
import { createCatalogStore } from './catalog/store.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { createContext, type Context, type Services } from './graphql/context.js';
import { costLimit } from './graphql/cost.js';
import { schema } from './graphql/schema/index.js';
import { DEFAULT_QUERY, graphiqlAssets, renderLocalGraphiQL } from './http/graphiql.js';
import { requestLogging } from './http/logging.js';
import { currentRequestId, requestIdFrom, requestScope } from './http/request-context.js';
import type { Logger } from './logger.js';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  /** The wall clock; tests hold it still. */
  clock?: () => Date;
}

export interface App {
  fetch(request: Request): Promise<Response>;
  /** node:http request listener */
  listener(req: IncomingMessage, res: ServerResponse): void;
  services: Services;
  yoga: YogaServerInstance<Record<string, unknown>, Context>;
}

export const LIMITS = { depth: 8, aliases: 15, cost: 100_000 } as const;

// graphql-armor throws from inside validation, which yoga answers with 200; reporting the rejection as
// a validation error gets the 400 and a stable code instead.
const tooComplex = {
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code: 'QUERY_TOO_COMPLEX' } })),
  ],
};

/**
 * A GraphQLError raised on purpose, not one wrapping some other exception. Checked by name, not by
 * class: graphql-jit loads graphql's CommonJS build, whose GraphQLError is another class.
 */
function isOriginalGraphQLError(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'GraphQLError') return false;
  const original = (error as GraphQLError).originalError;
  return original == null || isOriginalGraphQLError(original);
}

export async function createApp({ config, db, logger, clock = () => new Date() }: AppDeps): Promise<App> {
  const store = await createCatalogStore(db.prisma);
  const calc = createCalcService();
  const market = createMarketHistory(db.prisma);
  const services: Services = {
    prisma: db.prisma,
    store,
    calc,
    market,
    config,
    clock,
    health: () => checkHealth(db.prisma, store.current(), clock(), config.maxDataAgeSeconds),
  };

  const yoga = createYoga<Record<string, unknown>, Context>({
    schema,
    context: () => createContext(services),
    graphqlEndpoint: '/graphql',
    // yoga answers every URL ending in /health itself unless told otherwise; /api/health is ours.
    healthCheckEndpoint: '/_yoga/health',
    landingPage: false,
    logging: false,
    graphiql: { title: 'Savings-rate API', defaultQuery: DEFAULT_QUERY },
    renderGraphiQL: renderLocalGraphiQL,
    maskedErrors: {
      // Errors we raise on purpose (GraphQLErrors with a code) reach the client; anything else is
      // logged with the request id and answered as "Unexpected error." without internals.
      maskError(error, message, isDev) {
        if (isOriginalGraphQLError(error)) return error as Error;
        const original = (error as { originalError?: unknown }).originalError ?? error;
        logger.error({ requestId: currentRequestId(), err: original }, 'unexpected error');
        return maskError(error, message, isDev);
      },
    },
    plugins: [
      requestLogging(logger),
      graphiqlAssets(),
      useAPQ({ store: createInMemoryAPQStore({ max: 1000, ttl: 0 }) }),
      maxDepthPlugin({ n: LIMITS.depth, ...tooComplex }),
      maxAliasesPlugin({ n: LIMITS.aliases, ...tooComplex }),
      costLimit(LIMITS.cost),
      useGraphQlJit({}, { cache: createLRUCache({ max: 500 }) }),
    ],
  });

  const fetch = (request: Request): Promise<Response> => {
    const scope = { id: requestIdFrom(request.headers.get('x-request-id')), startedAt: process.hrtime.bigint() };
    return requestScope.run(scope, async () => yoga.fetch(request));
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers['x-request-id'];
    const scope = { id: requestIdFrom(typeof header === 'string' ? header : null), startedAt: process.hrtime.bigint() };
    requestScope.run(scope, () => void yoga(req, res));
  };
  return { fetch, listener, services, yoga };
}
