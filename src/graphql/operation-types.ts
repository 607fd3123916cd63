// An operation of a kind the schema does not have (a mutation: the API is read-only) is the client's
// mistake, found while validating, so it is answered like any invalid document (4xx), whatever the
// transport. graphql 16 does not check this itself; graphql-jit then throws while compiling, which
// came out as a masked 500 (GraphQL 17 has this rule as KnownOperationTypesRule).
import { GraphQLError, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const knownOperationTypes: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (context.getSchema().getRootType(node.operation)) return;
    context.reportError(
      new GraphQLError(
        `This API has no ${node.operation} operations (it is read-only): send a query or a subscription.`,
        { nodes: node },
      ),
    );
  },
});

export function useKnownOperationTypes(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(knownOperationTypes);
    },
  };
}
