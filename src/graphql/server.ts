// yoga, with what it keeps per document a client sends: parsed documents, their parse errors, compiled
// operations, all bounded by bytes. The front's plugins (GraphiQL's page, the REST facade, the scrape)
// are given; the GraphQL ones, in the order they must run, are here.
import { useGraphQlJit, type JITCache } from '@envelop/graphql-jit';
import { useAPQ, type APQStore } from '@graphql-yoga/plugin-apq';
import { getOperationAST, type DocumentNode, type GraphQLError } from 'graphql';
import { createYoga, maskError, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../logger.js';
import { currentRequestId } from '../request/context.js';
import { PATHS } from '../request/paths.js';
import { batchesWithoutStreams } from './batches.js';
import { bodyLimit } from './body-limit.js';
import { clipped } from './clip-errors.js';
import { createContext, type Context, type Services } from './context.js';
import type { ListBounds } from './cost.js';
import { OPERATION_LIMITS, operationLimits } from './limits.js';
import { ledgerExtension } from './as-of.js';
import { useKnownOperationTypes } from './operation-types.js';
import { schema } from './schema/index.js';
import { onePerTurn } from './turns.js';
import { variableErrors } from './variable-errors.js';

/** A compiled operation is generated code: a product list's is several hundred KB. */
const COMPILED_QUERY_BYTES = 400 * 1024;
/** A parsed document held for reuse, per character of its text (its AST and locations). */
const DOCUMENT_BYTES_PER_CHAR = 40;
/** A parse error kept per document: the error, its location and message (the document is its key). */
const DOCUMENT_ERROR_BYTES = 1024;

type Compiled = NonNullable<ReturnType<JITCache['get']>>;

export interface DocumentCaches {
  documents: LRUCache<string, DocumentNode>;
  documentErrors: LRUCache<string, object>;
  compiledQueries: LRUCache<string, Compiled>;
  /** Entries, bytes and bounds of each, for the metrics. */
  stats(): Record<
    'documents' | 'documentErrors' | 'compiledQueries',
    { entries: number; bytes: number; maxBytes: number }
  >;
}

/** The caches of what clients send, each bounded by bytes (a client may send any number of distinct documents). */
export function documentCaches(bytes: {
  documents: number;
  documentErrors: number;
  compiledQueries: number;
}): DocumentCaches {
  const documents = new LRUCache<string, DocumentNode>({
    maxSize: bytes.documents,
    maxEntrySize: Math.floor(bytes.documents / 4),
    sizeCalculation: (_doc, key) => key.length * DOCUMENT_BYTES_PER_CHAR + 256,
  });
  const documentErrors = new LRUCache<string, object>({
    maxSize: bytes.documentErrors,
    sizeCalculation: (_e, key) => key.length * 2 + DOCUMENT_ERROR_BYTES,
  });
  // A compiled query of the product list is several hundred KB of generated code: the REST routes use a
  // handful of fixed documents; the rest of this room is for the distinct documents GraphQL clients send.
  // Keyed by the document's text (up to the body limit), counted too. graphql-jit also keeps a compiled
  // query with its parsed document (a WeakMap), so one evicted here takes its document out of the parsed
  // ones: else every document kept there would keep its compiled query alive, uncounted.
  const compiledQueries = new LRUCache<string, Compiled>({
    maxSize: Math.max(4 * COMPILED_QUERY_BYTES, bytes.compiledQueries),
    sizeCalculation: (_compiled, key) => COMPILED_QUERY_BYTES + 2 * key.length,
    dispose: (_compiled, key, reason) => {
      if (reason !== 'set') documents.delete(key);
    },
  });
  const of = (c: { size: number; calculatedSize: number; maxSize: number }) => ({
    entries: c.size,
    bytes: c.calculatedSize,
    maxBytes: c.maxSize,
  });
  return {
    documents,
    documentErrors,
    compiledQueries,
    stats: () => ({
      documents: of(documents),
      documentErrors: of(documentErrors),
      compiledQueries: of(compiledQueries),
    }),
  };
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
 * A GraphQLError raised on purpose, not one wrapping some other exception. Checked by name, not by
 * class: graphql-jit loads graphql's CommonJS build, whose GraphQLError is another class.
 */
function isOriginalGraphQLError(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'GraphQLError') return false;
  const original = (error as GraphQLError).originalError;
  return original == null || isOriginalGraphQLError(original);
}

export interface GraphqlServerDeps {
  services: Services;
  caches: DocumentCaches;
  /** Documents registered by hash (APQ). */
  persistedQueries: APQStore;
  /** The list lengths the data allows, for the cost estimate. */
  bounds(): ListBounds;
  /** The front's plugins, which run first (they may answer before GraphQL does). */
  front: readonly (Plugin | Plugin<Context>)[];
  /** The largest request body yoga reads (the front refuses a declared larger one). */
  maxBodyBytes: number;
  logger: Logger;
}

export function createGraphqlServer({
  services,
  caches,
  persistedQueries,
  bounds,
  front,
  maxBodyBytes,
  logger,
}: GraphqlServerDeps): YogaServerInstance<Record<string, unknown>, Context> {
  return createYoga<Record<string, unknown>, Context>({
    schema,
    context: () => createContext(services),
    graphqlEndpoint: PATHS.graphql,
    // yoga answers every URL ending in /health itself unless told otherwise; /api/health is ours.
    healthCheckEndpoint: PATHS.yogaHealth,
    landingPage: false,
    logging: false,
    parserAndValidationCache: { documentCache: caches.documents, errorCache: caches.documentErrors },
    // CORS is the HTTP layer's, one policy for every answer (src/http/cors.ts); yoga's would echo the
    // Origin and allow credentials.
    cors: false,
    // GraphiQL is a page of our own (src/http/graphiql.ts).
    graphiql: false,
    // Clients that batch detail lookups send a JSON array of operations (limits in src/graphql/limits.ts).
    batching: { limit: OPERATION_LIMITS.batch },
    // The HTTP front refuses a declared length above the bound; bodyLimit (last of the plugins, after the
    // request parsers) cuts a chunked body at the same bound, as yoga's own would, at no cost to the rest.
    maxRequestBodySize: false,
    maskedErrors: {
      // Errors we raise on purpose (GraphQLErrors with a code) reach the client; anything else is
      // logged with the request id and answered as "Unexpected error." without internals.
      maskError(error, message, isDev) {
        if (isOriginalGraphQLError(error)) return clipped(error as GraphQLError);
        const original = (error as { originalError?: unknown }).originalError ?? error;
        // A calculation stopped because its client went or its time was up: nobody reads this answer.
        const name = (original as { name?: unknown } | null)?.name;
        if (name === 'AbortError' || name === 'TimeoutError')
          logger.info({ requestId: currentRequestId(), reason: name }, 'calculation stopped: its request ended');
        else logger.error({ requestId: currentRequestId(), err: original }, 'unexpected error');
        return maskError(error, message, isDev);
      },
    },
    plugins: [
      ...front,
      onePerTurn((document) => caches.documents.has(document)),
      useAPQ({ store: persistedQueries }),
      useKnownOperationTypes(),
      ...operationLimits(bounds),
      batchesWithoutStreams(),
      forgetInvalidDocuments(caches.documents),
      variableErrors(),
      ledgerExtension(),
      // Subscriptions run on graphql-js: graphql-jit 0.8 hands a subscription field's resolver the
      // operation's variables instead of the field's arguments (literal arguments are lost, and the
      // argument checks see the wrong values). A subscription executes one small selection per event.
      useGraphQlJit(
        {},
        {
          cache: caches.compiledQueries,
          enableIf: (args) => getOperationAST(args.document, args.operationName)?.operation !== 'subscription',
        },
      ),
      bodyLimit(maxBodyBytes),
    ],
  });
}
