// When a GraphQL GET's answer may be given again: the same operation and variables (parameters
// sorted, empty ones dropped) asked with the same Accept, for at most a minute (an operation may ask
// for anything that depends on the clock), and never for one that asks for health (it reports the
// present). The answer varies by Accept — GraphiQL's page for browsers, application/json or
// application/graphql-response+json (which also changes the status of errors) — so Accept is part of it.
import { LRUCache } from 'lru-cache';
import type { ReuseKey } from '../http/handler.js';

const normalised = new LRUCache<string, { key: string | null }>({ max: 10_000 });

function normalise(pathAndQuery: string): string | null {
  const q = pathAndQuery.indexOf('?');
  const params: [string, string][] = [];
  if (q >= 0) {
    for (const [name, value] of new URLSearchParams(pathAndQuery.slice(q + 1)))
      if (value !== '') params.push([name, value]);
    params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  }
  const query = new URLSearchParams(params).toString();
  return /health/i.test(query) ? null : `/graphql?${query}`;
}

export function graphqlReuseKey(pathAndQuery: string, accept: string): ReuseKey | null {
  let found = normalised.get(pathAndQuery);
  if (!found) {
    found = { key: normalise(pathAndQuery) };
    normalised.set(pathAndQuery, found);
  }
  const { key } = found;
  if (key === null) return null;
  return { key: `${accept.replace(/\s+/g, '').toLowerCase()}|${key}`, reuse: 'minute' };
}
