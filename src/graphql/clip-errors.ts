// No GraphQL error repeats more than a few hundred characters of what the client sent (issue 19): an
// unknown field name of 1 MB came back whole in "Cannot query field …". Validation and execution
// errors are cut where the result is made; errors thrown before it (parse) where yoga masks them.
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { clip } from '../request/errors.js';

/** The error with its message cut where it would echo a huge input. */
export function clipped(error: GraphQLError): GraphQLError {
  const message = clip(error.message);
  if (message === error.message) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

export function clipErrors(): Plugin {
  return {
    onExecutionResult({ result, setResult }) {
      const cut = (r: ExecutionResult): ExecutionResult =>
        r.errors?.some((e) => clip(e.message) !== e.message)
          ? { ...r, errors: r.errors.map((e) => clipped(e as GraphQLError)) }
          : r;
      if (result && typeof result === 'object' && 'errors' in result)
        setResult(cut(result as ExecutionResult) as never);
    },
  };
}
