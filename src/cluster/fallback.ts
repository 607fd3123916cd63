// What answers on the service's port while no process can serve it: every worker of a cluster is down
// and waiting out its restart delay, or the single process cannot load its catalogue. Health says 503
// and why, at once, so a load balancer and an operator see the reason instead of a refused connection;
// every other request gets a 503 problem+json with Retry-After (retry later or elsewhere, not at once).
import http from 'node:http';
import { problem } from '../request/errors.js';
import { PATHS } from '../request/paths.js';

export interface Fallback {
  /** Serves until closed; what it says can change while it serves. */
  say(reason: string, retryAfterSeconds: number, capacityExceeded: boolean): void;
  close(): Promise<void>;
}

const RETRY_LISTEN_MS = 100;

/**
 * Listens on the port (retrying while the cluster's own listener still holds it: node:cluster closes its
 * handle when its last worker goes) and answers until closed.
 */
export function serveFallback(port: number, host: string, onError: (err: Error) => void): Fallback {
  let said = { reason: 'starting', retryAfter: 1, capacity: false };
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').replace(/^[a-z]+:\/\/[^/]*/i, '').split('?')[0];
    const headers = {
      'cache-control': 'no-store',
      'retry-after': String(said.retryAfter),
      'access-control-allow-origin': '*',
      connection: 'close',
    };
    if (path === PATHS.health) {
      res.writeHead(503, { ...headers, 'content-type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({
          status: 'degraded',
          checks: { workers: 'down', capacity: said.capacity ? 'exceeded' : 'ok' },
          detail: said.reason,
          retryAfterSeconds: said.retryAfter,
        }),
      );
      return;
    }
    res.writeHead(503, { ...headers, 'content-type': 'application/problem+json; charset=utf-8' });
    res.end(JSON.stringify(problem('SERVICE_UNAVAILABLE', `The service is restarting: ${said.reason}`)));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  const listen = () => {
    if (closed) return;
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') retry = setTimeout(listen, RETRY_LISTEN_MS);
      else onError(err);
    });
    server.listen(port, host);
  };
  listen();
  return {
    say(reason, retryAfterSeconds, capacityExceeded) {
      said = { reason, retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)), capacity: capacityExceeded };
    },
    close() {
      closed = true;
      clearTimeout(retry);
      return new Promise((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Restart delays: 1 s after the first failure, doubling to at most a minute; a process that stayed up
 * for a while is forgiven its past (a crash a day is not a crash loop).
 */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly firstMs = 1_000,
    private readonly maxMs = 60_000,
    private readonly forgiveAfterMs = 30_000,
  ) {}

  /** The delay before the next start, given how long the process that just stopped had run. */
  next(ranMs: number): number {
    if (ranMs >= this.forgiveAfterMs) this.failures = 0;
    const delay = this.failures === 0 ? 0 : Math.min(this.maxMs, this.firstMs * 2 ** (this.failures - 1));
    this.failures++;
    return delay;
  }
}
