// The service's HTTP front: every request passes here, GraphQL and REST alike.
// - A GET whose finished answer is cached (same normalised request, same data version) is answered
//   from the cache: on node without even building a Request, and never reaching GraphQL.
// - Anything else goes to yoga; a 200 GET is finished (ETag, compressed forms) and cached, except
//   Server-Sent Events, which pass through as they are written (never cached or compressed).
// - Either way: 304 for a matching If-None-Match, Cache-Control, compression, HEAD, X-Request-Id, a log line.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServerAdapter } from '@whatwg-node/server';
import type { Logger } from '../logger.js';
import { MAX_KEPT_LINK_URL, type BodyCache } from './body-cache.js';
import {
  answer,
  answerEventStream,
  answerStream,
  cacheHeaders,
  encodedBody,
  EVENT_STREAM,
  finish,
  isEventStream,
  linkHeader,
  matchesIfNoneMatch,
  NO_REUSE,
  preferredEncoding,
  STREAM_ETAG,
  type FinishedBody,
} from './layer.js';
import { clientAddress, trustedProxies as trustedMatcher } from './client-address.js';
import { CORS_HEADERS, isPreflight, preflight } from './cors.js';
import { pagePolicy, SECURITY_HEADERS } from './security.js';
import type { StaticFiles } from './static.js';
import { logged, logLine, type RequestObserver } from './logging.js';
import { problemResponse } from './problem.js';
import { RateLimiter, type Taken } from './rate-limit.js';
import { currentRequestId, requestIdFrom, requestScope, type RequestScope } from './request-context.js';

/**
 * The normalised request behind a URL, for reusing its finished answer: kept while the data version
 * stays (`version`), or at most a minute when the answer depends on the clock (`minute`).
 */
export interface ReuseKey {
  key: string;
  reuse: 'version' | 'minute';
}

export interface HttpDeps {
  /** The application behind the cache (yoga). */
  upstream(request: Request): Promise<Response>;
  cache: BodyCache;
  /**
   * Null: the answer to this URL is never reused (health, streams, unknown paths, bad requests). The
   * request's Accept is given for answers that vary by it (GraphQL: GraphiQL's page, JSON media types).
   */
  reuseKey(pathAndQuery: string, accept: string): ReuseKey | null;
  /** Whether new answers may be kept (not while the database fails: they may lack what it holds). */
  cacheable(): boolean;
  /** The data version the next request will see. */
  version(): number;
  clock(): Date;
  logger: Logger;
  /** Requests per minute per client, 0: no limit. */
  rateLimitPerMinute?: number;
  /**
   * Where the tokens come from when several processes serve (the primary's buckets, shared by all);
   * by default a bucket per client in this process.
   */
  takeToken?: (client: string) => Promise<Taken>;
  /** Whether a request to this path counts toward the rate limit (default: every path). */
  counted?(path: string): boolean;
  /**
   * The proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES, checked): the client is the right-most
   * forwarded address not among them. Empty (the default): the socket's peer.
   */
  trustedProxies?: readonly string[];
  /** An answer not started within this long is a 503. */
  requestTimeoutMs?: number;
  /** Told of every answer (the request metrics). */
  observe?: RequestObserver;
  /** Files served as they are (the page, GraphiQL's bundle), answered before anything else. */
  statics?: StaticFiles;
}

/** What every answer carries, whichever path gives it. */
const EVERY_ANSWER: Readonly<Record<string, string>> = { ...CORS_HEADERS, ...SECURITY_HEADERS };

/** URLs longer than this are refused (414) before anything reads them. */
export const MAX_URL_LENGTH = 8 * 1024;
/**
 * Request bodies (GraphQL POSTs) larger than this are refused (413). The longest real operation — 100
 * offers in detail, or a batch of ten — is a few KB; a 1 MB document or 5 MB of variables is not a client.
 */
export const MAX_BODY_BYTES = 100 * 1024;

// The body is not read, so the connection cannot carry another request: it is closed after the answer.
const tooLarge = () =>
  problemResponse('PAYLOAD_TOO_LARGE', `The request body is larger than ${MAX_BODY_BYTES} bytes.`, undefined, {
    connection: 'close',
  });
const declaredTooLarge = (contentLength: string | null | undefined) =>
  contentLength != null && Number(contentLength) > MAX_BODY_BYTES;

export interface HttpHandler {
  fetch(request: Request): Promise<Response>;
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** For the server's 'clientError': a request Node could not parse still gets a problem, not a bare status line. */
  clientError(err: Error & { code?: string }, socket: Duplex): void;
}

export function createHttpHandler({
  upstream,
  cache,
  reuseKey,
  cacheable,
  version,
  clock,
  logger,
  rateLimitPerMinute = 0,
  takeToken,
  counted = () => true,
  trustedProxies = [],
  requestTimeoutMs = 30_000,
  observe,
  statics = () => undefined,
}: HttpDeps): HttpHandler {
  const local = rateLimitPerMinute > 0 && !takeToken ? new RateLimiter(rateLimitPerMinute) : null;
  const limiter =
    rateLimitPerMinute > 0
      ? {
          policy: RateLimiter.policyOf(rateLimitPerMinute),
          take: takeToken ?? ((client: string) => local!.take(client)),
        }
      : null;

  /** The upstream's answer, or a 503 when it does not start in time (the work goes on; the client is told). */
  function withTimeout(request: Request): Promise<Response> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Response>((resolve) => {
      timer = setTimeout(() => {
        logger.warn(
          { requestId: currentRequestId(), path: new URL(request.url).pathname, timeoutMs: requestTimeoutMs },
          'answer took too long',
        );
        resolve(
          problemResponse(
            'SERVICE_UNAVAILABLE',
            `The answer took longer than ${requestTimeoutMs} ms; please retry.`,
            undefined,
            { 'retry-after': '5' },
          ),
        );
      }, requestTimeoutMs);
    });
    return Promise.race([upstream(request), late]).finally(() => clearTimeout(timer));
  }
  const keyFor = (pathAndQuery: string, accept: string | null | undefined): string | null => {
    // An event stream is never reused, and a client that asks for one must not get a finished answer.
    if (accept && EVENT_STREAM.test(accept)) return null;
    const found = reuseKey(pathAndQuery, accept ?? '');
    if (!found) return null;
    return found.reuse === 'minute'
      ? `${version()}|${found.key}|${Math.floor(clock().getTime() / 60_000)}`
      : `${version()}|${found.key}`;
  };
  const grew = (key: string) => () => cache.grew(key);

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const { pathname } = url;
    if (url.pathname.length + url.search.length > MAX_URL_LENGTH) {
      return problemResponse('URI_TOO_LONG', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
    }
    // A CORS preflight is answered here, for every path alike; any other OPTIONS on the read-only API is
    // a method it does not allow.
    if (isPreflight(request)) return preflight(request, pathname);
    if (request.method === 'OPTIONS' && pathname.startsWith('/api')) {
      return problemResponse(
        'METHOD_NOT_ALLOWED',
        'OPTIONS is not allowed here; the API is read-only (GET, HEAD).',
        undefined,
        { allow: 'GET, HEAD' },
      );
    }
    if (declaredTooLarge(request.headers.get('content-length'))) return tooLarge();
    const get = request.method === 'GET' || request.method === 'HEAD';
    const file = get ? statics(pathname) : undefined;
    if (file) return answer(request, await file);
    const key = get ? keyFor(pathname + url.search, request.headers.get('accept')) : null;
    const cached = key ? cache.get(key) : undefined;
    if (cached) return answer(request, cached, grew(key!));

    let response: Response;
    try {
      response = await withTimeout(request);
    } catch (err) {
      // A client that hung up aborts its request's work; nobody is left to answer, and nothing is wrong
      // with the service (499 is the log's convention for it).
      if (request.signal.aborted) {
        logger.info({ requestId: currentRequestId() }, 'client closed the connection before the answer');
        return new Response(null, { status: 499 });
      }
      // Whatever escaped the application: logged with the request id, answered without internals.
      logger.error({ requestId: currentRequestId(), err }, 'unexpected error');
      return problemResponse('INTERNAL_SERVER_ERROR', 'Unexpected error.');
    }
    // A body sent without a length (chunked) is cut at the same bound by yoga, which answers 413 its way.
    if (response.status === 413) return tooLarge();
    // The application's word that this answer is not for reuse (a GraphQL answer with errors, given 200).
    const reusable = !response.headers.has(NO_REUSE);
    if (!reusable) response.headers.delete(NO_REUSE);
    // Server-Sent Events (the change stream, GraphQL subscriptions) go out as they are produced.
    if (isEventStream(response)) return answerEventStream(request, response);
    if (!get || response.status !== 200) {
      return request.method === 'HEAD' && response.body ? new Response(null, response) : response;
    }
    const streamEtag = response.headers.get(STREAM_ETAG);
    if (streamEtag) {
      response.headers.delete(STREAM_ETAG);
      return answerStream(request, response, streamEtag);
    }
    const finished = await finish(response);
    if (key && reusable && cacheable()) cache.set(key, finished);
    return answer(request, finished, key ? grew(key) : undefined);
  }

  const fetch = (request: Request, server?: { req?: IncomingMessage }): Promise<Response> => {
    const scope: RequestScope = {
      id: requestIdFrom(request.headers.get('x-request-id')),
      startedAt: process.hrtime.bigint(),
    };
    const req = server?.req;
    if (req) {
      scope.client = clientOf(req);
      scope.abort = () => req.socket.destroy();
      scope.socket = req.socket;
    }
    return requestScope.run(scope, async () =>
      logged(
        logger,
        scope,
        request.method,
        request.url,
        await handle(request),
        { 'x-request-id': scope.id, ...EVERY_ANSWER },
        observe,
      ),
    );
  };

  const adapter = createServerAdapter((request, server) => fetch(request, server as { req?: IncomingMessage }));

  /**
   * A cached answer's headers that are the same on every request (a cache hit is most requests: made
   * once per entry, not per request), for a 304 and for a 200; the last Link made, for the URL it was for.
   */
  const fixedHeaders = new WeakMap<
    FinishedBody,
    { notModified: Record<string, string>; ok: Record<string, string>; link?: { url: string; value: string } }
  >();
  function fixedOf(entry: FinishedBody) {
    let fixed = fixedHeaders.get(entry);
    if (!fixed) {
      const notModified = { ...cacheHeaders(entry.etag, entry.cacheControl, entry.vary), ...EVERY_ANSWER };
      const ok: Record<string, string> = { ...notModified };
      for (const [name, value] of entry.headers) ok[name] = value;
      const policy = pagePolicy(ok['content-type'], ok['content-security-policy']);
      if (policy) ok['content-security-policy'] = policy;
      fixedHeaders.set(entry, (fixed = { notModified, ok }));
    }
    return fixed;
  }

  /** A cache hit written straight to the socket: no Request, no Headers, no yoga (and a 304 no promise). */
  function serveCached(
    req: IncomingMessage,
    res: ServerResponse,
    entry: FinishedBody,
    onGrow: (() => void) | undefined,
    startedAt: bigint,
  ): void | Promise<void> {
    const header = req.headers['x-request-id'];
    const id = requestIdFrom(typeof header === 'string' ? header : null);
    const pathAndQuery = req.url ?? '/';
    const fixed = fixedOf(entry);
    if (matchesIfNoneMatch(req.headers['if-none-match'] ?? null, entry.etag)) {
      res.writeHead(304, { ...fixed.notModified, 'x-request-id': id });
      res.end();
      logLine(logger, id, startedAt, req.method ?? 'GET', pathAndQuery, 304, clientOf(req), observe);
      return;
    }
    const headers: Record<string, string> = { ...fixed.ok, 'x-request-id': id };
    if (entry.paging) {
      // Built from the request's own query (equal answers can come from differently spelled URLs); kept
      // with the entry for a URL of ordinary length, the size the body cache counts for it.
      const { page, pages, read } = entry.paging;
      if (pathAndQuery.length > MAX_KEPT_LINK_URL) headers.link = linkHeader(pathAndQuery, page, pages, read);
      else {
        if (fixed.link?.url !== pathAndQuery)
          fixed.link = { url: pathAndQuery, value: linkHeader(pathAndQuery, page, pages, read) };
        headers.link = fixed.link.value;
      }
    }
    const encoding = preferredEncoding(req.headers['accept-encoding'] ?? null);
    const send = (body: Uint8Array) => {
      if (body !== entry.body) headers['content-encoding'] = encoding!;
      headers['content-length'] = String(body.byteLength);
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
      logLine(logger, id, startedAt, req.method ?? 'GET', pathAndQuery, 200, clientOf(req), observe);
    };
    if (!encoding) return send(entry.body);
    return encodedBody(entry, encoding, onGrow).then(send);
  }

  const proxies = trustedProxies.length > 0 ? trustedMatcher(trustedProxies) : null;
  // Asked by the rate limit, then by the request's scope (the stream caps) and the log line: found once.
  const clients = new WeakMap<IncomingMessage, string>();
  const clientOf = (req: IncomingMessage): string => {
    let client = clients.get(req);
    if (client === undefined) {
      client = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], proxies);
      clients.set(req, client);
    }
    return client;
  };

  /** A small answer written directly (limits), with the usual request id and log line. */
  function refuse(req: IncomingMessage, res: ServerResponse, startedAt: bigint, response: Response) {
    const header = req.headers['x-request-id'];
    const id = requestIdFrom(typeof header === 'string' ? header : null);
    void response.text().then((body) => {
      res.writeHead(response.status, { ...Object.fromEntries(response.headers), ...EVERY_ANSWER, 'x-request-id': id });
      res.end(body);
      const path = (req.url ?? '/').slice(0, 200);
      logLine(logger, id, startedAt, req.method ?? 'GET', path, response.status, clientOf(req), observe);
    });
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const startedAt = process.hrtime.bigint();
    if (req.url?.charCodeAt(0) !== 47 /* / */ && !toOriginForm(req)) {
      refuse(req, res, startedAt, problemResponse('BAD_REQUEST', 'The request target is not a valid http(s) URI.'));
      return;
    }
    if (!limiter || !counted((req.url ?? '/').split('?', 1)[0]!)) return admit(req, res, startedAt);
    const taken = limiter.take(clientOf(req));
    if (!(taken instanceof Promise)) return count(req, res, startedAt, taken);
    taken.then(
      (t) => count(req, res, startedAt, t),
      // The shared count is out of reach (the primary is going away): the request is served uncounted.
      () => admit(req, res, startedAt),
    );
  };

  /**
   * A request target in absolute form (`GET http://host/api/health`, RFC 9112 §3.2.2) names the path
   * within the URI, and its authority replaces the Host header; everything after this reads the path.
   * False for an absolute target that is not a valid http(s) URI. Other forms (`*`) pass as they are.
   */
  function toOriginForm(req: IncomingMessage): boolean {
    if (!/^[a-z][a-z\d+.-]*:/i.test(req.url ?? '')) return true;
    let target: URL;
    try {
      target = new URL(req.url!);
    } catch {
      return false;
    }
    if ((target.protocol !== 'http:' && target.protocol !== 'https:') || !target.host) return false;
    req.url = target.pathname + target.search;
    req.headers.host = target.host;
    return true;
  }

  function count(req: IncomingMessage, res: ServerResponse, startedAt: bigint, taken: Taken): void {
    // Set on the response now, so that whichever path answers (cache, application, refusal) carries them.
    res.setHeader('ratelimit-policy', limiter!.policy);
    res.setHeader('ratelimit', RateLimiter.header(taken));
    if (taken.retryAfter > 0) {
      const wait = taken.retryAfter;
      refuse(
        req,
        res,
        startedAt,
        problemResponse(
          'TOO_MANY_REQUESTS',
          `Too many requests; please wait ${wait} s (the limit is ${rateLimitPerMinute} a minute).`,
          undefined,
          { 'retry-after': String(wait) },
        ),
      );
      return;
    }
    admit(req, res, startedAt);
  }

  function admit(req: IncomingMessage, res: ServerResponse, startedAt: bigint): void {
    if (declaredTooLarge(req.headers['content-length'])) {
      refuse(req, res, startedAt, tooLarge());
      return;
    }
    if ((req.url?.length ?? 0) > MAX_URL_LENGTH) {
      refuse(
        req,
        res,
        startedAt,
        problemResponse('URI_TOO_LONG', `The URL is longer than ${MAX_URL_LENGTH} characters.`),
      );
      return;
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      const file = statics((req.url ?? '/').split('?', 1)[0]!);
      const key = file ? null : keyFor(req.url ?? '/', req.headers.accept);
      const entry = file ?? (key ? cache.lookup(key) : undefined);
      if (entry) {
        const fail = (err: Error) => {
          logger.error({ err }, 'could not send a cached answer');
          res.destroy(err);
        };
        try {
          const sent =
            entry instanceof Promise
              ? entry.then((e) => serveCached(req, res, e, undefined, startedAt))
              : serveCached(req, res, entry, key ? grew(key) : undefined, startedAt);
          sent?.catch(fail);
        } catch (err) {
          fail(err as Error);
        }
        return;
      }
    }
    void adapter.requestListener(req, res);
  }

  /**
   * Node answers a request it cannot parse (headers over 16 KB, a malformed request line) with a bare
   * status line; clients then see an empty body of no type. They get the same problem+json as any other
   * refusal instead (431 for headers too large, 400 otherwise), and the connection is closed.
   */
  const clientError = (err: Error & { code?: string }, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const problem = tooLarge
      ? problemResponse('REQUEST_HEADERS_TOO_LARGE', 'The request line and headers are larger than 16384 bytes.')
      : problemResponse('BAD_REQUEST', 'The request is not valid HTTP.');
    void problem.text().then((body) => {
      const headers = {
        ...Object.fromEntries(problem.headers),
        ...EVERY_ANSWER,
        'content-length': String(Buffer.byteLength(body)),
        connection: 'close',
      };
      const head = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.end(`HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n${head}\r\n${body}`);
      logger.info({ status: problem.status, error: err.code }, 'request refused before parsing');
    });
  };

  return { fetch, listener, clientError };
}
