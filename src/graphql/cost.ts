// An operation's estimated cost, before it runs: every field costs 1, and what a list holds counts as
// often as the list is long — taken from the arguments that bound it (pageSize, limit, ids, days) or,
// where none does, from what the data allows. Static cost rules that ignore list sizes let ten aliased
// 500-offer pages through at the price of one.
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  valueFromAST,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * How long the lists no argument bounds can be: taken from the data (the catalogue being served), so the
 * estimate is an upper bound that does not charge every query for the longest list imaginable.
 */
export interface ListBounds {
  /** The longest deposit term in months (a detail's steps: max(horizon, this)). */
  longestTerm: number;
  /** The most active offers one institution has, minus the offer itself. */
  sameLicence: number;
  tiers: number;
  brands: number;
  institutions: number;
  /** The detail shows at most this many plans and events. */
  history: number;
  events: number;
}

/** Bounds for when nothing is known of the data: the largest values the rules allow. */
export const WORST_CASE: ListBounds = {
  longestTerm: 600,
  sameLicence: 1_000,
  tiers: 20,
  brands: 20,
  institutions: 1_000,
  history: 100,
  events: 100,
};

/** What a list holds when neither an argument nor the data bounds it. */
const DEFAULT_LIST_SIZE = 25;

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  bounds: ListBounds;
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

/** The longest a list-valued field can be, from the data, where no argument says. */
function knownSize(
  walk: Walk,
  field: string,
  path: readonly string[],
  rootArgs: Record<string, unknown>,
): number | undefined {
  const b = walk.bounds;
  switch (field) {
    // Monthly steps are filled in the detail's offer only (one per month); lists leave them empty.
    case 'steps':
      return path.includes('offer')
        ? Math.max(typeof rootArgs.horizon === 'number' ? rootArgs.horizon : 12, b.longestTerm)
        : 0;
    case 'sameLicence':
      return b.sameLicence;
    case 'tiers':
      return b.tiers;
    case 'brands':
      return b.brands;
    case 'sharedWith':
      return Math.max(0, b.brands - 1);
    case 'history':
      return b.history;
    case 'events':
      return b.events;
    default:
      return path.length === 1 && path[0] === 'institutions' ? b.institutions : undefined;
  }
}

function selectionCost(
  walk: Walk,
  type: GraphQLObjectType,
  set: SelectionSetNode,
  inheritedSize: number | undefined,
  seen: Set<string>,
  path: readonly string[],
  rootArgs: Record<string, unknown>,
): number {
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      cost += selectionCost(walk, type, selection.selectionSet, inheritedSize, seen, path, rootArgs);
      continue;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = walk.fragments.get(selection.name.value);
      if (fragment && !seen.has(fragment.name.value)) {
        cost += selectionCost(
          walk,
          type,
          fragment.selectionSet,
          inheritedSize,
          new Set([...seen, fragment.name.value]),
          path,
          rootArgs,
        );
      }
      continue;
    }
    const field = type.getFields()[selection.name.value];
    if (!field) continue; // __typename and friends; validation reports unknown fields
    const args = argumentsOf(walk, type, selection);
    const own = sizeFrom(args);
    const fieldType = getNullableType(field.type);
    const multiplier = isListType(fieldType)
      ? (own ?? inheritedSize ?? knownSize(walk, field.name, path, rootArgs) ?? DEFAULT_LIST_SIZE)
      : 1;
    const named = getNamedType(field.type);
    const children =
      selection.selectionSet && isObjectType(named)
        ? selectionCost(
            walk,
            named,
            selection.selectionSet,
            isListType(fieldType) ? undefined : own,
            seen,
            [...path, field.name],
            path.length === 0 ? args : rootArgs,
          )
        : 0;
    cost += multiplier * (1 + children);
  }
  return cost;
}

export function estimateCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: FragmentDefinitionNode[],
  variables: Record<string, unknown>,
  bounds: ListBounds = WORST_CASE,
): number {
  const root = operation.operation === 'query' ? schema.getQueryType() : null;
  if (!root) return 0;
  const walk = { schema, fragments: new Map(fragments.map((f) => [f.name.value, f])), variables, bounds };
  return selectionCost(walk, root, operation.selectionSet, undefined, new Set(), [], {});
}
