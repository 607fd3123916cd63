// One gate for every request, whichever adapter brought it (a node socket, or app.fetch with a Request):
// refused here (URL too long, body too large, a method the read-only API does not take, over the rate
// limit), answered here (a CORS preflight, a file, a finished answer from the cache), or passed on to the
// application with the key its answer may be kept under. It reads only what both adapters have: the
// method, the target, a few headers and the client's address.
import { isApiPath } from '../request/paths.js';
import type { ReuseKey } from '../request/reuse.js';
import type { BodyCache } from './body-cache.js';
import { preflight } from './cors.js';
import { EVENT_STREAM, type FinishedBody } from './layer.js';
import { problemResponse } from './problem.js';
import { RateLimiter, type Taken } from './rate-limit.js';
import type { StaticFiles } from './static.js';

/** URLs longer than this are refused (414) before anything reads them. */
export const MAX_URL_LENGTH = 8 * 1024;
/**
 * Request bodies (GraphQL POSTs) larger than this are refused (413). The longest real operation — 100
 * offers in detail, or a batch of ten — is a few KB; a 1 MB document or 5 MB of variables is not a client.
 */
export const MAX_BODY_BYTES = 100 * 1024;

/** What the gate reads of a request. */
export interface Arrival {
  method: string;
  /** The path and query (origin form). */
  target: string;
  header(name: string): string | null;
  /** Who is asking (src/http/client-address.ts), for the rate limit. */
  client: string;
}

export type Admitted =
  /** Refused, or answered without the application (a preflight). */
  | { kind: 'answer'; response: Response }
  /** A file or a finished answer from the cache; `key` is the cache's, told when the entry grows. */
  | { kind: 'finished'; entry: FinishedBody | Promise<FinishedBody>; key: string | null }
  /** For the application; its answer may be kept under `key`. */
  | { kind: 'pass'; key: string | null };

export interface Admission {
  admitted: Admitted;
  /**
   * Set once the bound of work in progress (overload.ts) has been asked for this request, on the node
   * listener: it holds a slot (`held`) or is not counted (`exempt`), and is not asked again.
   */
  bound?: 'held' | 'exempt';
  /** The rate limit's headers, for whatever answers the request (a 429 included); absent when not counted. */
  rate?: Record<string, string>;
}

export interface AdmissionDeps {
  cache: BodyCache;
  /**
   * Null: the answer to this URL is never reused (health, streams, unknown paths, bad requests). The
   * request's Accept is given for answers that vary by it (GraphQL: GraphiQL's page, JSON media types).
   */
  reuseKey(pathAndQuery: string, accept: string): ReuseKey | null;
  /** The data version the next request will see. */
  version(): number;
  clock(): Date;
  /** Files served as they are (the page, GraphiQL's bundle). */
  statics?: StaticFiles;
  /** Requests per minute per client, 0: no limit. */
  rateLimitPerMinute?: number;
  /**
   * Where the tokens come from when several processes serve (the primary's buckets, shared by all); by
   * default a bucket per client in this process.
   */
  takeToken?: (client: string) => Promise<Taken>;
  /** Whether a request to this path counts toward the rate limit (default: every path). */
  counted?(path: string): boolean;
}

// The body is not read, so the connection cannot carry another request: it is closed after the answer.
export const bodyTooLarge = () =>
  problemResponse('PAYLOAD_TOO_LARGE', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, undefined, {
    connection: 'close',
  });

/** The path of a request target (origin form), its query left out. */
export const pathOf = (target: string) => {
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
};

export function createAdmission({
  cache,
  reuseKey,
  version,
  clock,
  statics = () => undefined,
  rateLimitPerMinute = 0,
  takeToken,
  counted = () => true,
}: AdmissionDeps): (arrival: Arrival) => Admission | Promise<Admission> {
  const local = rateLimitPerMinute > 0 && !takeToken ? new RateLimiter(rateLimitPerMinute) : null;
  const take = rateLimitPerMinute > 0 ? (takeToken ?? ((client: string) => local!.take(client))) : null;
  const policy = RateLimiter.policyOf(rateLimitPerMinute);

  const keyFor = (target: string, accept: string | null): string | null => {
    // An event stream is never reused, and a client that asks for one must not get a finished answer.
    if (accept && EVENT_STREAM.test(accept)) return null;
    const found = reuseKey(target, accept ?? '');
    if (!found) return null;
    return found.reuse === 'minute'
      ? `${version()}|${found.key}|${Math.floor(clock().getTime() / 60_000)}`
      : `${version()}|${found.key}`;
  };

  function gate(arrival: Arrival): Admitted {
    const { method, target } = arrival;
    const path = pathOf(target);
    const contentLength = arrival.header('content-length');
    if (contentLength !== null && Number(contentLength) > MAX_BODY_BYTES) {
      return { kind: 'answer', response: bodyTooLarge() };
    }
    if (target.length > MAX_URL_LENGTH) {
      const response = problemResponse('URI_TOO_LONG', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
      return { kind: 'answer', response };
    }
    // A CORS preflight is answered here, for every path alike; any other OPTIONS on the read-only API is
    // a method it does not allow.
    if (method === 'OPTIONS') {
      if (arrival.header('access-control-request-method') !== null)
        return { kind: 'answer', response: preflight(path, arrival.header('access-control-request-headers')) };
      if (isApiPath(path)) {
        const response = problemResponse(
          'METHOD_NOT_ALLOWED',
          'OPTIONS is not allowed here; the API is read-only (GET, HEAD).',
          undefined,
          { allow: 'GET, HEAD' },
        );
        return { kind: 'answer', response };
      }
    }
    if (method !== 'GET' && method !== 'HEAD') return { kind: 'pass', key: null };
    const file = statics(path);
    if (file) return { kind: 'finished', entry: file, key: null };
    // Accept-Datetime (RFC 7089) asks for another version than the URL alone names: not from the cache.
    const key = arrival.header('accept-datetime') === null ? keyFor(target, arrival.header('accept')) : null;
    const cached = key ? cache.get(key) : undefined;
    return cached ? { kind: 'finished', entry: cached, key } : { kind: 'pass', key };
  }

  const limited = (arrival: Arrival, taken: Taken): Admission => {
    const rate = { 'ratelimit-policy': policy, ratelimit: RateLimiter.header(taken) };
    if (taken.retryAfter <= 0) return { admitted: gate(arrival), rate };
    const response = problemResponse(
      'TOO_MANY_REQUESTS',
      `Too many requests; please wait ${taken.retryAfter} s (the limit is ${rateLimitPerMinute} a minute).`,
      undefined,
      { 'retry-after': String(taken.retryAfter) },
    );
    return { admitted: { kind: 'answer', response }, rate };
  };

  return (arrival) => {
    if (!take || !counted(pathOf(arrival.target))) return { admitted: gate(arrival) };
    const taken = take(arrival.client);
    if (!(taken instanceof Promise)) return limited(arrival, taken);
    return taken.then(
      (t) => limited(arrival, t),
      // The shared count is out of reach (the primary is going away): the request is served uncounted.
      () => ({ admitted: gate(arrival) }),
    );
  };
}
