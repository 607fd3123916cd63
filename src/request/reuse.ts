// Whether an answer may be kept and served again: the words the application (GraphQL, the REST
// routes) and the HTTP front's cache use with each other.

/**
 * The normalised request behind a URL, for reusing its finished answer: kept while the data version
 * stays (`version`), or at most a minute when the answer depends on the clock (`minute`).
 */
export interface ReuseKey {
  key: string;
  reuse: 'version' | 'minute';
}

/** Marks an answer that must not be kept for reuse (the HTTP layer removes it before sending). */
export const NO_REUSE = 'x-no-reuse';

/**
 * Marks an answer of the moment (a savings plan cut short by its request's deadline): kept by no cache,
 * ours (NO_REUSE) or any on the way (no-store), so that the same request later gets the answer the data
 * gives. Both the REST facade and GraphQL's answers use it.
 */
export function markMomentary(headers: Headers): void {
  headers.set(NO_REUSE, '1');
  headers.set('cache-control', 'no-store');
}
