// Answers written straight to a node socket, for what the gate (admission.ts) settles without the
// application: a finished answer (most requests: no Request, no Headers, no yoga, and a 304 not even a
// promise), a refusal, and a request Node itself could not parse.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.js';
import { MAX_KEPT_LINK_URL } from './body-cache.js';
import {
  cacheHeaders,
  encodedBody,
  linkHeader,
  matchesIfNoneMatch,
  preferredEncoding,
  type FinishedBody,
} from './layer.js';
import { logLine, type RequestObserver } from './logging.js';
import { problemResponse } from './problem.js';
import { requestIdFrom } from '../request/context.js';
import { pagePolicy } from './security.js';

/** The request line and headers together; beyond it Node answers 431 (see clientError). */
export const MAX_HEADER_BYTES = 16 * 1024;

export interface NodeWriterDeps {
  logger: Logger;
  observe?: RequestObserver;
  /** What every answer carries (CORS, security headers). */
  everyAnswer: Readonly<Record<string, string>>;
  clientOf(req: IncomingMessage): string;
}

export interface NodeWriter {
  /** A finished answer: 304 when If-None-Match matches, else 200 in the best encoding the client takes. */
  finished(
    req: IncomingMessage,
    res: ServerResponse,
    entry: FinishedBody,
    onGrow: (() => void) | undefined,
    startedAt: bigint,
    id?: string,
  ): void | Promise<void>;
  /** A small answer (a refusal, a preflight), with the usual request id and log line. */
  small(req: IncomingMessage, res: ServerResponse, startedAt: bigint, response: Response, id?: string): void;
  /** For the server's 'clientError': a request Node could not parse still gets a problem, not a bare status line. */
  clientError(err: Error & { code?: string }, socket: Duplex): void;
}

/**
 * Headers as Node's flat list (name, value, name, value…), which writeHead takes as it is: the object
 * spread a request made of the fixed headers went through V8's runtime once its shapes varied.
 */
const flat = (headers: Record<string, string>): string[] => Object.entries(headers).flat();

const idOf = (req: IncomingMessage) => {
  const header = req.headers['x-request-id'];
  return requestIdFrom(typeof header === 'string' ? header : null);
};

export function nodeWriter({ logger, observe, everyAnswer, clientOf }: NodeWriterDeps): NodeWriter {
  /**
   * A cached answer's headers that are the same on every request (a cache hit is most requests: made
   * once per entry, not per request), for a 304 and for a 200; the last Link made, for the URL it was for.
   */
  const fixedHeaders = new WeakMap<
    FinishedBody,
    { notModified: string[]; ok: string[]; link?: { url: string; value: string } }
  >();
  function fixedOf(entry: FinishedBody) {
    let fixed = fixedHeaders.get(entry);
    if (!fixed) {
      const notModified = { ...cacheHeaders(entry.etag, entry.cacheControl, entry.vary), ...everyAnswer };
      const ok: Record<string, string> = { ...notModified };
      for (const [name, value] of entry.headers) ok[name] = value;
      const policy = pagePolicy(ok['content-type'], ok['content-security-policy']);
      if (policy) ok['content-security-policy'] = policy;
      fixedHeaders.set(entry, (fixed = { notModified: flat(notModified), ok: flat(ok) }));
    }
    return fixed;
  }

  function finished(
    req: IncomingMessage,
    res: ServerResponse,
    entry: FinishedBody,
    onGrow: (() => void) | undefined,
    startedAt: bigint,
    id = idOf(req),
  ): void | Promise<void> {
    const pathAndQuery = req.url ?? '/';
    const fixed = fixedOf(entry);
    if (matchesIfNoneMatch(req.headers['if-none-match'] ?? null, entry.etag)) {
      res.writeHead(304, [...fixed.notModified, 'x-request-id', id]);
      res.end();
      logLine(logger, id, startedAt, req.method ?? 'GET', pathAndQuery, 304, clientOf(req), observe);
      return;
    }
    const headers = [...fixed.ok, 'x-request-id', id];
    if (entry.paging) {
      // Built from the request's own query (equal answers can come from differently spelled URLs); kept
      // with the entry for a URL of ordinary length, the size the body cache counts for it.
      const { page, pages, read } = entry.paging;
      if (pathAndQuery.length > MAX_KEPT_LINK_URL) headers.push('link', linkHeader(pathAndQuery, page, pages, read));
      else {
        if (fixed.link?.url !== pathAndQuery)
          fixed.link = { url: pathAndQuery, value: linkHeader(pathAndQuery, page, pages, read) };
        headers.push('link', fixed.link.value);
      }
    }
    const encoding = preferredEncoding(req.headers['accept-encoding'] ?? null);
    const send = (body: Uint8Array) => {
      if (body !== entry.body) headers.push('content-encoding', encoding!);
      headers.push('content-length', String(body.byteLength));
      // Headers set on the response before (the rate limit's) stay: writeHead merges them.
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
      logLine(logger, id, startedAt, req.method ?? 'GET', pathAndQuery, 200, clientOf(req), observe);
    };
    if (!encoding) return send(entry.body);
    return encodedBody(entry, encoding, onGrow).then(send);
  }

  function small(req: IncomingMessage, res: ServerResponse, startedAt: bigint, response: Response, id = idOf(req)) {
    void response.text().then((body) => {
      res.writeHead(response.status, { ...Object.fromEntries(response.headers), ...everyAnswer, 'x-request-id': id });
      res.end(body);
      const path = (req.url ?? '/').slice(0, 200);
      logLine(logger, id, startedAt, req.method ?? 'GET', path, response.status, clientOf(req), observe);
    });
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
    const problem =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? problemResponse(
            'REQUEST_HEADERS_TOO_LARGE',
            `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes.`,
          )
        : problemResponse('BAD_REQUEST', 'The request is not valid HTTP.');
    void problem.text().then((body) => {
      const headers = {
        ...Object.fromEntries(problem.headers),
        ...everyAnswer,
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

  return { finished, small, clientError };
}

/**
 * A request target in absolute form (`GET http://host/api/health`, RFC 9112 §3.2.2) names the path
 * within the URI, and its authority replaces the Host header; everything after this reads the path.
 * False for an absolute target that is not a valid http(s) URI. Other forms (`*`) pass as they are.
 */
export function toOriginForm(req: IncomingMessage): boolean {
  if (req.url?.charCodeAt(0) === 47 /* / */ || !/^[a-z][a-z\d+.-]*:/i.test(req.url ?? '')) return true;
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
