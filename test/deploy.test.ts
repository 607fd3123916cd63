// What cannot run here (Docker) is kept correct by review and by these checks of its configuration.
import { readFile } from 'node:fs/promises';
import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from '../src/config.js';
import { trustedProxies } from '../src/request/client-address.js';

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
    networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  };
  type Network = { ipam?: { config?: { subnet?: string; ip_range?: string }[] } } | null;
  const compose = async () =>
    parse(await readFile('docker-compose.yml', 'utf8')) as {
      services: Record<string, Service>;
      networks?: Record<string, Network>;
    };
  const networksOf = (service: Service) =>
    Array.isArray(service.networks) ? service.networks : Object.keys(service.networks ?? {});

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
    // The service accepts its environment as given, and its memory budget fits the container's limit.
    expect(() => loadConfig(env)).not.toThrow();
    const config = loadConfig(env);
    expect(config).toMatchObject({
      databaseUrl: env.DATABASE_URL,
      port: Number(env.PORT),
      host: '0.0.0.0',
    });
    expect(config.memoryBudgetMb).toBeLessThanOrEqual(Number.parseInt(api!.deploy!.resources!.limits!.memory!, 10));

    expect(proxy?.image).toMatch(/^nginx:/);
    expect(proxy!.volumes).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(proxy!.ports).toContain('8080:8080');
    expect(proxy!.depends_on?.api?.condition).toBe('service_healthy');
  });

  it("trusts nginx's address alone to name the client, on a network nginx shares with the replicas only", async () => {
    const { services, networks } = await compose();
    const { api, proxy, db } = services;
    const [edge, address] = Object.entries(proxy!.networks as Record<string, { ipv4_address?: string }>)[0]!;
    expect(networksOf(proxy!)).toEqual([edge]);
    expect(networksOf(api!)).toContain(edge);
    expect(networksOf(db!)).not.toContain(edge); // the database is not reachable from nginx
    const trusted = trustedProxies(loadConfig(api!.environment!).trustedProxies);
    expect(trusted.trusts(address.ipv4_address!)).toBe(true);
    // Nothing else of the network is: not its gateway (Docker's userland proxy connects from it), not a replica.
    const { subnet, ip_range } = networks![edge]!.ipam!.config![0]!;
    const within = (cidr: string) => {
      const [base, bits] = cidr.split('/');
      const list = new BlockList();
      list.addSubnet(base!, Number(bits));
      return (ip: string) => list.check(ip);
    };
    expect(within(subnet!)(address.ipv4_address!)).toBe(true);
    expect(within(ip_range!)(address.ipv4_address!)).toBe(false); // a replica is never given nginx's address
    const prefix = subnet!.split('.').slice(0, 3).join('.');
    expect(subnet).toMatch(/\/24$/); // walked below, one address at a time
    for (let last = 1; last < 255; last++) {
      const ip = `${prefix}.${last}`;
      expect(trusted.trusts(ip), ip).toBe(ip === address.ipv4_address);
    }
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
      // Every location that passes requests on appends the sender: the address the service takes as the client.
      const locations = conf.split(/\blocation\b/).slice(1);
      expect(locations.length).toBeGreaterThanOrEqual(2);
      for (const location of locations)
        expect(location).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
      expect(conf).not.toMatch(/real_ip_header|set_real_ip_from/); // nginx is the edge: it believes no header
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
    expect(run).toMatch(/CMD \["node", "dist\/bundle\/main\.js"\]/);
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

  it.each([
    [{}, []],
    [{ TRUST_PROXY: 'false' }, []],
    [{ TRUST_PROXY: 'true' }, ['loopback', 'private']],
    [{ TRUSTED_PROXIES: '172.28.0.10, 2001:db8::/32 loopback' }, ['172.28.0.10', '2001:db8::/32', 'loopback']],
  ])('reads the trusted proxies from %j', (env, expected) => {
    expect(loadConfig(env).trustedProxies).toEqual(expected);
  });

  it('names every entry of TRUSTED_PROXIES that is not one, and refuses it beside TRUST_PROXY', () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env);
      } catch (e) {
        return (e as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ TRUSTED_PROXIES: 'nginx, 10.0.0.0/33, 10.0.0.1' })).toEqual([
      expect.stringMatching(/^TRUSTED_PROXIES: "nginx" is not an IP address/),
      expect.stringMatching(/^TRUSTED_PROXIES: "10.0.0.0\/33": the prefix length must be 0 to 32/),
    ]);
    expect(problems({ TRUSTED_PROXIES: '10.0.0.1', TRUST_PROXY: 'true' })).toEqual([
      expect.stringMatching(/set TRUSTED_PROXIES or TRUST_PROXY, not both/),
    ]);
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
