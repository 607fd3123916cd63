// The Pothos builder and its plugins; every type lives in schema/<type>.ts.
import SchemaBuilder from '@pothos/core';
import ZodPlugin from '@pothos/plugin-zod';
import type { ZodError } from 'zod';
import type { Decimal } from '../domain/decimal.js';
import { badInput } from '../http/errors.js';
import type { Context } from './context.js';

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
      badInput(error.issues.map((issue) => ({ parameter: String(issue.path[0] ?? 'arguments'), message: issue.message }))),
  },
});

builder.queryType({ description: 'Savings offers calculated for an amount, their deposit guarantee, history and changes.' });
