// Applies one snapshot in one transaction: validate everything, lock, diff against the current state,
// write, bump the data version — or write nothing at all.
import { createHash } from 'node:crypto';
import { INGEST_QUERY_TIMEOUT_MS, type Prisma, type PrismaClient } from '../db/client.js';
import {
  diffSnapshot,
  EVENT_KINDS,
  isEmpty,
  nextState,
  type ChangeSet,
  type CurrentState,
  type EventKind,
} from './diff.js';
import { checkCapacity, type Capacity } from './capacity.js';
import { iso } from './rows.js';
import { appendRows, DATA_VERSION_CHANNEL, upsertRows } from './sql.js';
import { applyBatch, type BatchItem, type CheckedSnapshot, type IngestResult } from './batch.js';
import type { Snapshot } from './snapshot.js';
import { appendEntry, startLedger } from './ledger.js';
import { loadState } from './state.js';
import {
  aheadOfClock,
  DEFAULT_MAX_FUTURE_SKEW_MINUTES,
  unresolvedReferences,
  validateSnapshot,
  type SnapshotProblem,
} from './validate.js';

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

const noEvents = (): Record<EventKind, number> =>
  Object.fromEntries(EVENT_KINDS.map((k) => [k, 0])) as Record<EventKind, number>;

export function snapshotHash(snapshot: Snapshot): string {
  return createHash('sha256').update(JSON.stringify(snapshot)).digest('hex');
}

type Tx = Prisma.TransactionClient;

/**
 * Writes a change set; returns the ids of the new plans by offer id. `meanwhile` runs while the database
 * works on the largest statement (every offer's freshness, rewritten by each daily snapshot).
 */
async function write(
  tx: Tx,
  changes: ChangeSet,
  observedAt: string,
  meanwhile: () => void,
): Promise<Map<string, number>> {
  await upsertRows(tx, 'Source', changes.sources);
  await upsertRows(tx, 'Institution', changes.institutions);
  await upsertRows(tx, 'Brand', changes.brands);
  await upsertRows(tx, 'Offer', changes.offers);
  if (changes.freshness.length > 0) {
    // then() sends it now (a Prisma query is lazy); the callback waits for the next turn of the event
    // loop, by which time the statement has reached the database, which then runs it alongside.
    const sent = tx
      .$executeRawUnsafe(
        `UPDATE "Offer" AS o SET "checkedAt" = x."checkedAt", "official" = x."official", "confirmed" = x."confirmed"
         FROM jsonb_to_recordset($1::jsonb) AS x("id" text, "checkedAt" timestamptz, "official" ` +
          `boolean, "confirmed" boolean) WHERE o."id" = x."id"`,
        JSON.stringify(changes.freshness),
      )
      .then((count) => count);
    setImmediate(meanwhile);
    await sent;
  } else meanwhile();
  if (changes.closePlans.length > 0) {
    // One statement for any number of plans (Prisma would split a long id list into concurrent queries).
    await tx.$executeRawUnsafe(
      `UPDATE "RatePlan" SET "validTo" = $1::timestamptz WHERE "validTo" IS NULL AND "id" IN (SELECT ` +
        `jsonb_array_elements_text($2::jsonb)::int)`,
      observedAt,
      JSON.stringify(changes.closePlans),
    );
  }
  const created = await appendRows<{ id: number; offerId: string }>(
    tx,
    'RatePlan',
    changes.newPlans.map((p) => ({
      offerId: p.offerId,
      validFrom: p.validFrom,
      observedAt: p.observedAt,
      headlineRate: p.headlineRate,
      rateType: p.rateType,
      tierMode: p.tierMode,
      tiers: p.tiers,
      promotion: p.promotion,
      sourceId: p.sourceId,
    })),
    '"id", "offerId"',
  );
  await appendRows(
    tx,
    'ChangeEvent',
    changes.events.map((e) => ({
      kind: e.kind,
      at: e.at,
      offerId: e.offerId,
      brandId: e.brandId,
      institutionId: e.institutionId,
      summary: e.summary,
      from: e.from,
      to: e.to,
    })),
  );
  return new Map(created.map((plan) => [plan.offerId, plan.id]));
}

/**
 * The run's record, and for a snapshot that changed data the new data version, announced on commit
 * (running services on PostgreSQL reload at once instead of at the next poll): one statement.
 */
async function record(
  tx: Tx,
  run: {
    sha256: string;
    observedAt: string;
    appliedAt: string;
    file: string | null;
    plansAdded: number;
    eventsAdded: number;
    newVersion: number | null;
  },
): Promise<void> {
  const insertRun =
    'INSERT INTO "IngestRun" ("sha256", "observedAt", "appliedAt", "file", "changed", "plansAdded", "eventsAdded") ' +
    'SELECT $1, $2::timestamptz, $3::timestamptz, $4::text, $5::boolean, $6::int, $7::int';
  const values = [run.sha256, run.observedAt, run.appliedAt, run.file, run.newVersion !== null];
  const counts = [run.plansAdded, run.eventsAdded];
  if (run.newVersion === null) {
    await tx.$executeRawUnsafe(insertRun, ...values, ...counts);
    return;
  }
  await tx.$executeRawUnsafe(
    `WITH "version" AS (INSERT INTO "DataVersion" ("id", "version", "changedAt") ` +
      `VALUES (1, $8::int, $2::timestamptz) ` +
      `ON CONFLICT ("id") DO UPDATE SET "version" = EXCLUDED."version", "changedAt" = EXCLUDED."changedAt" ` +
      `RETURNING "version") ${insertRun} FROM "version", pg_notify('${DATA_VERSION_CHANNEL}', $8::text)`,
    ...values,
    ...counts,
    run.newVersion,
  );
}

export interface ApplyOptions {
  file?: string;
  /** The wall clock, passed in: recorded as the run's appliedAt, and no snapshot may be dated far ahead of it. */
  now?: () => Date;
  /** How far the snapshot's observedAt may be ahead of `now` (default DEFAULT_MAX_FUTURE_SKEW_MINUTES). */
  maxFutureSkewMs?: number;
  /**
   * Called at most once, while the database writes the snapshot (not when nothing changed): a run of
   * snapshots checks the next one then, instead of leaving the database idle while it does.
   */
  whileWriting?: () => void;
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

  /** Applies a snapshot checked by checkSnapshot. Throws IngestError listing every problem. */
  async applyChecked(
    { snapshot, openReferences, observedAt, sha256 }: CheckedSnapshot,
    options: ApplyOptions = {},
  ): Promise<IngestResult> {
    const now = options.now ?? (() => new Date());
    let meanwhile = options.whileWriting;
    const whileWriting = () => {
      const call = meanwhile;
      meanwhile = undefined;
      call?.();
    };
    let committed: { version: number; state: CurrentState } | null = null;

    try {
      const result = await this.prisma.$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${INGEST_LOCK})`);
          // After the lock, in a statement of its own: read committed sees what the ingest before us wrote.
          const [position] = await tx.$queryRawUnsafe<{ version: number | null; seen: boolean; last: Date | null }[]>(
            `SELECT (SELECT "version" FROM "DataVersion" WHERE "id" = 1) AS "version", ` +
              `EXISTS (SELECT 1 FROM "IngestRun" WHERE "sha256" = $1) AS "seen", ` +
              `(SELECT max("observedAt") FROM "IngestRun") AS "last"`,
            sha256,
          );
          const version = position?.version ?? 0;
          const last = position?.last ?? null;
          const result: IngestResult = {
            status: 'skipped',
            observedAt,
            plansAdded: 0,
            plansClosed: 0,
            offersWritten: 0,
            events: noEvents(),
            dataVersion: version,
          };
          if (position?.seen) {
            committed = this.cache?.version === version ? this.cache : null;
            return result;
          }

          const problems: SnapshotProblem[] = [];
          if (last && last.getTime() > new Date(observedAt).getTime()) {
            problems.push({
              path: '$.observedAt',
              message: `is before the last applied snapshot (${last.toISOString()}): history is append-only`,
            });
          }
          if (this.cache?.version !== version) await startLedger(tx);
          const state = this.cache?.version === version ? this.cache.state : await loadState(tx);
          problems.push(
            ...unresolvedReferences(openReferences, {
              brand: new Set(state.brands.keys()),
              institution: new Set(state.institutions.keys()),
              source: new Set(state.sources.keys()),
            }),
          );
          if (problems.length > 0) throw new IngestError(problems);

          const changes = diffSnapshot(state, snapshot);
          checkCapacity(state, changes, options.capacity);
          const changed = !isEmpty(changes);
          committed = { version, state };
          const appliedAt = now().toISOString();
          if (changed) {
            const planIds = await write(tx, changes, observedAt, whileWriting);
            result.dataVersion += 1;
            const next = nextState(state, changes, planIds);
            await appendEntry(tx, { version: result.dataVersion, observedAt, appliedAt, snapshot: sha256 }, next, {
              set: changes,
              before: state,
            });
            committed = { version: result.dataVersion, state: next };
          }
          await record(tx, {
            sha256,
            observedAt,
            appliedAt,
            file: options.file ?? null,
            plansAdded: changes.newPlans.length,
            eventsAdded: changes.events.length,
            newVersion: changed ? result.dataVersion : null,
          });
          for (const e of changes.events) result.events[e.kind] += 1;
          return {
            ...result,
            status: changed ? 'applied' : 'unchanged',
            plansAdded: changes.newPlans.length,
            plansClosed: changes.closePlans.length,
            offersWritten: changes.offers.length + changes.freshness.length,
          } satisfies IngestResult;
        },
        { timeout: INGEST_QUERY_TIMEOUT_MS, maxWait: INGEST_QUERY_TIMEOUT_MS },
      );
      this.cache = committed;
      return result;
    } catch (err) {
      this.cache = null; // whatever was computed inside a rolled-back transaction is not the database
      throw err;
    }
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
