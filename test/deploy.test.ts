// What cannot run here (Docker) is kept correct by review and by these checks of its configuration.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from '../src/config.js';

describe('docker-compose.yml', () => {
  it('runs PostgreSQL and the service against it, published on the service port', async () => {
    const compose = parse(await readFile('docker-compose.yml', 'utf8')) as {
      services: Record<
        string,
        {
          image?: string;
          build?: string;
          environment?: Record<string, string>;
          ports?: string[];
          depends_on?: Record<string, { condition: string }>;
        }
      >;
    };
    const { db, api } = compose.services;
    expect(db?.image).toMatch(/^postgres:\d+/);
    expect(api?.build).toBe('.');
    const env = api!.environment!;
    // The service's DATABASE_URL must point at the db service with the credentials it was created with.
    const url = new URL(env.DATABASE_URL!);
    const dbEnv = db!.environment!;
    expect(url.protocol).toBe('postgresql:');
    expect(url.hostname).toBe('db');
    expect(url.username).toBe(dbEnv.POSTGRES_USER);
    expect(url.password).toBe(dbEnv.POSTGRES_PASSWORD);
    expect(url.pathname).toBe(`/${dbEnv.POSTGRES_DB}`);
    expect(api!.ports).toContain(`${env.PORT}:${env.PORT}`);
    expect(api!.depends_on?.db?.condition).toBe('service_healthy');
    // The service accepts its environment as given.
    expect(() => loadConfig(env)).not.toThrow();
    expect(loadConfig(env)).toMatchObject({ databaseUrl: env.DATABASE_URL, port: Number(env.PORT), host: '0.0.0.0' });
  });

  it('builds an image that starts the compiled server', async () => {
    const dockerfile = await readFile('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toMatch(/RUN npm ci/);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(dockerfile).toMatch(/^COPY [^\n]*schema\.graphql/m); // the web page's operations are checked against it
    expect(dockerfile).toMatch(/^COPY docs /m); // the calculation guide is served from docs/calculation.md
    expect(dockerfile).toMatch(/CMD \["node", "dist\/main\.js"\]/);
  });
});

describe('configuration', () => {
  it('has defaults that run the embedded database on port 3000', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      seedSample: true,
      sampleDays: 400,
      logLevel: 'info',
    });
  });

  it.each([
    [{}, { ingestWaitMs: 600_000, ingestMaxFutureSkewMs: 300_000 }],
    [
      { INGEST_WAIT_SECONDS: '0', INGEST_MAX_FUTURE_SKEW_MINUTES: '0.5' },
      { ingestWaitMs: 0, ingestMaxFutureSkewMs: 30_000 },
    ],
  ])("reads the ingest's wait and clock skew from %j", (env, expected) => {
    expect(loadConfig(env)).toMatchObject(expected);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' })).toMatchObject({ port: 3000, databaseUrl: undefined });
  });

  it('names every bad variable at once', () => {
    const error = (() => {
      try {
        loadConfig({
          PORT: 'eighty',
          DATABASE_URL: 'mysql://x',
          SEED_SAMPLE: 'maybe',
          INGEST_WAIT_SECONDS: '-1',
          INGEST_MAX_FUTURE_SKEW_MINUTES: 'soon',
        });
      } catch (e) {
        return e;
      }
    })() as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.problems.map((p) => p.split(':')[0])).toEqual([
      'PORT',
      'DATABASE_URL',
      'SEED_SAMPLE',
      'INGEST_MAX_FUTURE_SKEW_MINUTES',
      'INGEST_WAIT_SECONDS',
    ]);
  });
});
