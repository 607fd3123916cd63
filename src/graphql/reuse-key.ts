// When a GraphQL GET's answer may be given again: the same operation and variables asked with the same
// Accept, for at most a minute (an operation may ask for anything that depends on the clock), never for
// one that asks for health (it reports the present), and never when the answer carries errors. The answer
// varies by Accept — GraphiQL's page for browsers, application/json or application/graphql-response+json
// (which also changes the status of errors) — so Accept is part of it.
//
// The request is what yoga reads of the URL and nothing else: the first value of query, variables,
// operationName and extensions, an empty one as absent (yoga's own reading, plugins/request-parser). Any
// other parameter changes nothing in the answer, so /graphql?x=1&j=<8 KB> and /graphql?x=2&j=<8 KB> are
// one request: a client cannot make the cache keep an answer per junk URL.
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { markMomentary, NO_REUSE, type ReuseKey } from '../request/reuse.js';

const READ = ['query', 'variables', 'operationName', 'extensions'] as const;
/** Longer Accept headers are no browser's or client library's (theirs are < 200 characters): not reused. */
const MAX_ACCEPT = 512;

function normalise(pathAndQuery: string): string | null {
  const q = pathAndQuery.indexOf('?');
  const given = new URLSearchParams(q < 0 ? '' : pathAndQuery.slice(q + 1));
  const read = new URLSearchParams();
  for (const name of READ) {
    const value = given.get(name);
    if (value) read.set(name, value);
  }
  const query = read.toString();
  return /health/i.test(query) ? null : `/graphql?${query}`;
}

/** A normalised URL kept: its key and value as UTF-16 (what V8 may hold them as), and the entry itself. */
const memoBytes = (found: { key: string | null }, url: string) => 2 * (url.length + (found.key?.length ?? 0)) + 96;

export interface GraphqlReuse {
  reuseKey(pathAndQuery: string, accept: string): ReuseKey | null;
  stats(): { entries: number; bytes: number; maxBytes: number };
}

/**
 * The normalisation is remembered per URL (a repeat costs one lookup, not a parse), bounded by bytes,
 * keys counted: a client sending distinct 8 KB URLs pushes out other URLs, never more than `maxBytes`.
 */
export function createGraphqlReuse(maxBytes: number): GraphqlReuse {
  const normalised = new LRUCache<string, { key: string | null }>({
    maxSize: Math.max(4096, maxBytes),
    sizeCalculation: memoBytes,
  });
  return {
    reuseKey(pathAndQuery, accept) {
      if (accept.length > MAX_ACCEPT) return null;
      let found = normalised.get(pathAndQuery);
      if (!found) {
        found = { key: normalise(pathAndQuery) };
        normalised.set(pathAndQuery, found);
      }
      const { key } = found;
      if (key === null) return null;
      return { key: `${accept.replace(/\s+/g, '').toLowerCase()}|${key}`, reuse: 'minute' };
    },
    stats: () => ({ entries: normalised.size, bytes: normalised.calculatedSize, maxBytes }),
  };
}

/**
 * An answer with errors is not kept for reuse (the HTTP layer reads NO_REUSE): errors are what junk
 * requests get, one per distinct junk, and they are cheap to give again. yoga answers application/json
 * clients' errors with 200, so the status alone does not tell. Nor is an answer of the moment
 * (Context.momentary: a plan cut short by its deadline), which no cache on the way keeps either.
 */
export function errorsNotReused(): Plugin {
  const failed = new WeakSet<Request>();
  const momentary = new WeakSet<Request>();
  const hasErrors = (result: unknown): boolean =>
    Array.isArray(result)
      ? result.some(hasErrors)
      : result != null && typeof result === 'object' && ((result as { errors?: unknown[] }).errors?.length ?? 0) > 0;
  return {
    onExecute({ args }) {
      const context = args.contextValue as { momentary?: boolean; request?: Request };
      return {
        onExecuteDone() {
          if (context.momentary && context.request) momentary.add(context.request);
        },
      };
    },
    onResultProcess({ request, result }) {
      if (hasErrors(result)) failed.add(request);
    },
    onResponse({ request, response }) {
      if (momentary.has(request)) markMomentary(response.headers);
      else if (failed.has(request)) response.headers.set(NO_REUSE, '1');
    },
  };
}
