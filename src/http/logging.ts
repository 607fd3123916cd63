// One structured line per request, written when the final answer is known (after ETag/304 handling):
// method, path, status, duration, request id. The id is echoed to the client in X-Request-Id.
import { STATUS_CODES } from 'node:http';
import type { Logger } from '../logger.js';
import type { RequestScope } from './request-context.js';

export function logLine(logger: Logger, requestId: string, startedAt: bigint, method: string, pathAndQuery: string, status: number): void {
  const q = pathAndQuery.indexOf('?');
  const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  logger.info(
    {
      requestId,
      method,
      path: q < 0 ? pathAndQuery : pathAndQuery.slice(0, q),
      query: q < 0 ? undefined : pathAndQuery.slice(q),
      status,
      durationMs: Math.round(durationMs * 100) / 100,
    },
    'request',
  );
}

export function logged(logger: Logger, scope: RequestScope, method: string, url: string, response: Response): Response {
  // A reason phrase on the status line ("200 OK"), and the request id, need a response we may change.
  if (!response.statusText || !trySet(response, scope.id)) {
    response = new Response(response.body, { status: response.status, statusText: STATUS_CODES[response.status] ?? '', headers: response.headers });
    response.headers.set('x-request-id', scope.id);
  }
  const { pathname, search } = new URL(url);
  logLine(logger, scope.id, scope.startedAt, method, pathname + search, response.status);
  return response;
}

function trySet(response: Response, id: string): boolean {
  try {
    response.headers.set('x-request-id', id);
    return true;
  } catch {
    return false; // some responses have immutable headers
  }
}
