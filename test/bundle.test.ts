// The service as `npm start` runs it: the build's bundle (scripts/bundle.mjs), not the sources the other
// process tests run under tsx. A first start on a fresh folder (seeded, started again in place), then a
// restart on the same folder, where the database opens while the bundle loads and Prisma's query
// compiler loads while the database starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_COMPILER_MODULE, preloadQueryCompiler } from '../src/db/client.js';
// @ts-expect-error a plain ES module of the build's, without types
import { buildIfStale } from '../scripts/build-if-stale.mjs';
import { usingPostgres } from './support/database.js';
import { freePort } from './support/port.js';

const BUNDLE = 'dist/bundle/main.js';

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
});

/** Starts the bundle on `dataDir` and waits for a list with offers; resolves with its port and log. */
async function start(dataDir: string): Promise<{ base: string; output: () => string; stop: () => Promise<void> }> {
  const port = await freePort();
  let output = '';
  const proc = spawn(process.execPath, [BUNDLE], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SAMPLE_DAYS: '3',
      WORKERS: '1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  proc.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const total = await fetch(`${base}/api/products?pageSize=1`).then(
      async (r) => (r.ok ? ((await r.json()) as { total: number }).total : 0),
      () => 0,
    );
    if (total > 0) break;
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`the bundle did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    output: () => output,
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

// On the embedded database whatever the pass: the PostgreSQL pass would only run it again.
describe.skipIf(usingPostgres)('the bundled service', () => {
  beforeAll(() => buildIfStale(), 180_000);

  it('starts on a fresh folder and again on the same one, and answers every kind of route', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bundle-'));
    const first = await start(dataDir);
    expect(first.output()).toContain('loaded the sample market');
    await first.stop();

    const again = await start(dataDir);
    try {
      expect(again.output()).not.toContain('loaded the sample market');
      const get = (p: string, accept = '*/*') => fetch(`${again.base}${p}`, { headers: { accept } });
      // what the bundle reads from files beside it: the OpenAPI document and its page, the calculation
      // guide (docs/), the web page (dist/web/), GraphiQL's assets (node_modules)
      const openApi = await get('/api/openapi.json');
      expect(openApi.status).toBe(200);
      expect(((await openApi.json()) as { openapi: string }).openapi).toBe('3.1.0');
      expect((await get('/api/docs')).status).toBe(200);
      const guide = await get('/api/docs/calculation');
      expect(guide.status).toBe(200);
      expect(await guide.text()).toMatch(/<h1[^>]*>/);
      expect((await get('/')).status).toBe(200);
      expect((await get('/graphql', 'text/html')).status).toBe(200);
      // GraphQL and its REST projection give the same list
      const graphql = await fetch(`${again.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ products(amount: "25000", pageSize: 3) { total items { id } } }' }),
      });
      const data = ((await graphql.json()) as { data: { products: { total: number; items: { id: string }[] } } }).data;
      const rest = (await (await get('/api/products?amount=25000&pageSize=3')).json()) as {
        total: number;
        items: { id: string }[];
      };
      expect(rest.total).toBe(data.products.total);
      expect(rest.items.map((i) => i.id)).toEqual(data.products.items.map((i) => i.id));
      // a bad input is still a problem, not a crash
      const bad = await get('/api/products?amount=abc');
      expect(bad.status).toBe(400);
      expect(bad.headers.get('content-type')).toContain('application/problem+json');
    } finally {
      await again.stop();
    }
  }, 180_000);
});

describe("Prisma's query compiler", () => {
  it('is the module the generated client imports, and loads ahead of the first query', async () => {
    const generated = readFileSync('src/db/generated/internal/class.ts', 'utf8');
    expect(generated).toContain(`import("${QUERY_COMPILER_MODULE}")`);
    await preloadQueryCompiler();
    const loaded = (await import(QUERY_COMPILER_MODULE)) as { wasm: string };
    expect(loaded.wasm.length).toBeGreaterThan(1_000_000);
  });
});
