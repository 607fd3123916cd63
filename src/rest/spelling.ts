// REST answers spell enum values as the contract does ("deposit", "rate_up", "24h"); GraphQL answers
// spell them as GraphQL names (DEPOSIT). For REST requests the result is rewritten after execution,
// walking it along the schema's types (REST operations use no aliases, so keys are field names).
import { getNamedType, getNullableType, isEnumType, isListType, isObjectType, type GraphQLObjectType, type GraphQLOutputType } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../graphql/context.js';

function respell(value: unknown, type: GraphQLOutputType): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) return (value as unknown[]).map((item) => respell(item, nullable.ofType));
  const named = getNamedType(nullable);
  if (isEnumType(named)) return named.getValue(value as string)?.value ?? value;
  if (isObjectType(named)) return respellObject(value as Record<string, unknown>, named);
  return value;
}

export function respellObject(value: Record<string, unknown>, type: GraphQLObjectType): Record<string, unknown> {
  const fields = type.getFields();
  for (const key of Object.keys(value)) {
    const field = fields[key];
    if (field) value[key] = respell(value[key], field.type);
  }
  return value;
}

export function restSpelling(): Plugin<Context> {
  return {
    onExecute({ args }) {
      if (!(args.contextValue as Partial<Context>).rest) return;
      const query = args.schema.getQueryType();
      return {
        onExecuteDone({ result }) {
          const data = (result as { data?: Record<string, unknown> | null }).data;
          if (query && data) respellObject(data, query);
        },
      };
    },
  };
}
