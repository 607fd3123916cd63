// Writers of the database (ingests, the first-start sample seeding, migrations) take turns: one at a
// time, in the order they came, each waiting up to a bound with a line that names the writer it waits
// for. The wait holds no transaction and no connection of the service's pool.
//
// Why not the ingest transaction's advisory lock alone: on the embedded database every connection
// shares PGlite's one session, so an advisory lock excludes nobody there, and a transaction holds that
// session until it ends; a second ingest's connection then waits behind it and gives up after pg's
// connection timeout ("Connection terminated due to connection timeout", issue 19). So the embedded
// database's writers queue in files beside it, before they connect at all; on PostgreSQL they queue in
// advisory locks on a connection of their own, which the server frees when a writer dies.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from './embedded.js';

/** The writer that has the turn, as far as it can be known. */
export interface Writer {
  activity: string;
  pid: number | null;
  /** Only when it runs on another machine. */
  host: string | null;
}

export interface TurnOptions {
  /** What this writer does, shown to those who wait for it: "ingest", "migration"… */
  activity: string;
  /** How long to wait for the turn before giving up with TurnTimeout. */
  waitMs: number;
  /** Called when this writer starts to wait, and again whenever another writer has the turn or the queue moves. */
  onWait?: (holder: Writer | null, ahead: number) => void;
  pollMs?: number;
}

export interface Turn {
  release(): Promise<void>;
}

export interface TurnTarget {
  databaseUrl: string | undefined;
  dataDir: string;
}

export const describeWriter = (w: Writer | null): string =>
  w
    ? `the ${w.activity} that is running (pid ${w.pid ?? 'unknown'}${w.host ? ` on ${w.host}` : ''})`
    : 'the writers ahead of it';

export class TurnTimeout extends Error {
  constructor(
    readonly holder: Writer | null,
    readonly waitedMs: number,
  ) {
    super(`gave up after ${Math.round(waitedMs / 1000)} s waiting for ${describeWriter(holder)} (INGEST_WAIT_SECONDS)`);
  }
}

/** The line a waiting writer shows. */
export function waitingLine(holder: Writer | null, ahead: number, waitMs: number): string {
  const queued = ahead > 0 ? `, ${ahead} more ahead in the queue` : '';
  return (
    `waiting for ${describeWriter(holder)}${queued}; giving up after ${Math.round(waitMs / 1000)} s ` +
    `(INGEST_WAIT_SECONDS)`
  );
}

/** A configured process's turn: its bound (INGEST_WAIT_SECONDS), and its waiting lines told by `say`. */
export function configuredTurn(
  config: { ingestWaitMs: number },
  activity: string,
  say: (line: string) => void,
): TurnOptions {
  return {
    activity,
    waitMs: config.ingestWaitMs,
    onWait: (holder, ahead) => say(waitingLine(holder, ahead, config.ingestWaitMs)),
  };
}

/** Where writers queue: the mechanics differ by database, the order (takeTurn) does not. */
interface Queue {
  /** The tickets of the writers waiting, ascending; a ticket whose writer is gone is not among them. */
  tickets(): Promise<number[]>;
  /** Claims a ticket number; false when another writer has it. */
  claim(ticket: number): Promise<boolean>;
  drop(ticket: number): Promise<void>;
  /** Takes the turn if it is free. */
  tryTake(): Promise<boolean>;
  holder(): Promise<Writer | null>;
  /** Gives the turn back and lets go of the queue. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hostname = os.hostname();

// --- The embedded database: files in its data folder ---------------------------------------------

/** A file being written right now is empty for a moment; one still empty after this was left by a crash. */
const HALF_WRITTEN_MS = 10_000;

function fileQueue(dataDir: string, activity: string): Queue {
  const dir = path.join(dataDir, 'write-queue');
  const turnFile = path.join(dataDir, 'write-turn.json');
  // Ours, so that a writer never removes the turn file of another (within one process, pids are equal).
  const token = randomBytes(8).toString('hex');
  const content = JSON.stringify({ activity, pid: process.pid, host: null, token });
  let holding = false;

  /**
   * The writer recorded in a file; null when there is none or it is gone (its process ended, or it crashed half-way).
   */
  async function live(file: string): Promise<Writer | null> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const writer = JSON.parse(text) as Writer;
      return typeof writer.pid === 'number' && processAlive(writer.pid) ? writer : null;
    } catch {
      const age = await stat(file).then(
        (s) => Date.now() - s.mtimeMs,
        () => Infinity,
      );
      return age < HALF_WRITTEN_MS ? { activity: 'writer', pid: null, host: null } : null;
    }
  }

  const create = (file: string) =>
    writeFile(file, content, { flag: 'wx' }).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      },
    );

  return {
    async tickets() {
      await mkdir(dir, { recursive: true });
      const tickets: number[] = [];
      for (const name of await readdir(dir)) {
        const ticket = Number(/^(\d+)\.json$/.exec(name)?.[1] ?? NaN);
        if (!Number.isSafeInteger(ticket)) continue;
        if (await live(path.join(dir, name))) tickets.push(ticket);
        else await rm(path.join(dir, name), { force: true });
      }
      return tickets.sort((a, b) => a - b);
    },
    claim: (ticket) => create(path.join(dir, `${ticket}.json`)),
    drop: (ticket) => rm(path.join(dir, `${ticket}.json`), { force: true }),
    async tryTake() {
      if (await create(turnFile)) return (holding = true);
      if ((await live(turnFile)) !== null) return false;
      // Its writer is gone. Only the head of the queue gets here, so no other writer is replacing the
      // file at the same moment; were one to, the database would still run their transactions one by one.
      await rm(turnFile, { force: true });
      return (holding = await create(turnFile));
    },
    async holder() {
      const writer = await live(turnFile);
      return writer && { activity: writer.activity, pid: writer.pid, host: null };
    },
    async close() {
      if (!holding) return;
      holding = false;
      const current = await readFile(turnFile, 'utf8').catch(() => '');
      if (current.includes(token)) await rm(turnFile, { force: true });
    },
  };
}

// --- PostgreSQL: advisory locks on a connection of the writer's own ------------------------------

/** Advisory lock keys (the two-integer form, apart from the ingest transaction's one-bigint lock). */
const TURN_KEY = 7_270_701;
const QUEUE_KEY = 7_270_702;

/** Shown in pg_stat_activity, so that a waiting writer can name the one it waits for (63 bytes at most). */
const applicationName = (activity: string) => `savings-api ${activity} pid ${process.pid}@${hostname}`.slice(0, 63);

function parseApplicationName(name: string, backendPid: number): Writer {
  const m = /^savings-api (.+) pid (\d+)@(.*)$/.exec(name);
  if (!m)
    return { activity: `session of ${name || 'another client'}`, pid: null, host: `database backend ${backendPid}` };
  return { activity: m[1]!, pid: Number(m[2]), host: m[3] === hostname.slice(0, m[3]!.length) ? null : m[3]! };
}

async function pgQueue(url: string, activity: string): Promise<Queue> {
  // imported here: an embedded start takes its turn before it has loaded anything it does not need yet
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: url,
    application_name: applicationName(activity),
    connectionTimeoutMillis: 10_000,
  });
  client.on('error', () => {}); // a dropped connection ends the turn; the ingest's own transaction reports it
  await client.connect();
  const thisDatabase =
    `l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.database = (SELECT oid FROM pg_database ` +
    `WHERE datname = current_database())`;
  const flag = async (sql: string, ...values: number[]) =>
    (await client.query<{ ok: boolean }>(sql, values)).rows[0]?.ok === true;
  return {
    async tickets() {
      const { rows } = await client.query<{ ticket: string }>(
        `SELECT l.objid::bigint AS ticket FROM pg_locks l WHERE ${thisDatabase} AND l.classid = $1 ORDER BY 1`,
        [QUEUE_KEY],
      );
      return rows.map((r) => Number(r.ticket));
    },
    claim: (ticket) => flag('SELECT pg_try_advisory_lock($1, $2) AS ok', QUEUE_KEY, ticket),
    drop: (ticket) => flag('SELECT pg_advisory_unlock($1, $2) AS ok', QUEUE_KEY, ticket).then(() => {}),
    tryTake: () => flag('SELECT pg_try_advisory_lock($1, 0) AS ok', TURN_KEY),
    async holder() {
      const { rows } = await client.query<{ name: string; pid: number }>(
        `SELECT a.application_name AS name, a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid ` +
          `WHERE ${thisDatabase} AND l.classid = $1 AND l.objid = 0`,
        [TURN_KEY],
      );
      return rows[0] ? parseApplicationName(rows[0].name, rows[0].pid) : null;
    },
    async close() {
      await client.end().catch(() => {}); // the server frees the session's locks
    },
  };
}

// --- Taking turns ----------------------------------------------------------------------------------

/**
 * Waits until every writer that came earlier has finished, then takes the turn. A writer that dies
 * (even by kill -9) leaves the queue by itself: its process is gone, or its connection closed.
 */
export async function takeTurn(target: TurnTarget, options: TurnOptions): Promise<Turn> {
  const queue = target.databaseUrl
    ? await pgQueue(target.databaseUrl, options.activity)
    : fileQueue(target.dataDir, options.activity);
  const started = performance.now();
  const pollMs = options.pollMs ?? 200;
  let ticket: number | null = null;
  try {
    for (let n = Math.max(0, ...(await queue.tickets())) + 1; ticket === null; n++)
      if (await queue.claim(n)) ticket = n;
    let reported: string | null | undefined;
    for (;;) {
      const ahead = (await queue.tickets()).filter((t) => t < ticket!).length;
      if (ahead === 0 && (await queue.tryTake())) {
        await queue.drop(ticket);
        return { release: () => queue.close() };
      }
      const holder = await queue.holder();
      // Between two writers the turn is free for a moment: not worth a line of its own. A new line when the
      // queue ahead moves too: a writer that just took the turn still holds its ticket for a moment.
      const key = holder && JSON.stringify({ holder, ahead });
      if (reported === undefined || (key !== null && key !== reported)) {
        reported = key;
        options.onWait?.(holder, ahead);
      }
      const waited = performance.now() - started;
      if (waited >= options.waitMs) throw new TurnTimeout(holder, waited);
      await sleep(Math.min(pollMs, options.waitMs - waited));
    }
  } catch (err) {
    if (ticket !== null) await queue.drop(ticket).catch(() => {});
    await queue.close();
    throw err;
  }
}

/** Runs `fn` in a turn of its own. */
export async function withTurn<T>(target: TurnTarget, options: TurnOptions, fn: () => Promise<T>): Promise<T> {
  const turn = await takeTurn(target, options);
  try {
    return await fn();
  } finally {
    await turn.release();
  }
}

/** How long a stopping service waits for an ingest writing to the embedded database it serves. */
export const WRITERS_AT_SHUTDOWN_MS = 60_000;

/**
 * Before a service closes the embedded database it serves: an ingest connected to it would lose its
 * connection half-way through a snapshot. Takes the writers' turn, so that the one running (and those
 * queued before) finish first, for at most `waitMs`; the turn is kept until the database is closed, so
 * that no ingest starts in between. Null on PostgreSQL (a server outlives the service), or when the wait
 * ran out, which `say` reports (the ingest then fails and says so, and its snapshot is rolled back whole).
 */
export async function finishWriters(
  target: TurnTarget,
  waitMs: number,
  say: { warn(line: string): void; error(line: string): void },
): Promise<Turn | null> {
  if (target.databaseUrl) return null;
  try {
    return await takeTurn(target, {
      activity: 'service shutdown',
      waitMs,
      onWait: (holder) =>
        say.warn(
          `waiting up to ${Math.round(waitMs / 1000)} s for ${describeWriter(holder)} to finish before closing ` +
            `the embedded database`,
        ),
    });
  } catch (err) {
    say.error(
      err instanceof TurnTimeout
        ? `closing the embedded database while ${describeWriter(err.holder)} still writes: its snapshot is rolled ` +
            `back whole and must be ingested again`
        : `could not wait for the database's writers: ${(err as Error).message}`,
    );
    return null;
  }
}

/**
 * The writer that has the embedded database's turn now, if any: while an ingest writes, PGlite's one
 * session holds every other query until the ingest commits, which is a busy database, not a gone one.
 * Null on PostgreSQL, where reads do not wait for writers.
 */
export function currentWriter(target: TurnTarget): Promise<Writer | null> {
  return target.databaseUrl ? Promise.resolve(null) : fileQueue(target.dataDir, 'health').holder();
}
