// Snapshots in one transaction (Ingester in apply.ts; one snapshot is a batch of one): each is diffed
// against the state the one before left, and their rows are written together at the end, a handful of
// statements for the lot. A history of hundreds of daily snapshots (the first start's sample, a
// backfill) then costs the database a few statements per batch instead of a dozen per day.
import type { Prisma } from '../db/client.js';
import { diffSnapshot, EVENT_KINDS, isEmpty, nextState, type CurrentState, type EventKind } from './diff.js';
import { checkCapacity, type Capacity } from './capacity.js';
import { entryAt, readPosition, insertEntries, type BlockRow, type LedgerEntry } from './ledger.js';
import type { Snapshot } from './snapshot.js';
import { appendRows, DATA_VERSION_CHANNEL, upsertRows } from './sql.js';
import { unresolvedReferences, type OpenReference, type SnapshotProblem } from './validate.js';

type Tx = Prisma.TransactionClient;

export interface IngestResult {
  /** applied: data changed; unchanged: nothing differed; skipped: this exact snapshot was applied before */
  status: 'applied' | 'unchanged' | 'skipped';
  observedAt: string;
  plansAdded: number;
  plansClosed: number;
  offersWritten: number;
  events: Record<EventKind, number>;
  dataVersion: number;
}

/** A snapshot that passed every check needing no database: parsed, dated, hashed. */
export interface CheckedSnapshot {
  snapshot: Snapshot;
  openReferences: OpenReference[];
  observedAt: string;
  sha256: string;
}

export interface BatchItem {
  checked: CheckedSnapshot;
  file: string | null;
}

export interface BatchOutcome {
  /** One per snapshot applied, skipped or found unchanged, in order; all of them are written. */
  results: IngestResult[];
  /**
   * The first snapshot that could not be applied (its index), and why (its problems, or the error its
   * diff threw): none after it was tried.
   */
  failure: { index: number; problems: SnapshotProblem[] } | { index: number; error: unknown } | null;
  version: number;
  state: CurrentState;
}

interface Run {
  sha256: string;
  observedAt: string;
  appliedAt: string;
  file: string | null;
  changed: boolean;
  plansAdded: number;
  eventsAdded: number;
}

const noEvents = (): Record<EventKind, number> =>
  Object.fromEntries(EVENT_KINDS.map((k) => [k, 0])) as Record<EventKind, number>;

/**
 * Applies `items` in order in the transaction `tx`, which holds the ingest's lock and in which the
 * database is at `version` with `state`. Plans and events get their ids here, each after the newest in
 * the database (the transaction holds the lock: no one else writes them), so that every version's
 * state, with its plans' ids, is known before anything is written.
 */
export async function applyBatch(
  tx: Tx,
  start: { version: number; state: CurrentState; last: Date | null },
  items: readonly BatchItem[],
  options: { now: () => Date; capacity?: Capacity },
): Promise<BatchOutcome> {
  const seen = new Set(
    (
      await tx.$queryRawUnsafe<{ sha256: string }[]>(
        `SELECT "sha256" FROM "IngestRun" WHERE "sha256" IN (SELECT jsonb_array_elements_text($1::jsonb))`,
        JSON.stringify(items.map((i) => i.checked.sha256)),
      )
    ).map((r) => r.sha256),
  );
  let position = await readPosition(tx, start.version + 1);
  const firstPlanId = position.maxPlanId;
  const firstEventId = position.maxEventId;
  let { version, state } = start;
  const results: IngestResult[] = [];
  let failure: BatchOutcome['failure'] = null;

  const runs: Run[] = [];
  const plans: Record<string, unknown>[] = [];
  const planRows = new Map<number, Record<string, unknown>>(); // this batch's, by id: closed later in it
  const closeBefore: { id: number; validTo: string }[] = []; // plans from before the batch
  const events: Record<string, unknown>[] = [];
  const blocks: BlockRow[] = [];
  const entries: LedgerEntry[] = [];
  const touched = { sources: new Set<string>(), institutions: new Set<string>(), brands: new Set<string>() };
  const offers = new Set<string>();
  let lastObserved = start.last?.toISOString() ?? null;

  for (const [index, { checked, file }] of items.entries()) {
    const { snapshot, openReferences, observedAt, sha256 } = checked;
    const result: IngestResult = {
      status: 'skipped',
      observedAt,
      plansAdded: 0,
      plansClosed: 0,
      offersWritten: 0,
      events: noEvents(),
      dataVersion: version,
    };
    if (seen.has(sha256)) {
      results.push(result);
      continue;
    }
    const problems: SnapshotProblem[] = [];
    if (lastObserved !== null && Date.parse(lastObserved) > Date.parse(observedAt)) {
      problems.push({
        path: '$.observedAt',
        message: `is before the last applied snapshot (${lastObserved}): history is append-only`,
      });
    }
    problems.push(
      ...unresolvedReferences(openReferences, {
        brand: new Set(state.brands.keys()),
        institution: new Set(state.institutions.keys()),
        source: new Set(state.sources.keys()),
      }),
    );
    if (problems.length > 0) {
      failure = { index, problems };
      break;
    }
    let changes;
    try {
      changes = diffSnapshot(state, snapshot);
      checkCapacity(state, changes, options.capacity);
    } catch (error) {
      failure = { index, error };
      break;
    }
    const changed = !isEmpty(changes);
    const appliedAt = options.now().toISOString();
    if (changed) {
      version += 1;
      const planIds = new Map<string, number>();
      for (const p of changes.newPlans) {
        const id = ++position.maxPlanId;
        planIds.set(p.offerId, id);
        const row = {
          id,
          offerId: p.offerId,
          validFrom: p.validFrom,
          validTo: null as string | null,
          observedAt: p.observedAt,
          headlineRate: p.headlineRate,
          rateType: p.rateType,
          tierMode: p.tierMode,
          tiers: p.tiers,
          promotion: p.promotion,
          sourceId: p.sourceId,
        };
        plans.push(row);
        planRows.set(id, row);
      }
      for (const id of changes.closePlans) {
        const mine = planRows.get(id);
        if (mine) mine.validTo = observedAt;
        else closeBefore.push({ id, validTo: observedAt });
      }
      for (const e of changes.events)
        events.push({
          id: ++position.maxEventId,
          kind: e.kind,
          at: e.at,
          offerId: e.offerId,
          brandId: e.brandId,
          institutionId: e.institutionId,
          summary: e.summary,
          from: e.from,
          to: e.to,
        });
      for (const row of changes.sources) touched.sources.add(row.id);
      for (const row of changes.institutions) touched.institutions.add(row.id);
      for (const row of changes.brands) touched.brands.add(row.id);
      for (const row of changes.offers) offers.add(row.id);
      for (const f of changes.freshness) offers.add(f.id);
      const next = nextState(state, changes, planIds);
      const made = entryAt(position, { version, observedAt, appliedAt, snapshot: sha256 }, next, {
        set: changes,
        before: state,
      });
      entries.push(made.entry);
      blocks.push(made.block);
      position = made.after;
      state = next;
    }
    runs.push({
      sha256,
      observedAt,
      appliedAt,
      file,
      changed,
      plansAdded: changes.newPlans.length,
      eventsAdded: changes.events.length,
    });
    seen.add(sha256);
    lastObserved = observedAt;
    for (const e of changes.events) result.events[e.kind] += 1;
    results.push({
      ...result,
      status: changed ? 'applied' : 'unchanged',
      plansAdded: changes.newPlans.length,
      plansClosed: changes.closePlans.length,
      offersWritten: changes.offers.length + changes.freshness.length,
      dataVersion: version,
    });
  }

  // The rows as the last version holds them: a row changed twice in the batch is written once.
  const finalRows = <T>(ids: Set<string>, rows: ReadonlyMap<string, T>) => [...ids].map((id) => rows.get(id)!);
  await upsertRows(tx, 'Source', finalRows(touched.sources, state.sources));
  await upsertRows(tx, 'Institution', finalRows(touched.institutions, state.institutions));
  await upsertRows(tx, 'Brand', finalRows(touched.brands, state.brands));
  await upsertRows(tx, 'Offer', finalRows(offers, state.offers));
  if (closeBefore.length > 0)
    await tx.$executeRawUnsafe(
      `UPDATE "RatePlan" AS p SET "validTo" = x."validTo" FROM jsonb_to_recordset($1::jsonb) AS x("id" int, ` +
        `"validTo" timestamptz) WHERE p."id" = x."id" AND p."validTo" IS NULL`,
      JSON.stringify(closeBefore),
    );
  await appendRows(tx, 'RatePlan', plans);
  await appendRows(tx, 'ChangeEvent', events);
  // The ids given here were not drawn from the sequences: these go on after them.
  for (const [table, last, first] of [
    ['RatePlan', position.maxPlanId, firstPlanId],
    ['ChangeEvent', position.maxEventId, firstEventId],
  ] as const) {
    if (last > first)
      await tx.$executeRawUnsafe(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), $1::int)`, last);
  }
  await insertEntries(tx, blocks, entries);
  await recordRuns(tx, runs, version > start.version ? { version, changedAt: entries.at(-1)!.observedAt } : null);
  return { results, failure, version, state };
}

/** The runs' records, in order, and the new data version, announced on commit. */
async function recordRuns(tx: Tx, runs: Run[], bump: { version: number; changedAt: string } | null): Promise<void> {
  if (bump) {
    await tx.$executeRawUnsafe(
      `INSERT INTO "DataVersion" ("id", "version", "changedAt") VALUES (1, $1::int, $2::timestamptz) ` +
        `ON CONFLICT ("id") DO UPDATE SET "version" = EXCLUDED."version", "changedAt" = EXCLUDED."changedAt"`,
      bump.version,
      bump.changedAt,
    );
    await tx.$executeRawUnsafe(`SELECT pg_notify('${DATA_VERSION_CHANNEL}', $1::text)`, String(bump.version));
  }
  await appendRows(tx, 'IngestRun', runs);
}
