// The limits on what one GraphQL request may ask, in one place: the document's length in tokens, nesting
// depth, aliases, estimated cost and the number of operations in an HTTP batch (the body's size in
// bytes is the HTTP front's: src/http/handler.ts). Each is checked before anything runs and answered the
// same way, whatever the client's Accept: HTTP 400 with an error whose extensions say which limit, its
// bound and what the request asked (code QUERY_TOO_COMPLEX). The numbers fit each other: `offers` with
// its 100 ids and the full detail selection (what GET /api/products/{id} answers) passes them all.
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Catalog } from '../catalog/types.js';
import { estimateCost, type ListBounds } from './cost.js';
import { DETAIL_LIMIT } from './loaders.js';

export const OPERATION_LIMITS = {
  /** Lexical tokens of a document: the parser stops there, before building anything of a huge one. */
  tokens: 2_000,
  depth: 8,
  aliases: 15,
  /** A field costs 1; a list counts as often as it can be long (see cost.ts). A batch shares one budget. */
  cost: 1_000_000,
  /** Operations in one HTTP batch (a JSON array of operations). */
  batch: 10,
} as const;

export type LimitName = keyof typeof OPERATION_LIMITS;

export function limitError(limit: LimitName, message: string, asked?: number): GraphQLError {
  return new GraphQLError(message, {
    // spec: false — not a rule of the GraphQL spec, so yoga gives application/json clients the 400 too.
    extensions: {
      code: 'QUERY_TOO_COMPLEX',
      limit,
      max: OPERATION_LIMITS[limit],
      ...(asked === undefined ? {} : { asked }),
      http: { status: 400, spec: false },
    },
  });
}

/** What the catalogue allows the lists no argument bounds to hold (see ListBounds). */
export function listBounds(catalog: Catalog): ListBounds {
  let longestTerm = 0;
  let tiers = 1;
  for (const offer of catalog.offers) {
    if (offer.termMonths !== null && offer.termMonths > longestTerm) longestTerm = offer.termMonths;
    if (offer.tiers.length > tiers) tiers = offer.tiers.length;
  }
  let sameLicence = 0;
  for (const offers of catalog.offersByInstitution.values()) sameLicence = Math.max(sameLicence, offers.length - 1);
  const brands = Math.max(1, ...catalog.institutions.map((i) => i.brands.length));
  return {
    longestTerm,
    sameLicence,
    tiers,
    brands,
    institutions: catalog.institutions.length,
    history: DETAIL_LIMIT,
    events: DETAIL_LIMIT,
  };
}

// graphql-armor throws from inside validation; reporting the rejection as a validation error of ours
// gets the 400 and the stable code instead of yoga's 200 for application/json clients.
const armor = (limit: 'depth' | 'aliases') => ({
  n: OPERATION_LIMITS[limit],
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(limitError(limit, error.message.replace(/^Syntax Error: /, ''))),
  ],
});

/** Rejects, before execution, operations estimated to cost more than the budget (shared by a batch). */
function costLimit(bounds: () => ListBounds): Plugin {
  // What each HTTP request has spent so far: the operations of one batch share the budget.
  const spent = new WeakMap<object, number>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      // The REST routes run fixed operations whose lists their own parameters bound.
      if ((args.contextValue as { rest?: boolean }).rest) return;
      const definitions = (args.document as DocumentNode).definitions;
      const operations = definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
      const operation = args.operationName
        ? operations.find((o) => o.name?.value === args.operationName)
        : operations[0];
      if (!operation) return;
      const fragments = definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
      const own = estimateCost(
        args.schema,
        operation,
        fragments,
        (args.variableValues ?? {}) as Record<string, unknown>,
        bounds(),
      );
      const request = (args.contextValue as { request?: object }).request;
      const cost = own + (request ? (spent.get(request) ?? 0) : 0);
      if (request) spent.set(request, cost);
      if (cost > OPERATION_LIMITS.cost) {
        const batch = cost > own ? ' (with the operations before it in this batch)' : '';
        setResultAndStopExecution({
          errors: [
            limitError(
              'cost',
              `Query too complex: its estimated cost ${cost}${batch} exceeds ${OPERATION_LIMITS.cost}. Ask for ` +
                `fewer or smaller lists, or split the query.`,
              cost,
            ),
          ],
        });
      }
    },
  };
}

/** Whether a document holds more lexical tokens than `max` (it stops counting there). */
function overTokens(query: string, max: number): boolean {
  if (query.length <= max) return false; // every token is at least a character long
  try {
    const lexer = new Lexer(new Source(query));
    for (let n = 0; lexer.advance().kind !== TokenKind.EOF;) if (++n > max) return true;
  } catch {
    // A syntax error: the parser reports it.
  }
  return false;
}

/**
 * Documents longer than the token limit are refused before the parser builds anything of them. Checked
 * on the request's parameters rather than in the parse step: yoga marks whatever the parser throws as a
 * GraphQL syntax error, which a legacy application/json client would get with a 200.
 */
function tokenLimit(): Plugin {
  return {
    onParams({ params, setResult }) {
      if (typeof params.query === 'string' && overTokens(params.query, OPERATION_LIMITS.tokens)) {
        setResult({
          errors: [
            limitError(
              'tokens',
              `The document is longer than ${OPERATION_LIMITS.tokens} tokens; send a shorter query (or persist it).`,
            ),
          ],
        });
      }
    },
  };
}

/** A batch longer than the limit is refused as a whole, before any of it runs. */
function batchLimit(): Plugin {
  return {
    onRequestParse() {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (Array.isArray(requestParserResult) && requestParserResult.length === 0) {
            throw new GraphQLError('A batch must hold at least one operation.', {
              extensions: { code: 'BAD_REQUEST', http: { status: 400, spec: false } },
            });
          }
          if (Array.isArray(requestParserResult) && requestParserResult.length > OPERATION_LIMITS.batch) {
            throw limitError(
              'batch',
              `A batch may hold at most ${OPERATION_LIMITS.batch} operations; this one holds ` +
                `${requestParserResult.length}.`,
              requestParserResult.length,
            );
          }
        },
      };
    },
  };
}

export function operationLimits(bounds: () => ListBounds): Plugin[] {
  return [
    batchLimit(),
    tokenLimit(),
    maxDepthPlugin(armor('depth')),
    maxAliasesPlugin(armor('aliases')),
    costLimit(bounds),
  ];
}
