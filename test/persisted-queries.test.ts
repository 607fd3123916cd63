// Automatic persisted queries across processes, driven the way an APQ client drives them (plain fetch,
// each request on a connection of its own so that node:cluster spreads them over the workers): a
// document registered on one worker is known to every worker, to another instance on the same database
// (a replica behind a load balancer), and after a restart; a hash-only URL revalidates with 304.
import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliProcess } from './support/cli-process.js';
import { freePort } from './support/port.js';

let dataDir: string;
const running = new Set<CliProcess>();

interface Service {
  base: string;
  process: CliProcess;
}

async function start(workers: number): Promise<Service> {
  const port = await freePort();
  const child = runCli('src/main.ts', [], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    SAMPLE_DAYS: '3',
    LOG_LEVEL: 'info',
    WORKERS: String(workers),
    SHUTDOWN_GRACE_MS: '3000',
  });
  running.add(child);
  await child.waitFor(new RegExp(`"msg":"listening on http://127.0.0.1:${port}"`), 'stdout');
  return { base: `http://127.0.0.1:${port}`, process: child };
}

async function stop(service: Service): Promise<void> {
  service.process.kill('SIGTERM');
  expect(await service.process.exited).toBe(0);
  running.delete(service.process);
}

const QUERY = '{ meta { dataVersion offers { active } } }';
const HASH = createHash('sha256').update(QUERY).digest('hex');
const EXTENSIONS = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: HASH } }));
const HASH_ONLY = `/graphql?extensions=${EXTENSIONS}`;

interface Answer {
  status: number;
  etag: string | null;
  requestId: string;
  body: { data?: unknown; errors?: { message: string }[] };
}

/** A GET on a new connection: node:cluster hands each new connection to the next worker. */
async function get(base: string, pathAndQuery: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(base + pathAndQuery, {
    headers: { accept: 'application/graphql-response+json', connection: 'close', ...headers },
  });
  const text = await res.text();
  return {
    status: res.status,
    etag: res.headers.get('etag'),
    requestId: res.headers.get('x-request-id')!,
    body: text ? (JSON.parse(text) as Answer['body']) : {},
  };
}

/** What an APQ client does: the hash alone, and the whole document once if the server does not know it. */
async function apqQuery(base: string): Promise<{ registered: boolean; answer: Answer }> {
  const byHash = await get(base, HASH_ONLY);
  if (byHash.body.errors?.[0]?.message !== 'PersistedQueryNotFound') return { registered: false, answer: byHash };
  const answer = await get(base, `/graphql?query=${encodeURIComponent(QUERY)}&extensions=${EXTENSIONS}`);
  return { registered: true, answer };
}

/** The workers that logged these request ids (their log lines are written at least every second). */
async function workersOf(service: Service, ids: string[]): Promise<Set<string>> {
  const deadline = Date.now() + 3_000;
  const lineOf = (id: string) =>
    service.process
      .stdout()
      .split('\n')
      .find((l) => l.includes(`"requestId":"${id}"`));
  while (!ids.every(lineOf) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return new Set(ids.map((id) => /"worker":(\d+)/.exec(lineOf(id) ?? '')?.[1] ?? 'none'));
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'apq-'));
});

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

describe('persisted queries with two workers, a replica and a restart', () => {
  let cluster: Service;

  beforeAll(async () => {
    cluster = await start(2);
  }, 120_000);

  it('knows a document registered on one worker on every worker: hash-only GETs all 200', async () => {
    const first = await apqQuery(cluster.base);
    expect(first.registered).toBe(true);
    expect(first.answer.status).toBe(200);
    const answers: Answer[] = [];
    for (let i = 0; i < 12; i++) answers.push(await get(cluster.base, HASH_ONLY));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body.data))).size).toBe(1);
    expect(new Set(answers.map((a) => a.etag)).size).toBe(1);
    // both workers answered, so each of them knew the document
    expect(
      await workersOf(
        cluster,
        answers.map((a) => a.requestId),
      ),
    ).toEqual(new Set(['1', '2']));
  });

  it('answers If-None-Match on a hash-only URL with 304 from every worker', async () => {
    const { etag } = await get(cluster.base, HASH_ONLY);
    expect(etag).toMatch(/^W\/"/);
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await get(cluster.base, HASH_ONLY, { 'if-none-match': etag! }));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 304));
    expect(
      await workersOf(
        cluster,
        answers.map((a) => a.requestId),
      ),
    ).toEqual(new Set(['1', '2']));
  });

  it('knows it on another instance on the same database (a replica behind a load balancer)', async () => {
    const replica = await start(1);
    try {
      const answer = await get(replica.base, HASH_ONLY);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual((await get(cluster.base, HASH_ONLY)).body.data);
      // and what the replica registers, the cluster knows
      const other = '{ meta { dataVersion stale } }';
      const otherHash = createHash('sha256').update(other).digest('hex');
      const ext = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: otherHash } }));
      expect((await get(replica.base, `/graphql?query=${encodeURIComponent(other)}&extensions=${ext}`)).status).toBe(
        200,
      );
      for (let i = 0; i < 4; i++) expect((await get(cluster.base, `/graphql?extensions=${ext}`)).status).toBe(200);
    } finally {
      await stop(replica);
    }
  }, 120_000);

  it('still knows it after a restart, before anything is registered again', async () => {
    await stop(cluster);
    cluster = await start(2);
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i++) answers.push(await get(cluster.base, HASH_ONLY));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(
      await workersOf(
        cluster,
        answers.map((a) => a.requestId),
      ),
    ).toEqual(new Set(['1', '2']));
    await stop(cluster);
  }, 120_000);
});
