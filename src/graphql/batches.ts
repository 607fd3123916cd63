// GraphQL batches (a JSON array of operations) and subscriptions do not mix: yoga answers a batch with
// one array once every operation has its result, and a subscription's result is a stream, which it
// writes as `{}` and never reads nor ends. Each would hold a change-stream slot until the process ends
// (60 such requests and an address had no stream left). A subscription in a batch is refused before it
// starts (the resolver asks isBatched); any stream that still comes out of a batch is ended at once.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const batched = new WeakSet<Request>();

/** Whether the request carries a batch of operations. */
export const isBatched = (request: Request | undefined): boolean => request !== undefined && batched.has(request);

export const SUBSCRIPTION_IN_BATCH =
  'A subscription cannot be part of a batch (a JSON array of operations): send it alone.';

const isAsyncIterable = (value: unknown): value is AsyncIterator<unknown> & AsyncIterable<unknown> =>
  typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';

export function batchesWithoutStreams(): Plugin {
  return {
    onRequestParse({ request }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (Array.isArray(requestParserResult)) batched.add(request);
        },
      };
    },
    onExecutionResult({ request, result, setResult }) {
      if (!batched.has(request) || !isAsyncIterable(result)) return;
      void result.return?.();
      setResult({
        errors: [new GraphQLError(SUBSCRIPTION_IN_BATCH, { extensions: { code: 'BAD_REQUEST' } })],
      });
    },
  };
}
