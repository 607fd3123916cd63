// One structured line per request, written when the final answer is known (after ETag/304 handling):
// method, path, status, duration, request id. The id is echoed to the client in X-Request-Id.
import type { Logger } from '../logger.js';
import type { RequestScope } from './request-context.js';

export function logged(logger: Logger, scope: RequestScope, request: Request, response: Response): Response {
  try {
    response.headers.set('x-request-id', scope.id);
  } catch {
    response = new Response(response.body, response); // some responses have immutable headers
    response.headers.set('x-request-id', scope.id);
  }
  const url = new URL(request.url);
  const durationMs = Number(process.hrtime.bigint() - scope.startedAt) / 1e6;
  logger.info(
    { requestId: scope.id, method: request.method, path: url.pathname, query: url.search || undefined, status: response.status, durationMs: Math.round(durationMs * 100) / 100 },
    'request',
  );
  return response;
}
