// The Pothos builder and its plugins; every type lives in schema/<type>.ts.
import SchemaBuilder from '@pothos/core';
import ZodPlugin from '@pothos/plugin-zod';
import type { ZodError } from 'zod';
import type { Decimal } from '../domain/decimal.js';
import { badInput } from '../request/errors.js';
import type { Context } from './context.js';
import { FIELD_COST } from './cost.js';
import { OPERATION_LIMITS } from './limits.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: {
    /** Input: the decimal as text ("1234.56"), exact; resolvers turn it into a Decimal. */
    Decimal: { Input: string; Output: Decimal | string };
    DateTime: { Input: Date; Output: Date };
    Date: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ZodPlugin],
  defaultFieldNullability: false,
  zod: {
    // Every bad argument at once, named as the client named it (arguments carry the REST parameter names).
    validationError: (error: ZodError) =>
      badInput(
        error.issues.map((issue) => ({ parameter: String(issue.path[0] ?? 'arguments'), message: issue.message })),
      ),
  },
});

const L = OPERATION_LIMITS;
builder.queryType({
  description:
    'Savings offers calculated for an amount, their deposit guarantee, history and changes. ' +
    `Limits of one request: a document of at most ${L.tokens} tokens, nesting depth ${L.depth}, ${L.aliases} ` +
    `aliases, an estimated cost of ${L.cost} (a field costs 1, a plan ${FIELD_COST.plan}; a list counts as often ` +
    `as it can be long: its pageSize, limit, ids, days or maxOffers, or what the data allows) shared by every ` +
    `operation of an HTTP batch, and ${L.batch} operations in a batch (a JSON array). ` +
    'Over any of them: HTTP 400 and an error with extensions { code: QUERY_TOO_COMPLEX, limit, max }. See also ' +
    'each argument for its own range.',
});

builder.subscriptionType({
  description:
    'What happens as it happens, over Server-Sent Events (the graphql-sse protocol, "distinct connections" ' +
    'mode): POST or GET /graphql with Accept: text/event-stream; each result is an `event: next`, the end an ' +
    '`event: complete`.',
});
