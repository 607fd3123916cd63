// The service's HTTP front: every request passes here, GraphQL and REST alike, through one gate
// (admission.ts) whichever adapter brought it: a node socket (listener) or a Request (fetch).
// - Refused or answered by the gate: a limit, the rate limit, a preflight, a file, a cached answer (on
//   node written straight to the socket, node-writer.ts, without even building a Request).
// - A REST GET whose answer may be kept, when the application is on this thread, is asked of the REST
//   facade directly (no Request, no yoga fetch: a cold list's CPU is ~10 % less), then written as a hit.
// - Anything else goes to yoga; a 200 GET is finished (ETag, compressed forms) and cached, except
//   Server-Sent Events, which pass through as they are written (never cached or compressed).
// - Either way: 304 for a matching If-None-Match, Cache-Control, compression, HEAD, X-Request-Id, a log line.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServerAdapter } from '@whatwg-node/server';
import type { Logger } from '../logger.js';
import { currentRequestId, requestIdFrom, requestScope, type RequestScope } from '../request/context.js';
import { NO_REUSE } from '../request/reuse.js';
import {
  createAdmission,
  bodyTooLarge,
  pathOf,
  type Admission,
  type AdmissionDeps,
  type Arrival,
} from './admission.js';
import { clientAddress, trustedProxies as trustedMatcher } from '../request/client-address.js';
import { CORS_HEADERS } from './cors.js';
import { answer, answerEventStream, answerStream, finish, isEventStream, STREAM_ETAG } from './layer.js';
import { logged, logLine, type RequestObserver } from './logging.js';
import { nodeWriter, toOriginForm } from './node-writer.js';
import type { InFlight } from './overload.js';
import { problemResponse } from './problem.js';
import { SECURITY_HEADERS } from './security.js';
import { isApiPath } from '../request/paths.js';

/** What the REST facade reads of a request it is asked directly (see HttpDeps.direct). */
export interface Asked {
  method: string;
  url: URL;
  header(name: string): string | null;
  /** The request as a Request, for what reads it whole: made only then. */
  request(): Request;
  /** Whether its client has gone (what was computed for it then stopped, and nobody reads the answer). */
  gone(): boolean;
}

export interface HttpDeps extends AdmissionDeps {
  /** The application behind the gate (yoga). */
  upstream(request: Request): Promise<Response>;
  /**
   * The REST routes whose answers are kept, asked without a Request or yoga's fetch (the application on
   * this thread): a cold list's answer is a third cheaper so. Absent: everything goes to the upstream.
   */
  direct?(asked: Asked): Promise<Response>;
  /** Whether new answers may be kept (not while the database fails: they may lack what it holds). */
  cacheable(): boolean;
  logger: Logger;
  /**
   * The proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES, checked): the client is the right-most
   * forwarded address not among them. Empty (the default): the socket's peer.
   */
  trustedProxies?: readonly string[];
  /** An answer not started within this long is a 503 (REQUEST_TIMEOUT_MS, from the configuration). */
  requestTimeoutMs: number;
  /** Told of every answer (the request metrics). */
  observe?: RequestObserver;
  /** The bound of computed answers in progress (overload.ts); none: no bound. */
  inFlight?: InFlight;
  /** Whether a request the application answers counts toward it (not health, metrics or streams). */
  shed?(path: string, accept: string | null): boolean;
}

/** What every answer carries, whichever path gives it. */
const EVERY_ANSWER: Readonly<Record<string, string>> = { ...CORS_HEADERS, ...SECURITY_HEADERS };

/** The share of REQUEST_TIMEOUT_MS after which long calculations give up with what they have. */
const DEADLINE_SHARE = 0.5;

const headerOf = (req: IncomingMessage, name: string): string | null => {
  const value = req.headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
};

/** Who asks through app.fetch, with no socket to tell (the tests, an embedding process). */
const NO_SOCKET = 'local';

/** What the gate reads of a request on a node socket: read when asked (most requests need few of these). */
class NodeArrival implements Arrival {
  constructor(
    private readonly req: IncomingMessage,
    private readonly clientOf: (req: IncomingMessage) => string,
  ) {}
  get method(): string {
    return this.req.method ?? 'GET';
  }
  get target(): string {
    return this.req.url ?? '/';
  }
  header(name: string): string | null {
    return headerOf(this.req, name);
  }
  get client(): string {
    return this.clientOf(this.req);
  }
}

export interface HttpHandler {
  fetch(request: Request): Promise<Response>;
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** For the server's 'clientError': a request Node could not parse still gets a problem, not a bare status line. */
  clientError(err: Error & { code?: string }, socket: Duplex): void;
}

export function createHttpHandler(deps: HttpDeps): HttpHandler {
  const { upstream, cache, cacheable, logger, trustedProxies = [], requestTimeoutMs, observe, inFlight } = deps;
  const { shed = () => true } = deps;
  const admit = createAdmission(deps);

  const proxies = trustedProxies.length > 0 ? trustedMatcher(trustedProxies) : null;
  // Asked by the rate limit, then by the request's scope (the stream caps) and the log line: found once
  // per request, or once per connection when no proxy is trusted (then the peer is the client).
  const clients = new WeakMap<IncomingMessage, string>();
  const peers = new WeakMap<Duplex, string>();
  const clientOf = (req: IncomingMessage): string => {
    if (!proxies) {
      let peer = peers.get(req.socket);
      if (peer === undefined) peers.set(req.socket, (peer = clientAddress(req.socket.remoteAddress, undefined, null)));
      return peer;
    }
    let client = clients.get(req);
    if (client === undefined) {
      client = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], proxies);
      clients.set(req, client);
    }
    return client;
  };
  const write = nodeWriter({ logger, observe, everyAnswer: EVERY_ANSWER, clientOf });

  /**
   * The upstream's answer, or a 503 when it does not start in time. Long calculations stop then (their
   * lane task is aborted); short work already under way finishes and is dropped.
   */
  function withTimeout(compute: () => Promise<Response>, path: () => string): Promise<Response> {
    let timer: NodeJS.Timeout | undefined;
    const scope = requestScope.getStore();
    const late = new Promise<Response>((resolve) => {
      timer = setTimeout(() => {
        // What still computes for this request stops: its answer is the 503 below.
        scope?.expiry?.abort(new DOMException('the request timed out', 'TimeoutError'));
        logger.warn(
          { requestId: currentRequestId(), path: path(), timeoutMs: requestTimeoutMs },
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
    return Promise.race([compute(), late]).finally(() => clearTimeout(timer));
  }
  const grew = (key: string | null) => (key ? () => cache.grew(key) : undefined);

  /**
   * The application's answer within the time, with whether it may be kept (its NO_REUSE mark taken off),
   * or null when its client hung up before it: the request's work was stopped, nobody is left to answer,
   * and nothing is wrong with the service (499 is the log's convention for it).
   */
  async function computed(
    compute: () => Promise<Response>,
    path: () => string,
    signal: AbortSignal,
  ): Promise<{ response: Response; reusable: boolean } | null> {
    let response: Response;
    try {
      response = await withTimeout(compute, path);
    } catch (err) {
      if (signal.aborted) {
        logger.info({ requestId: currentRequestId() }, 'client closed the connection before the answer');
        return null;
      }
      // Whatever escaped the application: logged with the request id, answered without internals.
      logger.error({ requestId: currentRequestId(), err }, 'unexpected error');
      response = problemResponse('INTERNAL_SERVER_ERROR', 'Unexpected error.');
    }
    // The application's word that this answer is not for reuse (a GraphQL answer with errors, given 200).
    const reusable = !response.headers.has(NO_REUSE);
    if (!reusable) response.headers.delete(NO_REUSE);
    return { response, reusable };
  }

  /** What the application answers a request the gate passed, finished and kept under `key` when it may be. */
  async function application(request: Request, key: string | null): Promise<Response> {
    const get = request.method === 'GET' || request.method === 'HEAD';
    const got = await computed(
      () => upstream(request),
      () => new URL(request.url).pathname,
      request.signal,
    );
    if (!got) return new Response(null, { status: 499 });
    const { response, reusable } = got;
    // A body sent without a length (chunked) is cut at the same bound by the schema's server (src/graphql/
    // body-limit.ts), which answers 413 its way.
    if (response.status === 413) return bodyTooLarge();
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
    return answer(request, finished, grew(key));
  }

  /**
   * A REST GET whose answer is kept (deps.direct), asked of the facade without a Request or yoga's fetch:
   * computed, finished and kept as on the way through yoga, then written as the cached answer it now is.
   * Anything but a 200 is written as the facade made it.
   */
  function direct(
    ask: NonNullable<HttpDeps['direct']>,
    req: IncomingMessage,
    res: ServerResponse,
    startedAt: bigint,
    key: string,
  ): void {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    // The client gone before its answer: what computes for it stops (the lane reads the signal).
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort(new DOMException('the client closed the connection', 'AbortError'));
    });
    const scope: RequestScope = {
      id: requestIdFrom(headerOf(req, 'x-request-id')),
      startedAt,
      signal: gone.signal,
      deadline: performance.now() + requestTimeoutMs * DEADLINE_SHARE,
      client: clientOf(req),
      socket: req.socket,
    };
    const url = new URL(target, 'http://localhost');
    const asked: Asked = {
      method,
      url,
      header: (name) => headerOf(req, name),
      request: () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        return new Request(url, { method, headers, signal: gone.signal });
      },
      gone: () => gone.signal.aborted,
    };
    const fail = (err: unknown) => {
      logger.error({ requestId: scope.id, err }, 'could not send an answer');
      res.destroy(err as Error);
    };
    void requestScope
      .run(scope, async () => {
        const got = await computed(
          () => ask(asked),
          () => url.pathname,
          gone.signal,
        );
        // Gone, whether its work was stopped or had finished: nothing is written.
        if (!got || gone.signal.aborted) {
          if (got) logger.info({ requestId: scope.id }, 'client closed the connection before the answer');
          return logLine(logger, scope.id, startedAt, method, target, 499, scope.client, observe);
        }
        const { response, reusable } = got;
        if (response.status !== 200) return write.small(req, res, startedAt, response, scope.id);
        const finished = await finish(response);
        const kept = reusable && cacheable();
        if (kept) cache.set(key, finished);
        return write.finished(req, res, finished, kept ? grew(key) : undefined, startedAt, scope.id);
      })
      .catch(fail);
  }

  /** A request that came as a Request: through the gate, then as it says. */
  async function settle(request: Request, admission: Admission): Promise<Response> {
    const { admitted } = admission;
    if (admitted.kind === 'answer') return admitted.response;
    if (admitted.kind === 'finished') return answer(request, await admitted.entry, grew(admitted.key));
    return application(request, admitted.key);
  }

  /**
   * What the gate passed to the application, within the bound of work in progress: a slot now, after a
   * short wait, or a 503 at once. Given back when the answer is made (a long body streams after it).
   */
  async function bounded(request: Request, admission: Admission, path: string): Promise<Response> {
    // A request from the node listener was bounded there (onNode), before yoga's adapter.
    if (admission.admitted.kind !== 'pass' || !inFlight || admission.bound) return settle(request, admission);
    if (!shed(path, request.headers.get('accept'))) return settle(request, admission);
    const entered = inFlight.enter();
    if (entered === false || (entered !== true && !(await entered))) return inFlight.refusal();
    const admitted = performance.now();
    try {
      return await settle(request, admission);
    } finally {
      inFlight.leave(performance.now() - admitted);
    }
  }

  /** Requests the node listener admitted already, handed to yoga's adapter: their admission, not asked again. */
  const admittedOnNode = new WeakMap<IncomingMessage, Admission>();

  const fetch = async (request: Request, server?: { req?: IncomingMessage }): Promise<Response> => {
    const scope: RequestScope = {
      id: requestIdFrom(request.headers.get('x-request-id')),
      startedAt: process.hrtime.bigint(),
      signal: request.signal,
      // Well before the timeout answers 503, so that a long search can still answer its best plan in time.
      deadline: performance.now() + requestTimeoutMs * DEADLINE_SHARE,
    };
    const req = server?.req;
    if (req) {
      scope.client = clientOf(req);
      scope.socket = req.socket;
    }
    const url = new URL(request.url);
    const admission =
      (req && admittedOnNode.get(req)) ??
      (await admit({
        method: request.method,
        target: url.pathname + url.search,
        header: (name) => request.headers.get(name),
        client: scope.client ?? NO_SOCKET,
      }));
    const headers = { 'x-request-id': scope.id, ...EVERY_ANSWER, ...admission.rate };
    return requestScope.run(scope, async () =>
      logged(
        logger,
        scope,
        request.method,
        request.url,
        await bounded(request, admission, url.pathname),
        headers,
        observe,
      ),
    );
  };

  const adapter = createServerAdapter((request, server) => fetch(request, server as { req?: IncomingMessage }));

  /** A request on a node socket: through the same gate; what it settles is written here, the rest goes to yoga. */
  const onNode = (req: IncomingMessage, res: ServerResponse, startedAt: bigint, admission: Admission): void => {
    // Set on the response now, so that whichever path answers (cache, application, refusal) carries them.
    if (admission.rate) for (const name in admission.rate) res.setHeader(name, admission.rate[name]!);
    const { admitted } = admission;
    if (admitted.kind === 'answer') return write.small(req, res, startedAt, admitted.response);
    if (admitted.kind === 'pass') {
      const pass = () => {
        if (deps.direct && admitted.key && isApiPath(pathOf(req.url ?? '/')))
          return direct(deps.direct, req, res, startedAt, admitted.key);
        admittedOnNode.set(req, admission);
        void adapter.requestListener(req, res);
      };
      // The bound of work in progress, decided here: a refusal costs the loop no more than a cached answer.
      if (!inFlight || !shed(pathOf(req.url ?? '/'), headerOf(req, 'accept'))) {
        admission.bound = 'exempt';
        return pass();
      }
      const entered = inFlight.enter();
      const refuse = () => write.small(req, res, startedAt, inFlight.refusal());
      const enter = () => {
        // A client that went while its request waited for the slot: its 'close' has been and gone, so
        // the slot would never be given back. Given back now, and nothing is computed for nobody.
        if (res.closed || req.socket.destroyed) return inFlight.leave();
        admission.bound = 'held';
        const admitted = performance.now();
        res.once('close', () => inFlight.leave(performance.now() - admitted));
        pass();
      };
      if (entered === true) return enter();
      if (entered === false) return refuse();
      void entered.then((ok) => (ok ? enter() : refuse()));
      return;
    }
    const fail = (err: Error) => {
      logger.error({ err }, 'could not send a cached answer');
      res.destroy(err);
    };
    try {
      const { entry, key } = admitted;
      const sent =
        entry instanceof Promise
          ? entry.then((e) => write.finished(req, res, e, undefined, startedAt))
          : write.finished(req, res, entry, grew(key), startedAt);
      sent?.catch(fail);
    } catch (err) {
      fail(err as Error);
    }
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const startedAt = process.hrtime.bigint();
    if (!toOriginForm(req)) {
      const response = problemResponse('BAD_REQUEST', 'The request target is not a valid http(s) URI.');
      return write.small(req, res, startedAt, response);
    }
    const admission = admit(new NodeArrival(req, clientOf));
    if (admission instanceof Promise) void admission.then((a) => onNode(req, res, startedAt, a));
    else onNode(req, res, startedAt, admission);
  };

  return { fetch, listener, clientError: write.clientError };
}
