// REST answers spell enum values as the contract does ("deposit", "rate_up", "24h"); GraphQL answers
// spell them as GraphQL names (DEPOSIT). For REST requests the result is rewritten after execution,
// walking it along the schema's types (REST operations use no aliases, so keys are field names).
// Only the fields that can hold an enum are visited: a plan per type, made once.
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isObjectType,
  type GraphQLEnumType,
  type GraphQLObjectType,
  type GraphQLOutputType,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../graphql/context.js';

type Step = { field: string; list: boolean } & (
  { kind: 'enum'; names: Map<string, string> } | { kind: 'object'; type: GraphQLObjectType }
);

const plans = new WeakMap<GraphQLObjectType, Step[]>();

/** Whether values of this type can contain an enum anywhere below. */
function holdsEnum(type: GraphQLOutputType, seen = new Set<GraphQLObjectType>()): boolean {
  const named = getNamedType(type);
  if (isEnumType(named)) return true;
  if (!isObjectType(named) || seen.has(named)) return false;
  seen.add(named);
  return Object.values(named.getFields()).some((f) => holdsEnum(f.type, seen));
}

const enumNames = (type: GraphQLEnumType) => new Map(type.getValues().map((v) => [v.name, String(v.value)]));

function planOf(type: GraphQLObjectType): Step[] {
  let plan = plans.get(type);
  if (!plan) {
    plan = [];
    for (const field of Object.values(type.getFields())) {
      if (!holdsEnum(field.type)) continue;
      const nullable = getNullableType(field.type);
      const list = isListType(nullable);
      const named = getNamedType(field.type);
      if (isEnumType(named)) plan.push({ field: field.name, list, kind: 'enum', names: enumNames(named) });
      else if (isObjectType(named)) plan.push({ field: field.name, list, kind: 'object', type: named });
    }
    plans.set(type, plan);
  }
  return plan;
}

export function respellObject(value: Record<string, unknown>, type: GraphQLObjectType): Record<string, unknown> {
  for (const step of planOf(type)) {
    const v = value[step.field];
    if (v === null || v === undefined) continue;
    if (step.kind === 'enum') {
      value[step.field] = step.list
        ? (v as string[]).map((name) => step.names.get(name) ?? name)
        : (step.names.get(v as string) ?? v);
    } else if (step.list) {
      for (const item of v as (Record<string, unknown> | null)[]) if (item) respellObject(item, step.type);
    } else {
      respellObject(v as Record<string, unknown>, step.type);
    }
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
