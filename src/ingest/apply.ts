// Applies snapshots, each validated in full first: in one transaction, lock, diff each against the state
// the one before left (batch.ts), write, bump the data version — or write nothing at all.
import { createHash } from 'node:crypto';
import { INGEST_QUERY_TIMEOUT_MS, type PrismaClient } from '../db/client.js';
import type { CurrentState } from './diff.js';
import type { Capacity } from './capacity.js';
import { iso } from './rows.js';
import { DATA_VERSION_CHANNEL } from './sql.js';
import { applyBatch, type BatchItem, type CheckedSnapshot, type IngestResult } from './batch.js';
import type { Snapshot } from './snapshot.js';
import { startLedger } from './ledger.js';
import { loadState } from './state.js';
import { aheadOfClock, DEFAULT_MAX_FUTURE_SKEW_MINUTES, validateSnapshot, type SnapshotProblem } from './validate.js';

export { DATA_VERSION_CHANNEL, type CheckedSnapshot, type IngestResult };

/** Serialises ingests across processes (and across service replicas on PostgreSQL). */
export const INGEST_LOCK = 7_270_701;

export class IngestError extends Error {
  constructor(readonly problems: SnapshotProblem[]) {
    super(
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the snapshot:\n` +
        `${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`,
    );
  }
}

export function snapshotHash(snapshot: Snapshot): string {
  return createHash('sha256').update(JSON.stringify(snapshot)).digest('hex');
}

export interface ApplyOptions {
  file?: string;
  /** The wall clock, passed in: recorded as the run's appliedAt, and no snapshot may be dated far ahead of it. */
  now?: () => Date;
  /** How far the snapshot's observedAt may be ahead of `now` (default DEFAULT_MAX_FUTURE_SKEW_MINUTES). */
  maxFutureSkewMs?: number;
  /** What the service can hold: a snapshot growing the catalogue past it is refused (TooLarge), unwritten. */
  capacity?: Capacity;
}

/** The checks needing no database (shape, references within it, date); throws IngestError listing every problem. */
export function checkSnapshot(
  input: unknown,
  options: Pick<ApplyOptions, 'now' | 'maxFutureSkewMs'> = {},
): CheckedSnapshot {
  const validation = validateSnapshot(input);
  if (!validation.ok) throw new IngestError(validation.problems);
  const { snapshot, openReferences } = validation;
  const observedAt = iso(snapshot.observedAt);
  const now = options.now ?? (() => new Date());
  const early = aheadOfClock(observedAt, now(), options.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MINUTES * 60_000);
  if (early.length > 0) throw new IngestError(early);
  return { snapshot, openReferences, observedAt, sha256: snapshotHash(snapshot) };
}

/**
 * Applies snapshots one after the other. Between snapshots it keeps the state the diff needs in memory
 * (reading it costs more than the diff itself); the state is trusted only while the database is still
 * at the data version this ingester wrote, so an ingest by another process makes it read afresh.
 */
export class Ingester {
  private cache: { version: number; state: CurrentState } | null = null;

  constructor(private readonly prisma: PrismaClient) {}

  /** Validates and applies one snapshot (a raw JSON value). Throws IngestError listing every problem. */
  async apply(input: unknown, options: ApplyOptions = {}): Promise<IngestResult> {
    return this.applyChecked(checkSnapshot(input, options), options);
  }

  /** Applies a snapshot checked by checkSnapshot (a batch of one). Throws IngestError listing every problem. */
  async applyChecked(checked: CheckedSnapshot, options: ApplyOptions = {}): Promise<IngestResult> {
    const { results, failure } = await this.applyMany([{ checked, file: options.file ?? null }], options);
    if (failure) throw failure.error;
    return results[0]!;
  }

  /**
   * Applies snapshots in order in one transaction (see batch.ts): those before the first that cannot be
   * applied are written, and that one's problems are thrown as `failure` says, with the results of those
   * written. Nothing of a batch is written unless all that it says was written is.
   */
  async applyMany(
    items: readonly BatchItem[],
    options: Pick<ApplyOptions, 'now' | 'capacity'> = {},
  ): Promise<{ results: IngestResult[]; failure: { index: number; error: unknown } | null }> {
    const now = options.now ?? (() => new Date());
    try {
      const outcome = await this.prisma.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${INGEST_LOCK})`);
          // After the lock, in a statement of its own: read committed sees what the ingest before us wrote.
          const [position] = await tx.$queryRawUnsafe<{ version: number | null; last: Date | null }[]>(
            `SELECT (SELECT "version" FROM "DataVersion" WHERE "id" = 1) AS "version", ` +
              `(SELECT max("observedAt") FROM "IngestRun") AS "last"`,
          );
          const version = position?.version ?? 0;
          if (this.cache?.version !== version) await startLedger(tx);
          const state = this.cache?.version === version ? this.cache.state : await loadState(tx);
          return applyBatch(tx, { version, state, last: position?.last ?? null }, items, {
            now,
            capacity: options.capacity,
          });
        },
        { timeout: INGEST_QUERY_TIMEOUT_MS, maxWait: INGEST_QUERY_TIMEOUT_MS },
      );
      this.cache = { version: outcome.version, state: outcome.state };
      const failure = outcome.failure && {
        index: outcome.failure.index,
        error: 'problems' in outcome.failure ? new IngestError(outcome.failure.problems) : outcome.failure.error,
      };
      return { results: outcome.results, failure };
    } catch (err) {
      this.cache = null;
      throw err;
    }
  }
}

/** Applies one snapshot (see Ingester). */
export function applySnapshot(prisma: PrismaClient, input: unknown, options: ApplyOptions = {}): Promise<IngestResult> {
  return new Ingester(prisma).apply(input, options);
}
