// GET /api/openapi.json: OpenAPI 3.1, made from the same sources as the API itself — the route table, the
// GraphQL arguments (names, types, defaults, allowed values), the shared zod ranges, and the GraphQL
// output types in their REST spelling — so that a client generated from it (openapi-typescript, Redocly…)
// is typed as the answers really are: success bodies are never null, every status an operation can
// answer is declared with its body, and each example is a real answer from the sample market.
import type { GraphQLOutputType, GraphQLSchema } from 'graphql';
import { ERRORS } from '../request/errors.js';
import EXAMPLES from './openapi-examples.json' with { type: 'json' };
import { parameter, typeSchema, type JsonSchema } from './openapi-schemas.js';
import type { RestRoute } from './route.js';
import { MAX_HEADER_BYTES } from '../http/node-writer.js';

export const API_VERSION = '0.2.0';

export interface OpenApiOptions {
  /** RATE_LIMIT_PER_MINUTE is on: operations can answer 429, and answers carry the RateLimit fields. */
  rateLimited: boolean;
}

/** Real answers of the sample market, by operationId and status (npm run openapi:examples writes them). */
const examples = EXAMPLES as Record<string, Record<string, unknown>>;

const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const HEADERS: Record<string, JsonSchema> = {
  ETag: {
    description: 'A weak validator of the body: send it back in If-None-Match for a 304.',
    schema: { type: 'string' },
    example: 'W/"3mytFHuOvXYViOPNHxOo99DosLg"',
  },
  CacheControl: {
    description: 'How long the answer may be reused (data: 300 s, then 60 s stale while revalidating).',
    schema: { type: 'string' },
    example: 'public, max-age=300, stale-while-revalidate=60',
  },
  RequestId: {
    description: 'The request id: echoed from the request when sane, else made up; errors are logged with it.',
    schema: { type: 'string' },
  },
  Link: {
    description:
      "RFC 8288 links to the first, prev, next and last page (those that exist), made from the request's own query.",
    schema: { type: 'string' },
    example:
      '</api/products?page=1>; rel="first", </api/products?page=2>; rel="next", </api/products?page=14>; rel="last"',
  },
  ContentDisposition: {
    description: 'A download, named savings-offers.csv.',
    schema: { type: 'string' },
    example: 'attachment; filename="savings-offers.csv"',
  },
  RetryAfter: {
    description: 'Seconds to wait before asking again.',
    schema: { type: 'integer', minimum: 1 },
    example: 5,
  },
  RateLimitPolicy: {
    description: 'The quota per window (IETF httpapi draft): q requests per w seconds.',
    schema: { type: 'string' },
    example: '"default";q=600;w=60',
  },
  RateLimit: {
    description: 'What is left of the quota (r) and the seconds until it is whole again (t).',
    schema: { type: 'string' },
    example: '"default";r=599;t=1',
  },
};

/** What a problem of this kind looks like. */
const problemExample = (
  code: keyof typeof ERRORS,
  detail: string,
  errors?: { parameter: string; message: string }[],
) => ({
  type: `/api/docs#problem-${ERRORS[code].slug}`,
  title: ERRORS[code].title,
  status: ERRORS[code].status,
  detail,
  ...(errors ? { errors } : {}),
});

function problemResponse(description: string, example: unknown, headers: Record<string, unknown> = {}): JsonSchema {
  return {
    description,
    headers: { 'X-Request-Id': ref('headers', 'RequestId'), ...headers },
    content: { 'application/problem+json': { schema: ref('schemas', 'Problem'), example } },
  };
}

function sharedResponses(options: OpenApiOptions): Record<string, JsonSchema> {
  const limited = options.rateLimited
    ? { RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimitPolicy') }
    : {};
  return {
    NotModified: {
      description: 'Not modified: If-None-Match matches the current ETag (weak comparison, a list, or *). No body.',
      headers: {
        ETag: ref('headers', 'ETag'),
        'Cache-Control': ref('headers', 'CacheControl'),
        'X-Request-Id': ref('headers', 'RequestId'),
      },
    },
    BadRequest: problemResponse(
      'Invalid parameters: every bad one is listed in `errors`.',
      problemExample('BAD_USER_INPUT', 'Invalid parameters: amount, pageSize.', [
        { parameter: 'amount', message: 'must be greater than 0' },
        { parameter: 'pageSize', message: 'must be at most 500' },
      ]),
      limited,
    ),
    MethodNotAllowed: problemResponse(
      'Another method than GET or HEAD on this path (the API is read-only); the Allow header lists GET, HEAD.',
      problemExample('METHOD_NOT_ALLOWED', 'POST is not allowed on /api/products; the API is read-only.'),
      { Allow: { schema: { type: 'string' }, example: 'GET, HEAD' } },
    ),
    UriTooLong: problemResponse(
      'The URL is longer than 8 KB.',
      problemExample('URI_TOO_LONG', 'The URL is longer than 8192 characters.'),
    ),
    HeadersTooLarge: problemResponse(
      'The request line and headers are larger than 16 KB.',
      problemExample(
        'REQUEST_HEADERS_TOO_LARGE',
        `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes.`,
      ),
    ),
    // Only a service with a rate limit answers 429 for it (the change stream's own 429 is described with it).
    ...(options.rateLimited
      ? {
          TooManyRequests: problemResponse(
            'Over the rate limit: wait Retry-After seconds.',
            problemExample('TOO_MANY_REQUESTS', 'Too many requests; please wait 2 s (the limit is 600 a minute).'),
            { 'Retry-After': ref('headers', 'RetryAfter'), ...limited },
          ),
        }
      : {}),
    ServiceUnavailable: problemResponse(
      'The database is away or the answer took too long: retry after Retry-After seconds.',
      problemExample('SERVICE_UNAVAILABLE', 'The database is not reachable right now; please retry shortly.'),
      { 'Retry-After': ref('headers', 'RetryAfter') },
    ),
    InternalError: problemResponse(
      'Unexpected error (never for any input): reported with the request id, no internals.',
      problemExample('INTERNAL_SERVER_ERROR', 'Unexpected error.'),
    ),
  };
}

function okContent(route: RestRoute, components: Map<string, JsonSchema>, schema: GraphQLSchema): JsonSchema {
  const example = examples[route.operationId]?.['200'];
  const withExample = (s: JsonSchema): JsonSchema => (example === undefined ? { schema: s } : { schema: s, example });
  // never null: a 200 is the value
  const object = (name: string) => typeSchema(schema.getType(name) as GraphQLOutputType, components);
  const body = route.body;
  if ('csv' in body) return { 'text/csv': withExample({ type: 'string', description: body.csv }) };
  if ('html' in body) return { 'text/html': withExample({ type: 'string', description: body.html }) };
  if ('metrics' in body)
    return {
      'application/json': withExample({
        type: 'object',
        description: 'process memory, data version, cache sizes and hit counts',
        additionalProperties: true,
      }),
    };
  if ('openapi' in body)
    return {
      'application/json': withExample({
        type: 'object',
        description: 'an OpenAPI 3.1 document',
        additionalProperties: true,
      }),
    };
  if ('canonical' in body)
    return {
      'application/json': withExample({
        type: 'object',
        description: body.canonical,
        required: ['brands', 'institutions', 'offers', 'plans', 'sources'],
        properties: Object.fromEntries(
          ['brands', 'institutions', 'offers', 'plans', 'sources'].map((k) => [
            k,
            { type: 'array', items: { type: 'object' } },
          ]),
        ),
      }),
    };
  if ('jsonOneOf' in body) return { 'application/json': withExample({ oneOf: body.jsonOneOf.map(object) }) };
  if ('atom' in body) return { 'application/atom+xml': withExample({ type: 'string', description: body.atom }) };
  if ('sse' in body) {
    const description =
      'Server-Sent Events: each event has `id:` its id, `event:` its kind and `data:` the JSON in ' +
      'x-event-data; comment lines keep the connection open; `retry:` the reconnection delay.';
    return { 'text/event-stream': { schema: { type: 'string', description }, 'x-event-data': object(body.sse) } };
  }
  return { 'application/json': withExample(object(body.json)) };
}

function responsesFor(
  route: RestRoute,
  components: Map<string, JsonSchema>,
  schema: GraphQLSchema,
  options: OpenApiOptions,
): JsonSchema {
  const headers: Record<string, unknown> = {
    ETag: ref('headers', 'ETag'),
    'Cache-Control': ref('headers', 'CacheControl'),
    'X-Request-Id': ref('headers', 'RequestId'),
  };
  if (route.paged) headers.Link = ref('headers', 'Link');
  if ('csv' in route.body) headers['Content-Disposition'] = ref('headers', 'ContentDisposition');
  if (options.rateLimited && !route.exemptFromRateLimit)
    Object.assign(headers, {
      RateLimit: ref('headers', 'RateLimit'),
      'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
    });
  const stream = 'sse' in route.body;
  // A stream is never cached: no validator to revalidate, hence no ETag and no 304.
  if (stream) {
    headers['Cache-Control'] = { description: 'no-store: never cached', schema: { type: 'string' } };
    delete headers.ETag;
  }
  const responses: JsonSchema = {
    200: { description: route.summary, headers, content: okContent(route, components, schema) },
  };
  if (!stream) responses[304] = ref('responses', 'NotModified');
  if (route.params.length > 0) responses[400] = withExampleOf(route, 400, ref('responses', 'BadRequest'));
  if (route.notFound)
    responses[404] = problemResponse(
      route.notFound,
      examples[route.operationId]?.['404'] ?? problemExample('NOT_FOUND', route.notFound),
    );
  responses[405] = ref('responses', 'MethodNotAllowed');
  responses[414] = ref('responses', 'UriTooLong');
  responses[431] = ref('responses', 'HeadersTooLarge');
  if (stream) {
    responses[429] = problemResponse(
      'Too many open streams from this address (STREAMS_PER_IP), or over the rate limit: wait Retry-After seconds.',
      problemExample('TOO_MANY_REQUESTS', 'Too many open streams from your address (at most 50); close one first.'),
      { 'Retry-After': ref('headers', 'RetryAfter') },
    );
  } else if (options.rateLimited && !route.exemptFromRateLimit) responses[429] = ref('responses', 'TooManyRequests');
  responses[500] = ref('responses', 'InternalError');
  if (route.operationId === 'getHealth') {
    const degraded = examples.getHealth?.['503'];
    responses[503] = {
      description:
        'Degraded: the database does not answer, or the data is older than the configured maximum age (or, ' +
        'rarely, the check itself took too long: a problem).',
      headers: { 'X-Request-Id': ref('headers', 'RequestId'), 'Cache-Control': ref('headers', 'CacheControl') },
      content: {
        'application/json': {
          schema: typeSchema(schema.getType('Health') as GraphQLOutputType, components),
          ...(degraded ? { example: degraded } : {}),
        },
        'application/problem+json': {
          schema: ref('schemas', 'Problem'),
          example: problemExample('SERVICE_UNAVAILABLE', 'The answer took longer than 30000 ms; please retry.'),
        },
      },
    };
  } else {
    // Every answer can be cut short by the processing timeout; those that read the database, by an outage.
    responses[503] = ref('responses', 'ServiceUnavailable');
  }
  return responses;
}

/** A shared response with this operation's own real example instead of the generic one. */
function withExampleOf(route: RestRoute, status: number, shared: JsonSchema): JsonSchema {
  const example = examples[route.operationId]?.[String(status)];
  if (example === undefined) return shared;
  return problemResponse(
    status === 400 ? 'Invalid parameters: every bad one is listed in `errors`.' : 'Problem',
    example,
  );
}

const TAGS = [
  {
    name: 'Offers',
    description: 'Savings offers calculated for an amount: the list, one offer in detail, the CSV export.',
  },
  { name: 'Market', description: 'Institutions and their deposit guarantee, rate history, change events.' },
  { name: 'Service', description: 'Freshness, health, metrics and this description.' },
];

const DESCRIPTION =
  'A read-only API that calculates, on the server, what every savings offer earns for an amount, how much of ' +
  'it the deposit guarantee scheme covers, and how rates have moved. Rates are gross, per year, as published ' +
  'by the provider; variable rates can change; the data is not advice. ' +
  'Amounts are in euros and rates in percent per year, as strings with two decimals; dates are ISO 8601. The ' +
  'ordering of results follows only from the rate, the amount and the deposit guarantee, never from fees paid ' +
  'by banks. ' +
  'Every answer carries a weak ETag: send it back in If-None-Match for a 304. Errors are RFC 9457 problem ' +
  'details (application/problem+json) listing every bad parameter at once. No key or credential is needed. ' +
  'GraphQL at /graphql serves the same schema (this REST API is a projection of it).';

export function openApiDocument(
  schema: GraphQLSchema,
  routes: readonly RestRoute[],
  options: OpenApiOptions,
): JsonSchema {
  const components = new Map<string, JsonSchema>();
  const paths: Record<string, JsonSchema> = {};
  for (const route of routes) {
    const operation = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      description: route.description,
      parameters: route.params.map(parameter),
      responses: responsesFor(route, components, schema, options),
    };
    const head = {
      ...operation,
      operationId: `${route.operationId}Head`,
      summary: `${route.summary} (headers only)`,
      description: `As GET ${route.path}, without a body.`,
      responses: {
        ...operation.responses,
        200: { description: 'As GET, without a body.', headers: (operation.responses[200] as JsonSchema).headers },
      },
    };
    paths[route.path] = { get: operation, head };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Savings-rate comparison API',
      version: API_VERSION,
      description: DESCRIPTION,
      termsOfService: '/api/docs#terms',
      license: {
        name:
          'Free for personal and non-commercial use with attribution and a link; the full dataset must not be ' +
          'republished as a competing comparison; please keep request rates polite.',
        url: '/api/docs#terms',
      },
    },
    servers: [{ url: '/', description: 'this service' }],
    security: [],
    tags: TAGS,
    paths,
    components: {
      schemas: {
        ...Object.fromEntries([...components].sort(([a], [b]) => (a < b ? -1 : 1))),
        ParameterProblem: {
          type: 'object',
          description: 'One bad parameter: its name, as the client sent it, and why it is not accepted.',
          properties: { parameter: { type: 'string' }, message: { type: 'string' } },
          required: ['parameter', 'message'],
          additionalProperties: false,
        },
        Problem: {
          type: 'object',
          description: `RFC 9457 problem details. Types: ${Object.values(ERRORS)
            .map((e) => `${e.status} ${e.slug}`)
            .join(', ')}.`,
          properties: {
            type: { type: 'string', format: 'uri-reference', description: 'where the kind of problem is explained' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            errors: {
              type: 'array',
              items: ref('schemas', 'ParameterProblem'),
              description: 'every bad parameter (400)',
            },
          },
          required: ['type', 'title', 'status', 'detail'],
          additionalProperties: false,
        },
      },
      headers: options.rateLimited
        ? HEADERS
        : Object.fromEntries(Object.entries(HEADERS).filter(([name]) => !name.startsWith('RateLimit'))),
      responses: sharedResponses(options),
    },
  };
}
