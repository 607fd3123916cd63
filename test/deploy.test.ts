// What cannot run here (Docker) is kept correct by review and by these checks of its configuration.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from '../src/config.js';

describe('docker-compose.yml', () => {
  type Service = {
    image?: string;
    build?: string;
    environment?: Record<string, string>;
    ports?: string[];
    expose?: string[];
    volumes?: string[];
    deploy?: { replicas?: number; resources?: { limits?: { memory?: string } } };
    depends_on?: Record<string, { condition: string }>;
  };
  const compose = async () =>
    parse(await readFile('docker-compose.yml', 'utf8')) as { services: Record<string, Service> };

  it('runs PostgreSQL and the service against it, replicated, behind nginx on its published port', async () => {
    const { db, api, proxy } = (await compose()).services;
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
    expect(api!.depends_on?.db?.condition).toBe('service_healthy');
    expect(api!.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(api!.expose).toContain(env.PORT);
    expect(api!.ports).toBeUndefined(); // only through the proxy
    // The service accepts its environment as given, trusts the proxy's X-Forwarded-For, and its memory
    // budget fits the container's limit.
    expect(() => loadConfig(env)).not.toThrow();
    const config = loadConfig(env);
    expect(config).toMatchObject({
      databaseUrl: env.DATABASE_URL,
      port: Number(env.PORT),
      host: '0.0.0.0',
      trustProxy: true,
    });
    expect(config.memoryBudgetMb).toBeLessThanOrEqual(Number.parseInt(api!.deploy!.resources!.limits!.memory!, 10));

    expect(proxy?.image).toMatch(/^nginx:/);
    expect(proxy!.volumes).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(proxy!.ports).toContain('8080:8080');
    expect(proxy!.depends_on?.api?.condition).toBe('service_healthy');
  });

  it(
    'has nginx balance over the replicas, cache as ' + 'Cache-Control says and pass the change stream unbuffered',
    async () => {
      const conf = await readFile('deploy/nginx.conf', 'utf8');
      const env = (await compose()).services.api!.environment!;
      expect(conf).toMatch(new RegExp(`server api:${env.PORT};`));
      expect(conf).toMatch(/listen 8080;/);
      expect(conf).toMatch(/proxy_cache api;/);
      expect(conf).toMatch(/proxy_cache_revalidate on;/);
      // No proxy_cache_valid and no proxy_ignore_headers: freshness is the service's Cache-Control.
      expect(conf).not.toMatch(/proxy_cache_valid|proxy_ignore_headers/);
      expect(conf).toMatch(/proxy_set_header X-Forwarded-For/);
      const stream = /location = \/api\/changes\/stream \{([^}]*)\}/.exec(conf)?.[1] ?? '';
      expect(stream).toMatch(/proxy_buffering off;/);
      expect(stream).toMatch(/proxy_cache off;/);
      // Every opening brace is closed (a typo would stop nginx from starting).
      expect(conf.split('{').length).toBe(conf.split('}').length);
    },
  );

  it('builds an image that starts the compiled server on the pinned runtime, as an unprivileged user', async () => {
    const dockerfile = await readFile('Dockerfile', 'utf8');
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { devDependencies: Record<string, string> };
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages).toHaveLength(2);
    // Both stages on the runtime package.json pins, so the image runs what npm start and the tests run.
    for (const stage of stages)
      expect(stage).toMatch(new RegExp(`^node:${pkg.devDependencies.node!.replace(/\./g, '\\.')}-`));
    const [build, run] = stages as [string, string];
    expect(build).toMatch(/RUN npm ci/);
    expect(build).toMatch(/RUN npm run build && npm prune --omit=dev/);
    expect(build).toMatch(/^COPY [^\n]*schema\.graphql/m); // the web page's operations are checked against it
    expect(build).toMatch(/^COPY docs /m);
    expect(run).toMatch(/^COPY --from=build \/app\/docs /m); // the calculation guide is served from docs/calculation.md
    expect(run).toMatch(/^COPY --from=build \/app\/prisma /m); // migrations run on first start
    expect(run).not.toMatch(/^COPY --from=build \/app\/src/m);
    expect(run).toMatch(/^USER node$/m);
    expect(run).toMatch(/CMD \["node", "dist\/main\.js"\]/);
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
