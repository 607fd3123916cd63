// graphql-jit coerces variables itself and, where a scalar refuses a value, says only "Expected type
// Decimal." — the scalar's own message ("Decimal must be a decimal number such as "1234.56"") is lost,
// and a client such as the comparison page has nothing to show its user. graphql-js's coercion keeps
// it: for clients' operations (the REST routes pass checked values), variables are coerced by
// graphql-js first, and refusals are answered as BAD_USER_INPUT naming each variable, before
// graphql-jit runs. The status is GraphQL over HTTP's for a request error: 400, or 200 to a legacy
// application/json client.
import { getOperationAST, getVariableValues, GraphQLError, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export function variableErrors(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if ((args.contextValue as { rest?: boolean }).rest) return;
      const operation = getOperationAST(args.document as DocumentNode, args.operationName ?? undefined);
      if (!operation?.variableDefinitions?.length) return;
      const coerced = getVariableValues(
        args.schema,
        operation.variableDefinitions,
        (args.variableValues ?? {}) as Record<string, unknown>,
        { maxErrors: 50 },
      );
      if (!coerced.errors) return;
      // graphql-js says 'Variable "$amount" got invalid value "abc"; <why>': the variable, and why.
      const errors = coerced.errors.map((e) => {
        const m = /^Variable "\$(\w+)" got invalid value .*?; (.*)$/s.exec(e.message);
        return { parameter: m?.[1] ?? 'variables', message: m?.[2] ?? e.message };
      });
      setResultAndStopExecution({
        errors: coerced.errors.map(
          (e, i) =>
            new GraphQLError(e.message, {
              nodes: e.nodes,
              extensions: { code: 'BAD_USER_INPUT', errors: [errors[i]], http: { status: 400, spec: true } },
            }),
        ),
      });
    },
  };
}
