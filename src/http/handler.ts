// The service's HTTP front: every request passes here, GraphQL and REST alike.
// - A GET whose finished answer is cached (same normalised request, same data version) is answered
//   from the cache: on node without even building a Request, and never reaching GraphQL.
// - Anything else goes to yoga; a 200 GET is finished (ETag, compressed forms) and cached.
// - Either way: 304 for a matching If-None-Match, Cache-Control, compression, HEAD, X-Request-Id, a log line.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import type { Logger } from '../logger.js';
import { BodyCache, requestKey } from './body-cache.js';
import { answer, answerStream, cacheHeaders, encodedBody, finish, matchesIfNoneMatch, preferredEncoding, type FinishedBody } from './layer.js';
import { logged, logLine } from './logging.js';
import { problemResponse } from './problem.js';
import { requestIdFrom, requestScope } from './request-context.js';

/** Marks a streamed response, with the ETag computed from what determines its body. */
export const STREAM_ETAG = 'x-stream-etag';

export interface HttpDeps {
  /** The application behind the cache (yoga). */
  upstream(request: Request): Promise<Response>;
  cache: BodyCache;
  /** The data version the next request will see. */
  version(): number;
  clock(): Date;
  logger: Logger;
}

export interface HttpHandler {
  fetch(request: Request): Promise<Response>;
  listener(req: IncomingMessage, res: ServerResponse): void;
}

export function createHttpHandler({ upstream, cache, version, clock, logger }: HttpDeps): HttpHandler {
  const keyFor = (pathAndQuery: string, accept: string | null | undefined) => requestKey(pathAndQuery, /text\/html/.test(accept ?? ''), version(), clock().getTime());
  const grew = (key: string) => (bytes: number) => cache.grew(key, bytes);

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const { pathname } = url;
    // A CORS preflight gets yoga's answer (browsers need it to send If-None-Match); any other OPTIONS
    // on the read-only API is a method it does not allow.
    if (request.method === 'OPTIONS' && pathname.startsWith('/api') && !request.headers.has('access-control-request-method')) {
      return problemResponse('METHOD_NOT_ALLOWED', 'OPTIONS is not allowed here; the API is read-only (GET, HEAD).', undefined, { allow: 'GET, HEAD' });
    }
    const get = request.method === 'GET' || request.method === 'HEAD';
    const key = get ? keyFor(pathname + url.search, request.headers.get('accept')) : null;
    const cached = key ? cache.get(key) : undefined;
    if (cached) return answer(request, pathname, cached, grew(key!));

    const response = await upstream(request);
    if (!get || response.status !== 200) {
      return request.method === 'HEAD' && response.body ? new Response(null, response) : response;
    }
    const streamEtag = response.headers.get(STREAM_ETAG);
    if (streamEtag) {
      response.headers.delete(STREAM_ETAG);
      return answerStream(request, pathname, response, streamEtag);
    }
    const finished = await finish(response);
    if (key) cache.set(key, finished);
    return answer(request, pathname, finished, key ? grew(key) : undefined);
  }

  const fetch = (request: Request): Promise<Response> => {
    const scope = { id: requestIdFrom(request.headers.get('x-request-id')), startedAt: process.hrtime.bigint() };
    return requestScope.run(scope, async () => logged(logger, scope, request.method, request.url, await handle(request)));
  };

  const adapter = createServerAdapter(fetch);

  /** A cache hit written straight to the socket: no Request, no Headers, no yoga. */
  async function serveCached(req: IncomingMessage, res: ServerResponse, entry: FinishedBody, key: string, startedAt: bigint) {
    const header = req.headers['x-request-id'];
    const id = requestIdFrom(typeof header === 'string' ? header : null);
    const pathAndQuery = req.url ?? '/';
    const pathname = pathAndQuery.split('?', 1)[0]!;
    const headers = cacheHeaders(pathname, entry.etag);
    headers['x-request-id'] = id;
    let status = 200;
    if (matchesIfNoneMatch(req.headers['if-none-match'] ?? null, entry.etag)) {
      status = 304;
      res.writeHead(304, headers);
      res.end();
    } else {
      for (const [name, value] of entry.headers) headers[name] = value;
      const encoding = preferredEncoding(req.headers['accept-encoding'] ?? null);
      const body = await encodedBody(entry, encoding, grew(key));
      if (body !== entry.body) headers['content-encoding'] = encoding!;
      headers['content-length'] = String(body.byteLength);
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    }
    logLine(logger, id, startedAt, req.method ?? 'GET', pathAndQuery, status);
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const startedAt = process.hrtime.bigint();
    if (req.method === 'GET' || req.method === 'HEAD') {
      const key = keyFor(req.url ?? '/', req.headers.accept);
      const entry = key ? cache.lookup(key) : undefined;
      if (entry) {
        serveCached(req, res, entry, key!, startedAt).catch((err: Error) => {
          logger.error({ err }, 'could not send a cached answer');
          res.destroy(err);
        });
        return;
      }
    }
    void adapter.requestListener(req, res);
  };

  return { fetch, listener };
}
