// One structured line per request, written when the final answer is known (after ETag/304 handling):
// method, path, status, duration, request id, and the client's address (src/http/client-address.ts).
// The id is echoed to the client in X-Request-Id. The same moment feeds the request metrics (an
// observer), so the log and /metrics count the same answers.
import { STATUS_CODES } from 'node:http';
import { pino } from 'pino';
import type { Logger } from '../logger.js';
import type { RequestScope } from '../request/context.js';

/**
 * The most of a query string a log line repeats (with its full length beside it): a line stays well under
 * 4,096 bytes, which the workers' shared standard output writes in one piece (src/logger.ts); an 8 KB
 * URL logged whole was two writes, which another worker's line could land between.
 */
export const MAX_LOGGED_QUERY = 1024;

/** Told of every answer: its method, path (without the query), status and duration. */
export type RequestObserver = (method: string, path: string, status: number, seconds: number) => void;

/** What a logger's lines begin with and where they go, read once per logger (pino keeps them under symbols). */
interface LineParts {
  head: string;
  chindings: string;
  stream: pino.DestinationStream;
}
const partsByLogger = new WeakMap<Logger, LineParts>();

function partsOf(logger: Logger): LineParts {
  let parts = partsByLogger.get(logger);
  if (!parts) {
    const own = logger as unknown as Record<symbol, unknown>;
    parts = {
      head: `{"level":${logger.levels.values.info},"time":`,
      chindings: own[pino.symbols.chindingsSym] as string,
      stream: own[pino.symbols.streamSym] as pino.DestinationStream,
    };
    partsByLogger.set(logger, parts);
  }
  return parts;
}

/**
 * A string as JSON: as it is between quotes when it holds nothing JSON escapes (a control, a quote, a
 * backslash) and nothing past ASCII, which nearly every path, id and address is; JSON.stringify otherwise.
 */
function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/**
 * The request's line, byte for byte what `logger.info({ requestId, method, path, query, status, client,
 * durationMs }, 'request')` writes (src/http/logging.test.ts holds it to pino's own), made by one
 * concatenation and written to the logger's destination: pino's general serializer took 4.5 µs a line on
 * our machines. Measured in the service (ten lines a request): 1.5 µs a line with the logger's parts read
 * through pino's symbols and every string through JSON.stringify, 0.95 µs as it is. Its strings are the
 * request's latin-1 target and our own ids.
 */
export function logLine(
  logger: Logger,
  requestId: string,
  startedAt: bigint,
  method: string,
  pathAndQuery: string,
  status: number,
  client: string | undefined,
  observe?: RequestObserver,
): void {
  const q = pathAndQuery.indexOf('?');
  const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  observe?.(method, path, status, durationMs / 1000);
  if (!logger.isLevelEnabled('info')) return;
  const query = q < 0 ? undefined : pathAndQuery.slice(q);
  const long = query !== undefined && query.length > MAX_LOGGED_QUERY;
  const { head, chindings, stream } = partsOf(logger);
  const line =
    `${head}${Date.now()}${chindings},"requestId":${quoted(requestId)},"method":${quoted(method)}` +
    `,"path":${quoted(path.length > MAX_LOGGED_QUERY ? `${path.slice(0, MAX_LOGGED_QUERY)}…` : path)}` +
    (query === undefined ? '' : `,"query":${quoted(long ? `${query.slice(0, MAX_LOGGED_QUERY)}…` : query)}`) +
    (long ? `,"queryLength":${query.length}` : '') +
    `,"status":${status}` +
    (client === undefined ? '' : `,"client":${quoted(client)}`) +
    `,"durationMs":${Math.round(durationMs * 100) / 100},"msg":"request"}\n`;
  stream.write(line);
}

/** The response with headers every answer carries (the request id, CORS), logged. */
export function logged(
  logger: Logger,
  scope: RequestScope,
  method: string,
  url: string,
  response: Response,
  headers: Record<string, string>,
  observe?: RequestObserver,
): Response {
  // A reason phrase on the status line ("200 OK"), and the headers, need a response we may change.
  if (!response.statusText || !trySet(response, headers)) {
    response = new Response(response.body, {
      status: response.status,
      statusText: STATUS_CODES[response.status] ?? '',
      headers: response.headers,
    });
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  }
  const { pathname, search } = new URL(url);
  logLine(logger, scope.id, scope.startedAt, method, pathname + search, response.status, scope.client, observe);
  return response;
}

function trySet(response: Response, headers: Record<string, string>): boolean {
  try {
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return true;
  } catch {
    return false; // some responses have immutable headers
  }
}
