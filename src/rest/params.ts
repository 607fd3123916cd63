// REST query parameters, as a projection of the GraphQL arguments: a parameter's name, type, default,
// description and allowed values are those of the root field's argument; its range is the shared zod
// rule (src/graphql/args.ts). Parsing turns the query string into GraphQL variables, or lists every
// problem at once.
import {
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { CROSS_RULES, PARAMS } from '../graphql/args.js';
import { parseInstant } from '../graphql/scalars.js';
import { schema } from '../graphql/schema/index.js';
import type { ParameterProblem } from '../request/errors.js';

/** One REST parameter: a GraphQL argument seen from the query string. */
export interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  arg: GraphQLArgument;
  /** The named type of the argument (or of its list items). */
  base: GraphQLInputType;
  list: boolean;
}

export function paramsOf(field: GraphQLField<unknown, unknown>, pathParams: readonly string[] = []): ParamSpec[] {
  return field.args.map((arg) => {
    const type = getNullableType(arg.type);
    const list = isListType(type);
    const base = (list ? getNullableType(type.ofType) : type) as GraphQLInputType;
    return { name: arg.name, in: pathParams.includes(arg.name) ? 'path' : 'query', arg, base, list };
  });
}

/** The REST parameters of a root field: its arguments, some of them in the path. */
export const queryParams = (field: string, pathParams: readonly string[] = []): ParamSpec[] =>
  paramsOf(schema.getQueryType()!.getFields()[field]!, pathParams);

/** The REST parameters of a subscription field (a stream): its arguments. */
export const subscriptionParams = (field: string): ParamSpec[] =>
  paramsOf(schema.getSubscriptionType()!.getFields()[field]!);

/**
 * Variables in GraphQL spelling → the values resolvers see (an enum's internal value: RATE_UP →
 * rate_up), for a route that hands its parameters to a service instead of running an operation.
 */
export function internalValues(
  specs: readonly ParamSpec[],
  variables: Record<string, unknown>,
): Record<string, unknown> {
  const values: Record<string, unknown> = { ...variables };
  for (const spec of specs) {
    const type = spec.base;
    const value = variables[spec.name];
    if (!isEnumType(type) || value == null) continue;
    const internal = (name: unknown) => type.getValue(String(name))?.value ?? name;
    values[spec.name] = Array.isArray(value) ? value.map(internal) : internal(value);
  }
  return values;
}

const INTEGER = /^[+-]?\d{1,15}$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** REST spelling (an enum's internal value) → the GraphQL name, case-insensitively. */
function enumName(type: GraphQLEnumType, text: string): string | undefined {
  const lower = text.toLowerCase();
  return type.getValues().find((v) => String(v.value).toLowerCase() === lower)?.name;
}

export const restValues = (type: GraphQLEnumType): string[] => type.getValues().map((v) => String(v.value));

type Parsed = { ok: true; value: unknown; internal: unknown } | { ok: false; message: string };

/** One value of the query string: its GraphQL variable value, and its internal value for the checks. */
function parseOne(spec: ParamSpec, text: string): Parsed {
  const type = spec.base;
  if (isEnumType(type)) {
    const name = enumName(type, text);
    return name === undefined
      ? { ok: false, message: `must be one of ${restValues(type).join(', ')}` }
      : { ok: true, value: name, internal: type.getValue(name)!.value };
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return INTEGER.test(text)
          ? { ok: true, value: Number(text), internal: Number(text) }
          : { ok: false, message: 'must be a whole number' };
      case 'Decimal':
        return DECIMAL.test(text)
          ? { ok: true, value: text, internal: text }
          : { ok: false, message: 'must be a number such as 50000 or 1234.56' };
      case 'Boolean': {
        const lower = text.toLowerCase();
        return lower === 'true' || lower === 'false'
          ? { ok: true, value: lower === 'true', internal: lower === 'true' }
          : { ok: false, message: 'must be true or false' };
      }
      case 'DateTime': {
        // An unescaped "+" in a query string arrives as a space: "…T09:00:00+01:00" is what was meant.
        const instant = text.replace(/ (\d{2}:\d{2})$/, '+$1');
        return parseInstant(instant)
          ? { ok: true, value: instant, internal: instant }
          : { ok: false, message: 'must be an RFC 3339 instant such as 2026-11-22T08:00:00Z' };
      }
      default:
        return { ok: true, value: text, internal: text };
    }
  }
  return { ok: false, message: 'is not supported as a query parameter' };
}

export type ParseResult = { ok: true; variables: Record<string, unknown> } | { ok: false; errors: ParameterProblem[] };

/** `name[]` (axios, jQuery, PHP) and `name[0]` (qs's indices): list forms of `name`. */
const BRACKETED = /^([^[\]]+)\[(\d*)\]$/;

/**
 * Every value the query string gives for each parameter, whatever form the client used (contract
 * §11.1): `terms=12,24`, `terms=12&terms=24`, `terms[]=12&terms[]=24` (`terms%5B%5D` decodes to the
 * same), `terms[0]=12`, or a mix. `odd` names the known parameters sent in a form that is none of
 * these (`terms[a]=12`): a client that sends them means something, so it is told, not ignored.
 */
function valuesByName(
  known: ReadonlySet<string>,
  query: URLSearchParams,
): { values: Map<string, string[]>; odd: Set<string> } {
  const values = new Map<string, string[]>();
  const odd = new Set<string>();
  for (const [key, value] of query) {
    let name = key;
    if (!known.has(key) && key.endsWith(']')) {
      const m = BRACKETED.exec(key);
      const base = m?.[1] ?? key.slice(0, key.indexOf('['));
      if (!known.has(base)) continue;
      if (!m) {
        odd.add(base);
        continue;
      }
      name = base;
    }
    if (!known.has(name)) continue;
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return { values, odd };
}

/**
 * The query string (and path parameters) → GraphQL variables. A list parameter takes every value in
 * every form; any other parameter given twice is an error; an empty one counts as absent (an error
 * when the argument is required and has no default), an unknown one is ignored (contract §7, §11.1).
 */
export function parseParams(
  specs: readonly ParamSpec[],
  query: URLSearchParams,
  path: Record<string, string> = {},
): ParseResult {
  const errors: ParameterProblem[] = [];
  const variables: Record<string, unknown> = {};
  const internal: Record<string, unknown> = {};
  const { values, odd } = valuesByName(new Set(specs.filter((s) => s.in === 'query').map((s) => s.name)), query);
  for (const spec of specs) {
    if (odd.has(spec.name)) {
      errors.push({
        parameter: spec.name,
        message:
          `is sent in a form this API does not read; send ${spec.name}=a` +
          `${spec.list ? `,b (or ${spec.name}=a&${spec.name}=b, or ${spec.name}[]=a&${spec.name}[]=b)` : ''}`,
      });
      continue;
    }
    let raw: string;
    if (spec.in === 'path') {
      raw = path[spec.name] ?? '';
    } else if (spec.list) {
      raw = (values.get(spec.name) ?? []).join(',');
    } else {
      const given = (values.get(spec.name) ?? []).filter((v) => v.trim() !== '');
      if (given.length > 1) {
        errors.push({ parameter: spec.name, message: `given ${given.length} times; give it once` });
        continue;
      }
      raw = (given[0] ?? '').trim();
    }
    if (raw === '') {
      // absent: GraphQL applies the argument's default; one without a default must be given
      if (isNonNullType(spec.arg.type) && spec.arg.defaultValue === undefined)
        errors.push({ parameter: spec.name, message: 'is required' });
      continue;
    }
    if (spec.list) {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      const parsed = items.map((item) => parseOne(spec, item));
      const bad = parsed.find((p): p is { ok: false; message: string } => !p.ok);
      if (bad) {
        errors.push({ parameter: spec.name, message: `each value ${bad.message}` });
        continue;
      }
      if (items.length === 0) continue;
      variables[spec.name] = parsed.map((p) => (p as { value: unknown }).value);
      internal[spec.name] = parsed.map((p) => (p as { internal: unknown }).internal);
      continue;
    }
    const parsed = parseOne(spec, raw);
    if (!parsed.ok) {
      errors.push({ parameter: spec.name, message: parsed.message });
      continue;
    }
    variables[spec.name] = parsed.value;
    internal[spec.name] = parsed.internal;
  }

  // The shared ranges, on what parsed; then the rules across parameters.
  for (const [name, value] of Object.entries(internal)) {
    const rule = PARAMS[name as keyof typeof PARAMS];
    const checked = rule?.safeParse(value);
    if (checked && !checked.success) errors.push({ parameter: name, message: checked.error.issues[0]!.message });
  }
  if (specs.some((s) => s.name === 'termMin')) {
    for (const [parameter, message, holds] of CROSS_RULES) if (!holds(internal)) errors.push({ parameter, message });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, variables };
}

/**
 * The variables with every argument default filled in, in GraphQL spelling (sofa declares defaulted arguments as
 * required variables).
 */
export function withDefaults(specs: readonly ParamSpec[], variables: Record<string, unknown>): Record<string, unknown> {
  const filled = { ...variables };
  for (const spec of specs) {
    const fallback = spec.arg.defaultValue;
    if (spec.name in filled || fallback === undefined || fallback === null) continue;
    filled[spec.name] = isEnumType(spec.base)
      ? (spec.base.getValues().find((v) => v.value === fallback)?.name ?? fallback)
      : fallback;
  }
  return filled;
}

/** Variables as a canonical query string: GraphQL spellings, lists as repeated keys, sorted. */
export function canonicalQuery(variables: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const name of Object.keys(variables).sort()) {
    const value = variables[name];
    for (const item of Array.isArray(value) ? [...value].sort() : [value]) params.append(name, String(item));
  }
  return params.toString();
}
