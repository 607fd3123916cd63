// Applies a sequence of snapshots in order (a directory, or the generated sample market) and sums up.
import type { PrismaClient } from '../db/client.js';
import { checkSnapshot, IngestError, Ingester, type ApplyOptions, type CheckedSnapshot } from './apply.js';
import type { BatchItem } from './batch.js';
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

/** Snapshots applied between two tidy-ups of the tables (see tidy). */
const TIDY_EVERY = 25;
/**
 * Snapshots applied in one transaction (see batch.ts): a daily history's writes come to a few statements
 * per batch instead of a dozen per day, and a failure loses none of the snapshots before it.
 */
const BATCH = 25;

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
  const load = async (source: SnapshotSource): Promise<CheckedSnapshot> => {
    let json: unknown;
    try {
      json = await source.load();
    } catch (err) {
      throw new IngestError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
    }
    return checkSnapshot(json, options);
  };
  let written = 0;
  let tidied = 0;
  let analysed = 0;
  const fail = (name: string, err: unknown) => {
    progress?.done();
    return new SnapshotFailed(name, err, { ...summary, seconds: elapsed() });
  };
  for (let done = false; !done;) {
    // A batch of snapshots checked in order; one that fails its checks ends it, after the batch is in.
    const batch: { name: string; item: BatchItem }[] = [];
    let unreadable: { name: string; err: unknown } | null = null;
    while (batch.length < BATCH) {
      const step = sources.next();
      if (step.done) {
        done = true;
        break;
      }
      try {
        batch.push({ name: step.value.name, item: { checked: await load(step.value), file: step.value.name } });
      } catch (err) {
        unreadable = { name: step.value.name, err };
        break;
      }
    }
    if (batch.length > 0) {
      let outcome;
      try {
        outcome = await ingester.applyMany(
          batch.map((b) => b.item),
          { now: options.now, capacity: options.capacity },
        );
      } catch (err) {
        throw fail(batch[0]!.name, err);
      }
      for (const result of outcome.results) {
        summary.snapshots += 1;
        summary[result.status] += 1;
        summary.plansAdded += result.plansAdded;
        summary.dataVersion = result.dataVersion;
        for (const kind of EVENT_KINDS) summary.events[kind] += result.events[kind];
        if (result.status !== 'skipped') written += 1;
        progress?.tick();
      }
      if (outcome.failure) throw fail(batch[outcome.failure.index]!.name, outcome.failure.error);
    }
    if (unreadable) throw fail(unreadable.name, unreadable.err);
    if (written - tidied >= TIDY_EVERY) {
      // 25, 50, 100, 200…: the history has grown by about as much as it had.
      const history = analysed === 0 || written >= 2 * analysed;
      await tidy(prisma, history);
      tidied = written;
      if (history) analysed = written;
    }
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
