// Builds the HTTP application without listening (tests call app.fetch directly).
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { Logger } from './logger.js';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
}

export interface App {
  fetch(request: Request): Promise<Response>;
}

export function createApp({ db }: AppDeps): App {
  return {
    async fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === '/api/health') {
        const ok = await db.prisma.$queryRawUnsafe('SELECT 1').then(() => true, () => false);
        return Response.json({ status: ok ? 'ok' : 'degraded' }, { status: ok ? 200 : 503 });
      }
      return Response.json({ type: 'about:blank', title: 'Not Found', status: 404 }, { status: 404, headers: { 'content-type': 'application/problem+json' } });
    },
  };
}
