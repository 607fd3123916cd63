// One CORS policy for every answer, REST and GraphQL alike (contract §11.5): any web page may read
// the API (it is public and needs no credentials, so none are allowed), and the headers a client needs
// to cache, page, retry, download and keep to the rate limit are readable from scripts.
import { PATHS } from '../request/paths.js';

export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'ETag, Link, X-Request-Id, Retry-After, Content-Disposition, RateLimit, RateLimit-Policy, Data-Version, ' +
    'Data-Chain, Memento-Datetime, Generated-At, Method-Version',
};

/**
 * The answer to a preflight: the methods the path takes, whatever headers the page wants to send
 * (If-None-Match, Content-Type for GraphQL, a request id…), remembered by the browser for a day.
 */
export function preflight(pathname: string, wanted: string | null): Response {
  const headers: Record<string, string> = {
    ...CORS_HEADERS,
    'access-control-allow-methods': pathname === PATHS.graphql ? 'GET, POST, HEAD' : 'GET, HEAD',
    'access-control-max-age': '86400',
    vary: 'Access-Control-Request-Headers',
    'content-length': '0',
  };
  if (wanted) headers['access-control-allow-headers'] = wanted;
  return new Response(null, { status: 204, headers });
}
