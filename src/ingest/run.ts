// Applies a sequence of snapshots in order (a directory, or the generated sample market) and sums up.
import type { PrismaClient } from '../db/client.js';
import { IngestError, Ingester, type ApplyOptions, type IngestResult } from './apply.js';
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
 * Every snapshot rewrites each offer's freshness, leaving a dead row version per offer behind. PostgreSQL's
 * autovacuum clears them in the background, but the embedded database has no background workers: without
 * this, the offer table grows by its own size with each snapshot and, never analysed, gets slow plans
 * (a 400-day sample: offer table 10x its live size, history queries 2x slower). Best effort: a database
 * user not allowed to vacuum still ingests.
 */
export async function tidy(prisma: PrismaClient): Promise<void> {
  await prisma
    .$executeRawUnsafe(
      'VACUUM (ANALYZE) "Offer", "RatePlan", "ChangeEvent", "Source", "Institution", "Brand", "IngestRun", ' +
        '"DataVersion"',
    )
    .catch(() => {});
}

export async function ingestAll(
  prisma: PrismaClient,
  snapshots: Iterable<SnapshotSource>,
  options: { progress?: boolean; total?: number } & Pick<ApplyOptions, 'now' | 'maxFutureSkewMs'> = {},
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
  let written = 0;
  for (const source of snapshots) {
    let result: IngestResult;
    try {
      let json: unknown;
      try {
        json = await source.load();
      } catch (err) {
        throw new IngestError([{ path: '$', message: `not valid JSON: ${(err as Error).message}` }]);
      }
      result = await ingester.apply(json, {
        file: source.name,
        now: options.now,
        maxFutureSkewMs: options.maxFutureSkewMs,
      });
    } catch (err) {
      progress?.done();
      throw new SnapshotFailed(source.name, err, { ...summary, seconds: elapsed() });
    }
    summary.snapshots += 1;
    summary[result.status] += 1;
    summary.plansAdded += result.plansAdded;
    summary.dataVersion = result.dataVersion;
    for (const kind of EVENT_KINDS) summary.events[kind] += result.events[kind];
    if (result.status !== 'skipped' && ++written % TIDY_EVERY === 0) await tidy(prisma);
    progress?.tick();
  }
  progress?.done();
  if (written % TIDY_EVERY !== 0) await tidy(prisma);
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
