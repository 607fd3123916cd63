// The change stream across real processes: the service as `npm start` runs it, the ingest as
// `npm run ingest` runs it. An ingest reaches the open streams of the service (the embedded database's
// version poll), SIGTERM with streams open still exits 0 well within the grace period, and, on a real
// PostgreSQL (TEST_DATABASE_URL), two service processes both deliver an ingest made next to one of them
// (LISTEN/NOTIFY: their poll is set to a minute, so only the notification can explain the delivery).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { upToNow } from './support/snapshots.js';
import { seedSample } from '../src/sample/seed.js';
import { createTestDatabase, usingPostgres, type TestDatabase } from './support/database.js';
import { readSse, type SseReader } from './support/sse.js';
import { freePort } from './support/port.js';

const GRACE_MS = 8_000;

interface Service {
  base: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function startService(env: NodeJS.ProcessEnv): Promise<Service> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 100_000;
  for (;;) {
    const status = await fetch(`${base}/api/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the service did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { base, child, output: () => output, exited };
}

/** `npm run ingest -- FILE` against the given database. */
async function ingestWithCli(snapshot: Snapshot, env: NodeJS.ProcessEnv): Promise<void> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'stream-ingest-')), 'snapshot.json');
  await writeFile(file, JSON.stringify(snapshot));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/ingest/cli.ts', file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code, output).toBe(0);
}

/** The sample's last day an hour later, with the first flexible offer's rate changed. */
function rateChange(days: number): { snapshot: Snapshot; offerId: string } {
  let last: Snapshot | undefined;
  for (const s of generateSnapshots({ seed: 42, days, ...upToNow(), scale: 1 })) last = s;
  const snapshot = structuredClone(last!);
  snapshot.observedAt = new Date().toISOString(); // later than the seeded last day, never ahead of the clock
  const offer = snapshot.offers.find((o) => o.type === 'flexible')!;
  const rate = (Number(offer.plan.headlineRate) + 0.41).toFixed(2);
  offer.plan = {
    ...offer.plan,
    headlineRate: rate,
    tierMode: 'whole',
    tiers: [{ from: '0.00', to: null, rate }],
    promotion: null,
  };
  return { snapshot, offerId: offer.id };
}

async function openStream(base: string): Promise<SseReader> {
  const res = await fetch(`${base}/api/changes/stream`);
  expect(res.status).toBe(200);
  const sse = readSse(res.body!);
  expect((await sse.next())!.retry).toBe(5000);
  return sse;
}

async function openSubscription(base: string): Promise<SseReader> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription { changes { id kind offerId } }' }),
  });
  expect(res.status).toBe(200);
  return readSse(res.body!);
}

const nextEvent = (sse: SseReader) =>
  sse.until((m) => m.data !== undefined && m.event !== 'complete', 20_000).then((ms) => ms.at(-1)!);

describe('one service on the embedded database', () => {
  const DAYS = 3;
  let service: Service;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'stream-lifecycle-'));
    // Two workers: the streams are spread over them, each worker's publisher woken by its own reload.
    service = await startService({
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SAMPLE_DAYS: String(DAYS),
      RELOAD_POLL_MS: '300',
      WORKERS: '2',
    });
  }, 120_000);
  afterAll(() => {
    if (service?.child.exitCode === null) service.child.kill('SIGKILL');
  });

  it(
    'delivers an ingest made with npm run ingest to its open streams, then on SIGTERM ends them and exits 0 well ' +
      'within the grace period',
    async () => {
      const streams = await Promise.all([openStream(service.base), openStream(service.base), openStream(service.base)]);
      const subscription = await openSubscription(service.base);

      const { snapshot, offerId } = rateChange(DAYS);
      await ingestWithCli(snapshot, { DATA_DIR: dataDir, DATABASE_URL: '' });
      for (const sse of streams) {
        const event = await nextEvent(sse);
        expect(event.event).toBe('rate_up');
        expect(JSON.parse(event.data!)).toMatchObject({ kind: 'rate_up', offerId });
      }
      const published = JSON.parse((await nextEvent(subscription)).data!) as {
        data: { changes: { kind: string; offerId: string } };
      };
      expect(published.data.changes).toMatchObject({ kind: 'RATE_UP', offerId });

      const stopping = Date.now();
      service.child.kill('SIGTERM');
      for (const sse of streams) {
        const rest = await sse.until((m) => m.comments.some((c) => /shutting down/.test(c)), GRACE_MS);
        expect(rest.every((m) => m.data === undefined)).toBe(true);
        expect(await sse.next(GRACE_MS)).toBeNull(); // the stream ended
      }
      expect((await subscription.until((m) => m.event === 'complete', GRACE_MS)).at(-1)!.event).toBe('complete');
      expect(await service.exited).toBe(0);
      const took = Date.now() - stopping;
      // Without ending the streams the server would wait for them the whole grace period, then cut them.
      expect(took).toBeLessThan(GRACE_MS / 2);
      expect(service.output()).not.toMatch(/requests still running at the end of the grace period/);
      expect(service.output()).toMatch(/"exitCode":0.*"msg":"stopped"/);
    },
    120_000,
  );
});

describe.runIf(usingPostgres)('two services on one PostgreSQL', () => {
  const DAYS = 3;
  let db: TestDatabase;
  let services: Service[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    await seedSample(db.prisma, { seed: 42, days: DAYS, ...upToNow(), scale: 1 });
    // A poll of a minute: within this test only NOTIFY can bring the ingest to them.
    const env = { DATABASE_URL: db.url, SEED_SAMPLE: 'false', RELOAD_POLL_MS: '60000' };
    // One a cluster of two workers, one a single process: every worker LISTENs for itself.
    services = await Promise.all([startService({ ...env, WORKERS: '2' }), startService({ ...env, WORKERS: '1' })]);
  }, 180_000);
  afterAll(async () => {
    for (const s of services) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await Promise.all(services.map((s) => s.exited));
    await db?.close();
  });

  it(
    'both deliver an ingest made next to one of them, with the same id, within seconds, and answer it with the ' +
      'same ETag',
    async () => {
      const [a, b] = services as [Service, Service];
      const etags = async () =>
        Promise.all(
          [a, b, a, b].map(async (s) =>
            (await fetch(`${s.base}/api/products?type=all&amount=12345`)).headers.get('etag'),
          ),
        );
      const streams = [await openStream(a.base), await openStream(b.base)];
      const subscriptions = [await openSubscription(a.base), await openSubscription(b.base)];
      const { snapshot, offerId } = rateChange(DAYS);
      const started = Date.now();
      await ingestWithCli(snapshot, { DATABASE_URL: db.url });
      const events = await Promise.all(streams.map(nextEvent));
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(events[0]!.id).toBe(events[1]!.id);
      for (const event of events) expect(JSON.parse(event.data!)).toMatchObject({ kind: 'rate_up', offerId });
      const published = await Promise.all(subscriptions.map(nextEvent));
      for (const p of published)
        expect((JSON.parse(p.data!) as { data: { changes: { id: string } } }).data.changes.id).toBe(events[0]!.id);
      // Identical answers carry identical ETags on every instance (and every worker of one): a proxy or
      // client cache in front of them sees one resource.
      const tags = await etags();
      expect(new Set(tags).size).toBe(1);
      for (const s of services) s.child.kill('SIGTERM');
      expect(await Promise.all(services.map((s) => s.exited))).toEqual([0, 0]);
    },
    120_000,
  );
});
