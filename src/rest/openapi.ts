// GET /api/openapi.json: OpenAPI 3.1, generated from the same sources as the API itself — the route
// table, the GraphQL arguments (names, types, defaults, allowed values), the shared zod ranges, and
// the GraphQL output types in their REST spelling.
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLEnumType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { z } from 'zod';
import { PARAMS } from '../graphql/args.js';
import { ERRORS } from '../http/errors.js';
import { CSV_COLUMNS } from './csv.js';
import { restValues, type ParamSpec } from './params.js';
import type { RestRoute } from './route.js';

type JsonSchema = Record<string, unknown>;

export const API_VERSION = '0.2.0';

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  Decimal: { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', description: 'a decimal with two decimals: euros, or percent per year', examples: ['1234.56'] },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  JSON: { type: ['object', 'null'], description: 'what changed, e.g. {"headlineRate": "2.10"}' },
};

const enumSchema = (type: GraphQLEnumType): JsonSchema => ({ type: 'string', enum: restValues(type), ...(type.description ? { description: type.description } : {}) });

/** A GraphQL output type as JSON Schema; object types become $refs collected into `components`. */
function outputSchema(type: GraphQLOutputType, components: Map<string, JsonSchema>): JsonSchema {
  const nullable = !isNonNullType(type);
  const inner = getNullableType(type);
  let schema: JsonSchema;
  if (isListType(inner)) {
    schema = { type: 'array', items: outputSchema(inner.ofType, components) };
  } else {
    const named = getNamedType(inner) as GraphQLNamedType;
    if (isScalarType(named)) schema = SCALARS[named.name] ?? {};
    else if (isEnumType(named)) schema = enumSchema(named);
    else if (isObjectType(named)) {
      if (!components.has(named.name)) {
        components.set(named.name, {}); // placeholder: types can refer to themselves
        const fields = Object.values(named.getFields());
        components.set(named.name, {
          type: 'object',
          ...(named.description ? { description: named.description } : {}),
          properties: Object.fromEntries(
            fields.map((f) => {
              const property = outputSchema(f.type, components);
              return [f.name, f.description ? { ...property, description: f.description } : property];
            }),
          ),
          // Absent values are null, never missing keys.
          required: fields.map((f) => f.name),
          additionalProperties: false,
        });
      }
      schema = { $ref: `#/components/schemas/${named.name}` };
    } else schema = {};
  }
  if (!nullable) return schema;
  if ('$ref' in schema) return { oneOf: [schema, { type: 'null' }] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'], ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
  return schema;
}

function rangeOf(name: string): JsonSchema {
  const rule = PARAMS[name as keyof typeof PARAMS];
  if (!rule) return {};
  const { $schema: _drop, ...schema } = z.toJSONSchema(rule, { unrepresentable: 'any' }) as JsonSchema;
  return schema;
}

function itemSchema(spec: ParamSpec): JsonSchema {
  const type = spec.base;
  if (isEnumType(type)) return { type: 'string', enum: restValues(type) };
  const name = getNamedType(type).name;
  if (name === 'Decimal') return { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'at most two decimals' };
  return SCALARS[name] ?? { type: 'string' };
}

function parameterSchema(spec: ParamSpec): JsonSchema {
  const range = rangeOf(spec.name);
  let schema: JsonSchema;
  if (spec.list) {
    const items = { ...itemSchema(spec), ...((range.items as JsonSchema | undefined) ?? {}) };
    if ((items.maximum as number) > 1e15) delete items.maximum;
    schema = { type: 'array', items, ...(range.maxItems ? { maxItems: range.maxItems } : {}) };
  } else {
    schema = { ...itemSchema(spec), ...(range.type === 'integer' ? range : {}), ...(typeof range.maxLength === 'number' ? { maxLength: range.maxLength } : {}) };
    if ((schema.maximum as number) > 1e15) delete schema.maximum;
  }
  const fallback = spec.arg.defaultValue;
  if (fallback !== undefined && fallback !== null) schema.default = getNamedType(spec.base).name === 'Decimal' ? Number(fallback) : fallback;
  return schema;
}

function parameter(spec: ParamSpec): JsonSchema {
  return {
    name: spec.name,
    in: spec.in,
    required: spec.in === 'path',
    ...(spec.arg.description ? { description: spec.arg.description } : {}),
    schema: parameterSchema(spec),
    // Lists are one comma-separated value: terms=12,24
    ...(spec.list ? { style: 'form', explode: false } : {}),
  };
}

const problemRef = { $ref: '#/components/schemas/Problem' };
const problemResponse = (description: string) => ({ description, content: { 'application/problem+json': { schema: problemRef } } });
const CACHE_HEADERS = {
  ETag: { description: 'weak validator computed from the body; send it back in If-None-Match', schema: { type: 'string' } },
  'Cache-Control': { description: 'how long the answer may be reused', schema: { type: 'string' } },
  'X-Request-Id': { description: 'the request id (echoed, or made up)', schema: { type: 'string' } },
};

function responsesFor(route: RestRoute, components: Map<string, JsonSchema>, schema: GraphQLSchema): JsonSchema {
  const ok: JsonSchema = { description: route.summary, headers: CACHE_HEADERS };
  const graphqlType = (name: string) => outputSchema(schema.getType(name) as never, components);
  const body = route.body;
  if ('csv' in body) ok.content = { 'text/csv': { schema: { type: 'string', description: body.csv } } };
  else if ('html' in body) ok.content = { 'text/html': { schema: { type: 'string' } } };
  else if ('metrics' in body) ok.content = { 'application/json': { schema: { type: 'object', description: 'process memory, data version, cache sizes and hit counts' } } };
  else if ('openapi' in body) ok.content = { 'application/json': { schema: { type: 'object', description: 'an OpenAPI 3.1 document' } } };
  else if ('jsonOneOf' in body) ok.content = { 'application/json': { schema: { oneOf: body.jsonOneOf.map(graphqlType) } } };
  else if ('atom' in body) ok.content = { 'application/atom+xml': { schema: { type: 'string', description: body.atom } } };
  else if ('sse' in body) {
    ok.headers = { 'Cache-Control': { description: 'no-store: never cached', schema: { type: 'string' } }, 'X-Request-Id': CACHE_HEADERS['X-Request-Id'] };
    const description = 'Server-Sent Events: each event has `id:` its id, `event:` its kind and `data:` the JSON in x-event-data; comment lines keep the connection open; `retry:` the reconnection delay.';
    graphqlType(body.sse); // into the components
    ok.content = { 'text/event-stream': { schema: { type: 'string', description }, 'x-event-data': { $ref: `#/components/schemas/${body.sse}` } } };
  } else ok.content = { 'application/json': { schema: graphqlType(body.json) } };
  const responses: JsonSchema = {
    200: ok,
    304: { description: 'Not modified: the If-None-Match value matches the current ETag', headers: CACHE_HEADERS },
    405: problemResponse('Method not allowed (the API is read-only); Allow: GET, HEAD'),
  };
  if ('sse' in body) {
    // A stream has no validator to revalidate, and is refused beyond the streams allowed per client.
    delete responses[304];
    responses[429] = problemResponse('Too many open streams from this address (STREAMS_PER_IP); Retry-After says when to try again');
    responses[503] = problemResponse('Shutting down, or the database is not reachable to read the events to resume from; Retry-After');
  }
  if (route.params.length > 0) responses[400] = problemResponse('Invalid parameters: every bad parameter is listed in `errors`');
  if (route.notFound) responses[404] = problemResponse(route.notFound);
  if (route.operationId === 'getHealth') responses[503] = { description: 'Degraded', content: { 'application/json': { schema: graphqlType('Health') } } };
  responses[500] = problemResponse('Unexpected error (never for any input; reported with the request id)');
  return responses;
}

export function openApiDocument(schema: GraphQLSchema, routes: readonly RestRoute[]): JsonSchema {
  const components = new Map<string, JsonSchema>();
  const paths: Record<string, JsonSchema> = {};
  for (const route of routes) {
    const { operationId } = route;
    const operation = {
      operationId,
      summary: route.summary,
      description: route.description,
      parameters: route.params.map(parameter),
      responses: responsesFor(route, components, schema),
    };
    paths[route.path] = {
      get: operation,
      head: { ...operation, operationId: `${operationId}Head`, summary: `${route.summary} (headers only)`, responses: { ...(operation.responses as object), 200: { description: 'as GET, without a body', headers: CACHE_HEADERS } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Savings-rate comparison API',
      version: API_VERSION,
      description:
        'A read-only API that calculates, on the server, what every savings offer earns for an amount, how much of it the deposit guarantee scheme covers, and how rates have moved. Rates are gross, per year, as published by the provider; variable rates can change; the data is not advice. Amounts are in euros, rates are percentages per year as strings with two decimals, dates are ISO 8601. The ordering of results follows only from the rate, the amount and the deposit guarantee, never from fees paid by banks. Every response carries a weak ETag; send it back in If-None-Match for a 304. Terms of use: free for personal and non-commercial use with attribution and a link; the full dataset must not be republished as a competing comparison; please keep request rates polite. GraphQL at /graphql serves the same schema.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: {
        ...Object.fromEntries([...components].sort(([a], [b]) => (a < b ? -1 : 1))),
        ParameterProblem: {
          type: 'object',
          properties: { parameter: { type: 'string' }, message: { type: 'string' } },
          required: ['parameter', 'message'],
        },
        Problem: {
          type: 'object',
          description: `RFC 9457 problem details. Types: ${Object.values(ERRORS).map((e) => `${e.status} ${e.slug}`).join(', ')}.`,
          properties: {
            type: { type: 'string', format: 'uri-reference' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            errors: { type: 'array', items: { $ref: '#/components/schemas/ParameterProblem' } },
          },
          required: ['type', 'title', 'status', 'detail'],
        },
      },
    },
  };
}
