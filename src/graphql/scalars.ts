// Money and rates cross the GraphQL boundary as decimal strings ("1234.56"), never as floats.
import { Kind } from 'graphql';
import { toFixed2 } from '../domain/decimal.js';
import { clientError } from '../request/errors.js';
import { builder } from './builder.js';

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

// Parsed values stay text (exactly what the client sent, checked): a Decimal object would not survive
// graphql-jit, which copies argument values when it compiles a query.
function parseDecimal(value: unknown): string {
  if (typeof value === 'string' && DECIMAL_TEXT.test(value.trim())) return value.trim();
  // A JSON number in the variables: its shortest decimal text is what the client wrote.
  if (typeof value === 'number' && Number.isFinite(value) && DECIMAL_TEXT.test(String(value))) return String(value);
  throw invalid(`Decimal must be a decimal number such as "1234.56" (got ${JSON.stringify(value)?.slice(0, 40)})`);
}

// A client's mistake, so a client error: graphql-jit passes what parseValue throws on as it is, and
// anything but a coded GraphQLError would be masked as an unexpected server error.
const invalid = (message: string) => clientError('BAD_USER_INPUT', message);

/**
 * What a decimal field is measured in, at the end of its description: a client must not have to guess
 * whether "2.35" is euros or percent, nor per what. Every Decimal field says one of these.
 */
export const UNIT = {
  euros: 'in euros, two decimals',
  perYear: 'in percent per year, two decimals',
  ofInterest: 'in percent of the interest, two decimals',
  ofAmount: 'in percent of the amount, two decimals',
} as const;

export const euros = (what: string) => `${what}; ${UNIT.euros}`;
export const perYear = (what: string) => `${what}; ${UNIT.perYear}`;

export const DecimalScalar = builder.scalarType('Decimal', {
  description:
    'An exact decimal as a string: money in euros and rates in percent per year, with two decimals ("1234.56", ' +
    '"2.35").',
  serialize: (value) => (typeof value === 'string' ? value : toFixed2(value)),
  parseValue: parseDecimal,
  parseLiteral: (node) => {
    if (node.kind === Kind.STRING || node.kind === Kind.INT || node.kind === Kind.FLOAT)
      return parseDecimal(node.value);
    throw invalid('Decimal must be a string or a number literal');
  },
});

/** An RFC 3339 instant: a date, a time and its offset ("Z" or "+01:00"); fractions of a second allowed. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant an RFC 3339 text names, or null (a day alone, no offset, or no such day or time). */
export function parseInstant(text: string): Date | null {
  if (!RFC3339.test(text)) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

// An instant's text, made once per Date: a detail shows a few hundred (its plans' validity, its rows'
// checks, its events), and the catalogue's and the loaders' dates are the same objects answer after
// answer (toISOString was 2.5 % of a detail's CPU). The time is kept beside it: a Date can be changed.
const isoTexts = new WeakMap<Date, { time: number; text: string }>();
function isoText(date: Date): string {
  const time = date.getTime();
  const known = isoTexts.get(date);
  if (known?.time === time) return known.text;
  const text = date.toISOString();
  isoTexts.set(date, { time, text });
  return text;
}

export const DateTimeScalar = builder.scalarType('DateTime', {
  description:
    'An instant: answered in ISO 8601, UTC ("2026-11-22T08:00:00.000Z"); taken in RFC 3339, with its offset ' +
    '("2026-11-22T09:00:00+01:00").',
  serialize: isoText,
  parseValue: (value) => {
    const date = typeof value === 'string' ? parseInstant(value) : null;
    if (!date) throw invalid('DateTime must be an RFC 3339 instant such as "2026-11-22T08:00:00Z"');
    return date;
  },
  parseLiteral: (node) => {
    const date = node.kind === Kind.STRING ? parseInstant(node.value) : null;
    if (!date) throw invalid('DateTime must be an RFC 3339 instant such as "2026-11-22T08:00:00Z"');
    return date;
  },
});

export const DateScalar = builder.scalarType('Date', {
  description: 'A calendar day in ISO 8601 ("2026-11-22").',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw invalid('Date must be YYYY-MM-DD');
    return value;
  },
});

export const JSONScalar = builder.scalarType('JSON', {
  description: 'A JSON value: what changed in a change event, e.g. { "headlineRate": "2.10" }.',
  serialize: (value) => value,
  parseValue: (value) => value,
});
