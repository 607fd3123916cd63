// The whole application over a seeded test database, driven through app.fetch (no port), or over a
// loopback port (serve) where a test needs real connections.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { seedSample } from '../../src/sample/seed.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestApp {
  app: App;
  db: TestDatabase;
  config: Config;
  /** The clock the app sees; tests may move it. */
  clock: { now: Date };
  get(path: string, init?: RequestInit): Promise<Response>;
  graphql<T = unknown>(
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<{
    status: number;
    body: {
      data?: T;
      errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
    };
  }>;
  close(): Promise<void>;
}

export const SAMPLE = { seed: 11, days: 20, end: '2026-11-20', scale: 1 } as const;

export async function createTestApp(
  options: { days?: number; env?: NodeJS.ProcessEnv; seed?: (prisma: TestDatabase['prisma']) => Promise<unknown> } = {},
): Promise<TestApp> {
  const db = await createTestDatabase();
  await (options.seed
    ? options.seed(db.prisma)
    : seedSample(db.prisma, { ...SAMPLE, days: options.days ?? SAMPLE.days }));
  // No bound of work in progress unless a test asks for one (test/overload.test.ts): the suite sends
  // requests in bursts on a busy machine, and what it checks is not the load shedding.
  const config = loadConfig({ LOG_LEVEL: 'silent', RELOAD_POLL_MS: '200', MAX_IN_FLIGHT: '0', ...options.env });
  const clock = { now: new Date(`${SAMPLE.end}T12:00:00.000Z`) };
  const app = await createApp({
    config,
    db: { prisma: db.prisma, kind: db.kind, url: db.url, close: db.close },
    logger: createLogger(process.env.TEST_LOG ?? 'silent'),
    clock: () => clock.now,
  });
  const get = (path: string, init?: RequestInit) => app.fetch(new Request(`http://test.local${path}`, init));
  return {
    app,
    db,
    config,
    clock,
    get,
    async graphql(query, variables) {
      const response = await app.fetch(
        new Request('http://test.local/graphql', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json, application/json',
          },
          body: JSON.stringify({ query, variables }),
        }),
      );
      return { status: response.status, body: (await response.json()) as never };
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}

/** The app on a loopback port, as the service listens (app.listener): for tests that need real connections. */
export async function serve(app: App): Promise<{ base: string; server: http.Server; close(): Promise<void> }> {
  const server = http.createServer(app.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
