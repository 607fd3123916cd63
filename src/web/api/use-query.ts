// One query per distinct key: a new key aborts the request in flight (its answer would be stale) and
// keeps the previous data on screen until the new answer arrives. An error replaces it, unless the
// caller keeps the last good answer (the list: a mistyped amount should not empty it); then `key` says
// which request the data answered, and the caller must say the data is not for the current one.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TypedDocumentString } from '../gql/graphql.js';
import { ApiError, request } from './client.js';

export interface QueryState<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  /** The key the data belongs to. */
  key: string | null;
}

export interface QueryOptions {
  /** On an error, keep the last answer on screen (with its key) beside the error. */
  keepOnError?: boolean;
}

export function useQuery<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables | null,
  key: string | null,
  { keepOnError = false }: QueryOptions = {},
): QueryState<TResult> {
  const [state, setState] = useState<QueryState<TResult>>({
    data: null,
    error: null,
    loading: variables !== null,
    key: null,
  });
  const latest = useRef(variables);
  latest.current = variables;
  useEffect(() => {
    if (key === null || latest.current === null) {
      setState({ data: null, error: null, loading: false, key: null });
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    request(document, latest.current, { signal: controller.signal }).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null, loading: false, key });
      },
      (err: Error) => {
        if (controller.signal.aborted) return;
        const error = err instanceof ApiError ? err : new ApiError([{ parameter: null, message: err.message }]);
        setState((s) =>
          keepOnError && s.data !== null
            ? { data: s.data, error, loading: false, key: s.key }
            : { data: null, error, loading: false, key },
        );
      },
    );
    return () => controller.abort();
  }, [document, key]);
  return state;
}
