// Ingests take turns (issue 19): one started while another writes waits for it, saying for whom, up to
// INGEST_WAIT_SECONDS, then exits 3. Child processes against one database, as an operator's cron jobs
// would run them: the embedded database of a running process (the test plays the service), or
// PostgreSQL with TEST_DATABASE_URL.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPrisma, type PrismaClient } from '../src/db/client.js';
import { openEmbedded } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { takeTurn, type TurnTarget } from '../src/db/write-turn.js';
import { EXIT } from '../src/ingest/cli.js';
import { runCli, type CliProcess } from './support/cli-process.js';
import { createTestDatabase, usingPostgres } from './support/database.js';
import { baseSnapshot } from './support/snapshots.js';

interface Service {
  prisma: PrismaClient;
  target: TurnTarget;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** A database as a running service has it: PostgreSQL, or an embedded data folder open in this process. */
async function service(options: { migrated: boolean }): Promise<Service> {
  if (usingPostgres) {
    const db = await createTestDatabase(options);
    return {
      prisma: db.prisma,
      target: { databaseUrl: db.url, dataDir: '/nonexistent' },
      env: { DATABASE_URL: db.url },
      close: db.close,
    };
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ingest-queue-'));
  const embedded = await openEmbedded(dataDir);
  if (options.migrated) await applyMigrations(embedded.url);
  const prisma = createPrisma(embedded.url, 2);
  return {
    prisma,
    target: { databaseUrl: undefined, dataDir },
    env: { DATA_DIR: dataDir },
    async close() {
      await prisma.$disconnect();
      await embedded.close();
    },
  };
}

let files: string;
const day = (n: number) => `2026-11-0${n}T06:00:00.000Z`;
beforeAll(async () => {
  files = await mkdtemp(path.join(os.tmpdir(), 'ingest-queue-snapshots-'));
  for (const n of [1, 2, 3, 4]) {
    const snapshot = baseSnapshot(day(n));
    snapshot.offers[0]!.plan.headlineRate = `2.${n}0`;
    await writeFile(path.join(files, `day${n}.json`), JSON.stringify(snapshot));
  }
});

const ingest = (svc: Service, n: number, env: NodeJS.ProcessEnv = {}) =>
  runCli('src/ingest/cli.ts', [path.join(files, `day${n}.json`)], { ...svc.env, ...env });
const waitingFor = (pid: number) => new RegExp(`waiting for the ingest that is running \\(pid ${pid}\\)`);
/** The next writer goes straight in: nobody holds the turn, nobody is ahead. */
async function expectQueueEmpty(svc: Service) {
  // On PostgreSQL a killed writer's advisory locks go when the server notices its connection is gone,
  // which on a loaded machine can take a moment: the queue must be empty within a couple of seconds,
  // without anyone having to release anything.
  let waited: unknown[] = [];
  for (const deadline = Date.now() + 3_000; ;) {
    waited = [];
    const turn = await takeTurn(svc.target, {
      activity: 'ingest',
      waitMs: 5_000,
      onWait: (holder) => waited.push(holder),
    });
    await turn.release();
    if (waited.length === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(waited).toEqual([]);
}
const appliedDays = async (prisma: PrismaClient) =>
  (await prisma.ingestRun.findMany({ orderBy: { id: 'asc' } })).map((r) => r.observedAt.toISOString());

describe('ingests started while another one runs', () => {
  let svc: Service;
  beforeAll(async () => {
    svc = await service({ migrated: true });
  });
  afterAll(async () => {
    await svc?.close();
  });
  beforeEach(async () => {
    await svc.prisma.$executeRawUnsafe(
      'TRUNCATE "ChangeEvent", "RatePlan", "Offer", "Brand", "Institution", "Source", "IngestRun", ' +
        '"DataVersion", "LedgerEntry", "StateBlock" RESTART IDENTITY CASCADE',
    );
  });

  it('wait their turn, naming the ingest they wait for, and apply in the order they came', async () => {
    // The test holds the turn, as a long ingest would; three ingests start one after the other meanwhile.
    const running = await takeTurn(svc.target, { activity: 'ingest', waitMs: 1_000 });
    const queued: CliProcess[] = [];
    try {
      for (const n of [1, 2, 3]) {
        const child = ingest(svc, n);
        queued.push(child);
        await child.waitFor(waitingFor(process.pid));
      }
      expect(await appliedDays(svc.prisma)).toEqual([]);
    } finally {
      await running.release();
    }
    const [a, b, c] = queued as [CliProcess, CliProcess, CliProcess];
    expect(await Promise.all(queued.map((q) => q.exited))).toEqual([EXIT.done, EXIT.done, EXIT.done]);
    expect(await appliedDays(svc.prisma)).toEqual([day(1), day(2), day(3)]);
    // Each named the writers it waited for as their turns came: b waited for a, c for a and then b.
    expect(b.stderr()).toMatch(waitingFor(a.pid));
    expect(c.stderr()).toMatch(waitingFor(a.pid));
    expect(c.stderr()).toMatch(waitingFor(b.pid));
    expect(c.stderr()).toMatch(/1 more ahead in the queue/);
    for (const q of queued) {
      expect(q.stdout()).toMatch(/snapshots: 1 \(1 applied/);
      expect(q.stderr()).not.toMatch(/Warning|already executing a query/);
    }
  }, 90_000);

  it(
    `gives up after INGEST_WAIT_SECONDS with exit code ${EXIT.waitedTooLong}, writing nothing, and leaves the ` +
      `queue`,
    async () => {
      const running = await takeTurn(svc.target, { activity: 'ingest', waitMs: 1_000 });
      try {
        const impatient = ingest(svc, 1, { INGEST_WAIT_SECONDS: '1' });
        expect(await impatient.exited).toBe(EXIT.waitedTooLong);
        expect(impatient.stderr()).toContain(
          `gave up after 1 s waiting for the ingest that is running (pid ${process.pid}) (INGEST_WAIT_SECONDS); ` +
            `nothing was written.`,
        );
      } finally {
        await running.release();
      }
      expect(await appliedDays(svc.prisma)).toEqual([]);
      await expectQueueEmpty(svc);
    },
    60_000,
  );

  it('does not wait for writers killed with their turn or in the queue', async () => {
    const holder = runCli('test/support/turn-holder.ts', [], svc.env);
    await holder.waitFor(/holding/);
    const queued = runCli('test/support/turn-holder.ts', [], svc.env);
    await queued.waitFor(waitingFor(holder.pid));
    holder.kill('SIGKILL');
    queued.kill('SIGKILL');
    await Promise.all([holder.exited, queued.exited]);
    await expectQueueEmpty(svc);
  }, 60_000);
});

describe('ingests that reach a new database at once', () => {
  it(
    'migrate it once: the others wait, then apply (two ' + 'migrations at once left it marked failed for good)',
    async () => {
      const svc = await service({ migrated: false });
      try {
        // The same day twice, different rates: whichever order they run in, each one applies.
        const same = baseSnapshot(day(1));
        const children = await Promise.all(
          ['2.11', '2.22'].map(async (rate) => {
            same.offers[0]!.plan.headlineRate = rate;
            const file = path.join(files, `same-${rate}.json`);
            await writeFile(file, JSON.stringify(same));
            return runCli('src/ingest/cli.ts', [file], svc.env);
          }),
        );
        const codes = await Promise.all(children.map((c) => c.exited));
        expect(codes, children.map((c) => c.stderr()).join('\n')).toEqual([EXIT.done, EXIT.done]);
        expect(children.filter((c) => c.stderr().includes('applied migrations'))).toHaveLength(1);
        expect(await svc.prisma.ingestRun.count()).toBe(2);
      } finally {
        await svc.close();
      }
    },
    90_000,
  );
});
