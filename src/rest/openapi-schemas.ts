// The JSON Schemas of the OpenAPI description, from the same sources as the API itself: a GraphQL output
// type in its REST spelling (scalars as their string forms, enums as their REST values, nullability as
// the schema says), and a route parameter with the ranges and defaults its GraphQL argument checks.
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
} from 'graphql';
import { z } from 'zod';
import { PARAM_LIMITS, PARAMS } from '../graphql/args.js';
import { restValues, type ParamSpec } from './params.js';

export type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  Decimal: { type: 'string', pattern: '^-?\\d+\\.\\d{2}$' },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  JSON: { type: 'object', description: 'what changed, e.g. {"headlineRate": "2.10"}', additionalProperties: true },
};

const enumSchema = (type: GraphQLEnumType): JsonSchema => ({
  type: 'string',
  enum: restValues(type),
  ...(type.description ? { description: type.description } : {}),
});

/** JSON Schema of a GraphQL output type (its own nullability aside); object types become $refs into `components`. */
export function typeSchema(type: GraphQLOutputType, components: Map<string, JsonSchema>): JsonSchema {
  const inner = getNullableType(type);
  if (isListType(inner)) return { type: 'array', items: fieldSchema(inner.ofType, components) };
  const named = getNamedType(inner) as GraphQLNamedType;
  if (isScalarType(named)) return { ...(SCALARS[named.name] ?? {}) };
  if (isEnumType(named)) return enumSchema(named);
  if (!isObjectType(named)) return {};
  if (!components.has(named.name)) {
    components.set(named.name, {}); // placeholder: types can refer to themselves
    const fields = Object.values(named.getFields());
    components.set(named.name, {
      type: 'object',
      ...(named.description ? { description: named.description } : {}),
      properties: Object.fromEntries(
        fields.map((f) => {
          const property = fieldSchema(f.type, components);
          return [f.name, f.description ? withDescription(property, f.description) : property];
        }),
      ),
      // Absent values are null, never missing keys.
      required: fields.map((f) => f.name),
      additionalProperties: false,
    });
  }
  return { $ref: `#/components/schemas/${named.name}` };
}

/** A field's schema: null allowed where GraphQL allows it. */
function fieldSchema(type: GraphQLOutputType, components: Map<string, JsonSchema>): JsonSchema {
  const schema = typeSchema(type, components);
  if (isNonNullType(type)) return schema;
  if ('$ref' in schema) return { oneOf: [schema, { type: 'null' }] };
  if (typeof schema.type === 'string')
    return {
      ...schema,
      type: [schema.type, 'null'],
      ...(schema.enum ? { enum: [...(schema.enum as unknown[]), null] } : {}),
    };
  return schema;
}

/** A $ref cannot carry a description of its own in every tool: wrap it. */
const withDescription = (schema: JsonSchema, description: string): JsonSchema =>
  '$ref' in schema ? { allOf: [schema], description } : { ...schema, description };

function rangeOf(name: string): JsonSchema {
  const rule = PARAMS[name as keyof typeof PARAMS];
  if (!rule) return {};
  const { $schema: _drop, ...schema } = z.toJSONSchema(rule, { unrepresentable: 'any' }) as JsonSchema;
  return schema;
}

/** What a decimal parameter holds, by name (the shared rules check the same ranges): an amount unless said. */
const DECIMAL_PARAMS: Record<string, JsonSchema> = {
  amount: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: PARAM_LIMITS.amountMax,
    description: 'in euros, at most two decimals',
  },
  flexibleShare: {
    type: 'number',
    minimum: 0,
    maximum: 100,
    description: 'in percent of the amount, at most two decimals',
  },
};

function itemSchema(spec: ParamSpec): JsonSchema {
  const type = spec.base;
  if (isEnumType(type)) return { type: 'string', enum: restValues(type) };
  const name = getNamedType(type).name;
  if (name === 'Decimal') return { ...(DECIMAL_PARAMS[spec.name] ?? DECIMAL_PARAMS.amount) };
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
    schema = {
      ...itemSchema(spec),
      ...(range.type === 'integer' ? range : {}),
      ...(typeof range.maxLength === 'number' ? { maxLength: range.maxLength } : {}),
    };
    if ((schema.maximum as number) > 1e15) delete schema.maximum;
  }
  const fallback = spec.arg.defaultValue;
  if (fallback !== undefined && fallback !== null)
    schema.default = getNamedType(spec.base).name === 'Decimal' ? Number(fallback) : fallback;
  return schema;
}

export function parameter(spec: ParamSpec): JsonSchema {
  const list = spec.list
    ? ' Also accepted: repeated (terms=12&terms=24) and bracketed (terms[]=12&terms[]=24) forms.'
    : '';
  return {
    name: spec.name,
    in: spec.in,
    required: spec.in === 'path' || (isNonNullType(spec.arg.type) && spec.arg.defaultValue === undefined),
    description: `${spec.arg.description ?? spec.name}${list}`,
    schema: parameterSchema(spec),
    // Lists are one comma-separated value: terms=12,24
    ...(spec.list ? { style: 'form', explode: false } : {}),
  };
}
