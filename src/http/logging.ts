// One structured line per request: method, path, status, duration, request id.
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import { requestScope } from './request-context.js';

export function requestLogging(logger: Logger): Plugin {
  return {
    onResponse({ request, response }) {
      const scope = requestScope.getStore();
      if (!scope) return;
      response.headers.set('x-request-id', scope.id);
      const url = new URL(request.url);
      const durationMs = Number(process.hrtime.bigint() - scope.startedAt) / 1e6;
      logger.info(
        { requestId: scope.id, method: request.method, path: url.pathname, query: url.search || undefined, status: response.status, durationMs: Math.round(durationMs * 100) / 100 },
        'request',
      );
    },
  };
}
