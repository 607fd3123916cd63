// An operation's estimated cost, before it runs: every field costs 1, and what a list holds counts as
// often as the list is long — taken from the arguments that bound it (pageSize, limit, ids, days) or,
// where none does, from what the data allows. Static cost rules that ignore list sizes let ten aliased
// 500-offer pages through at the price of one.
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isListType,
  isObjectType,
  Kind,
  valueFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Lists no argument bounds: their longest realistic length. */
const LIST_SIZES: Record<string, number> = {
  history: 100,
  events: 100,
  sameLicence: 20,
  tiers: 10,
  brands: 5,
  sharedWith: 5,
};
const DEFAULT_LIST_SIZE = 25;

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

function argumentsOf(walk: Walk, parent: GraphQLObjectType, node: FieldNode): Record<string, unknown> {
  const field = parent.getFields()[node.name.value];
  const values: Record<string, unknown> = {};
  for (const arg of field?.args ?? []) {
    const given = node.arguments?.find((a) => a.name.value === arg.name);
    // An omitted variable leaves the argument's default in force, as in execution.
    values[arg.name] = (given && valueFromAST(given.value, arg.type, walk.variables)) ?? arg.defaultValue;
  }
  return values;
}

/** How many items a list-valued field will hold, from its own arguments or its parent's. */
function sizeFrom(args: Record<string, unknown>): number | undefined {
  for (const name of ['pageSize', 'limit', 'days'] as const) if (typeof args[name] === 'number') return args[name];
  if (Array.isArray(args.ids)) return args.ids.length;
  return undefined;
}

/** Monthly steps are filled in the detail's offer only (one per month, at most 600); lists leave them empty. */
const stepsSize = (path: readonly string[]) => (path.includes('offer') ? 600 : 0);

function selectionCost(walk: Walk, type: GraphQLObjectType, set: SelectionSetNode, inheritedSize: number | undefined, seen: Set<string>, path: readonly string[]): number {
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      cost += selectionCost(walk, type, selection.selectionSet, inheritedSize, seen, path);
      continue;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = walk.fragments.get(selection.name.value);
      if (fragment && !seen.has(fragment.name.value)) {
        cost += selectionCost(walk, type, fragment.selectionSet, inheritedSize, new Set([...seen, fragment.name.value]), path);
      }
      continue;
    }
    const field = type.getFields()[selection.name.value];
    if (!field) continue; // __typename and friends; validation reports unknown fields
    const args = argumentsOf(walk, type, selection);
    const own = sizeFrom(args);
    const fieldType = getNullableType(field.type);
    const known = field.name === 'steps' ? stepsSize(path) : LIST_SIZES[field.name];
    const multiplier = isListType(fieldType) ? (own ?? inheritedSize ?? known ?? DEFAULT_LIST_SIZE) : 1;
    const named = getNamedType(field.type);
    const children =
      selection.selectionSet && isObjectType(named)
        ? selectionCost(walk, named, selection.selectionSet, isListType(fieldType) ? undefined : own, seen, [...path, field.name])
        : 0;
    cost += multiplier * (1 + children);
  }
  return cost;
}

export function estimateCost(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: FragmentDefinitionNode[], variables: Record<string, unknown>): number {
  const root = operation.operation === 'query' ? schema.getQueryType() : null;
  if (!root) return 0;
  return selectionCost({ schema, fragments: new Map(fragments.map((f) => [f.name.value, f])), variables }, root, operation.selectionSet, undefined, new Set(), []);
}

/** Rejects, before execution, operations estimated to cost more than `maxCost`. */
export function costLimit(maxCost: number): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const definitions = (args.document as DocumentNode).definitions;
      const operations = definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
      const operation = args.operationName ? operations.find((o) => o.name?.value === args.operationName) : operations[0];
      if (!operation) return;
      const fragments = definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
      const cost = estimateCost(args.schema, operation, fragments, (args.variableValues ?? {}) as Record<string, unknown>);
      if (cost > maxCost) {
        setResultAndStopExecution({
          errors: [
            new GraphQLError(`Query too complex: its estimated cost ${cost} exceeds ${maxCost}. Ask for fewer or smaller lists, or split the query.`, {
              extensions: { code: 'QUERY_TOO_COMPLEX', cost, maxCost, http: { status: 400 } },
            }),
          ],
        });
      }
    },
  };
}
