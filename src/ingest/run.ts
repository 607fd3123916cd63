// Applies a sequence of snapshots in order (a directory, or the generated sample market) and sums up.
import type { PrismaClient } from '../db/client.js';
import {
  checkSnapshot,
  IngestError,
  Ingester,
  type ApplyOptions,
  type CheckedSnapshot,
  type IngestResult,
} from './apply.js';
import { EVENT_KINDS, type EventKind } from './diff.js';
import { createProgress } from './progress.js';

export interface SnapshotSource {
  name: string;
  /** Returns the parsed JSON; a syntax error is reported as a problem of that snapshot. */
  load(): Promise<unknown> | unknown;
}

export interface RunSummary {
  snapshots: number;
  applied: number;
  unchanged: number;
  skipped: number;
  plansAdded: number;
  events: Record<EventKind, number>;
  seconds: number;
  dataVersion: number;
}

export class SnapshotFailed extends Error {
  constructor(
    readonly snapshot: string,
    override readonly cause: unknown,
    readonly completed: RunSummary,
  ) {
    super(`${snapshot}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** A snapshot of the run, read and checked ahead of its turn. */
interface Ahead {
  name: string;
  checked: Promise<CheckedSnapshot>;
}

/** Snapshots applied between two tidy-ups of the tables (see tidy). */
const TIDY_EVERY = 25;

/**
 * Every snapshot rewrites each offer's freshness, leaving a dead row version per offer behind. PostgreSQL's
 * autovacuum clears them in the background, but the embedded database has no background workers: without
 * this, the offer table grows by its own size with each snapshot and, never analysed, gets slow plans
 * (a 400-day sample: offer table 10x its live size, history queries 2x slower). Best effort: a database
 * user not allowed to vacuum still ingests.
 *
 * The history tables (appended to, a plan's end written once) are vacuumed alike but analysed only with
 * `history`: sampling them is most of the cost, and their statistics need renewing only when they have
 * grown by a good part (autovacuum's rule too), which ingestAll asks for whenever they may have doubled.
 */
export async function tidy(prisma: PrismaClient, history = true): Promise<void> {
  const run = (sql: string) => prisma.$executeRawUnsafe(sql).catch(() => {});
  await run('VACUUM (ANALYZE) "Offer", "Source", "Institution", "Brand", "DataVersion"');
  await run(`VACUUM ${history ? '(ANALYZE) ' : ''}"RatePlan", "ChangeEvent", "IngestRun"`);
}

export async function ingestAll(
  prisma: PrismaClient,
  snapshots: Iterable<SnapshotSource>,
  options: { progress?: boolean; total?: number } & Pick<ApplyOptions, 'now' | 'maxFutureSkewMs' | 'capacity'> = {},
): Promise<RunSummary> {
  const started = process.hrtime.bigint();
  const summary: RunSummary = {
    snapshots: 0,
    applied: 0,
    unchanged: 0,
    skipped: 0,
    plansAdded: 0,
    events: Object.fromEntries(EVENT_KINDS.map((k) => [k, 0])) as Record<EventKind, number>,
    seconds: 0,
    dataVersion: 0,
  };
  const total = options.total ?? (Array.isArray(snapshots) ? snapshots.length : 0);
  const progress = options.progress && total > 1 ? createProgress(total) : undefined;
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const ingester = new Ingester(prisma);
  const sources = snapshots[Symbol.iterator]();
  // Snapshot n+1 is loaded and checked while the database writes snapshot n (see whileWriting): the two
  // run side by side, the database in its own thread or server. Its problems are reported in its turn.
  const readAhead = (): Ahead | null => {
    const step = sources.next();
    if (step.done) return null;
    const source = step.value;
    const checked = (async () => {
      let json: unknown;
      try {
        json = await source.load();
      } catch (err) {
        throw new IngestError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
      }
      return checkSnapshot(json, options);
    })();
    checked.catch(() => {}); // not unhandled meanwhile: awaited in its turn
    return { name: source.name, checked };
  };
  let written = 0;
  let analysed = 0;
  for (let current = readAhead(); current;) {
    let next: { ahead: Ahead | null } | undefined;
    let result: IngestResult;
    try {
      result = await ingester.applyChecked(await current.checked, {
        file: current.name,
        now: options.now,
        capacity: options.capacity,
        whileWriting: () => (next = { ahead: readAhead() }),
      });
    } catch (err) {
      progress?.done();
      throw new SnapshotFailed(current.name, err, { ...summary, seconds: elapsed() });
    }
    current = (next ?? { ahead: readAhead() }).ahead;
    summary.snapshots += 1;
    summary[result.status] += 1;
    summary.plansAdded += result.plansAdded;
    summary.dataVersion = result.dataVersion;
    for (const kind of EVENT_KINDS) summary.events[kind] += result.events[kind];
    if (result.status !== 'skipped' && ++written % TIDY_EVERY === 0) {
      // 25, 50, 100, 200…: the history has grown by about as much as it had.
      const doubled = Number.isInteger(Math.log2(written / TIDY_EVERY));
      await tidy(prisma, doubled);
      if (doubled) analysed = written;
    }
    progress?.tick();
  }
  progress?.done();
  if (written > analysed) await tidy(prisma); // what the next reader plans with is up to date
  summary.seconds = elapsed();
  return summary;
}

export function formatSummary(s: RunSummary): string {
  const events = EVENT_KINDS.filter((k) => s.events[k] > 0).map((k) => `${k} ${s.events[k]}`);
  return [
    `snapshots: ${s.snapshots} (${s.applied} applied, ${s.unchanged} unchanged, ${s.skipped} already applied)`,
    `plans added: ${s.plansAdded}`,
    `events: ${events.length ? events.join(', ') : 'none'}`,
    `data version: ${s.dataVersion}`,
    `time: ${s.seconds.toFixed(1)} s`,
  ].join('\n');
}
