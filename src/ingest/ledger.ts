// The temporal catalogue and its ledger (docs/ledger.md). Every data version's state (sources,
// institutions, brands, offers and their current plans) can be read back exactly: plans are RatePlan
// rows (append-only, numbered in ingest order), the rest is kept as StateBlocks — a keyframe with all of
// it now and then, otherwise only the rows that changed. Each version has a ledger entry whose
// stateHash is the SHA-256 of the canonical state and whose chainHash links it to the entry before, so
// anyone holding an old chain head can tell that history was not rewritten.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { SNAPSHOT_READ, type Prisma, type PrismaClient } from '../db/client.js';
import type { ChangeSet, CurrentState } from './diff.js';
import {
  dec2,
  iso,
  planTerms,
  type BrandRow,
  type InstitutionRow,
  type OfferRow,
  type PlanRow,
  type PlanTerms,
  type SourceRow,
} from './rows.js';
import { loadState } from './state.js';
import { brandOf, canonicalState, institutionOf, offerOf, sourceOf, stateHash } from './canonical.js';

type Tx = Prisma.TransactionClient;

/** The chain's start: the hash "before" the first entry. */
export const GENESIS = '0'.repeat(64);

/**
 * A keyframe is written when the blocks since the last one would hold more than this many times its
 * bytes: reading a version back parses at most (1 + KEYFRAME_RATIO) keyframes' worth of JSON.
 */
export const KEYFRAME_RATIO = 3;

export interface LedgerEntry {
  version: number;
  observedAt: string;
  appliedAt: string;
  /** SHA-256 of the snapshot that made this version. */
  snapshot: string;
  stateHash: string;
  chainHash: string;
  maxPlanId: number;
  maxEventId: number;
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The chain: each entry's hash covers the one before it and every public field of its own. */
export function chainHashOf(
  previous: string,
  e: Pick<LedgerEntry, 'version' | 'observedAt' | 'appliedAt' | 'snapshot' | 'stateHash'>,
): string {
  return sha256([previous, e.version, e.observedAt, e.appliedAt, e.snapshot, e.stateHash].join('\n'));
}

export { canonicalJson, canonicalState, stateHash, stateText, type CanonicalState } from './canonical.js';

// --- blocks: the state but its plans, a keyframe or the rows that changed -----------------------------

/**
 * The offers a daily snapshot re-checked (most of them, every day), compact: which ones, as runs of
 * positions in the sorted ids of the offers known before the block; then per offer its checkedAt as
 * a count of `unit` milliseconds (1000 when every one is a whole second) from the snapshot's observedAt,
 * and official·2 + confirmed as a digit.
 */
export interface Checks {
  observedAt: string;
  /** [first position, count, first position, count…] */
  runs: number[];
  unit: number;
  at: number[];
  flags: string;
}

export interface Block {
  sources: SourceRow[];
  institutions: InstitutionRow[];
  brands: BrandRow[];
  offers: OfferRow[];
  checks: Checks | null;
}

export function keyframeOf(state: CurrentState): Block {
  const s = canonicalState(state);
  return { sources: s.sources, institutions: s.institutions, brands: s.brands, offers: s.offers, checks: null };
}

const sortedIds = (offers: ReadonlyMap<string, unknown>) => [...offers.keys()].sort();

export function deltaOf(changes: ChangeSet, before: CurrentState, observedAt: string): Block {
  let checks: Checks | null = null;
  if (changes.freshness.length > 0) {
    const position = new Map(sortedIds(before.offers).map((id, i) => [id, i]));
    const checked = changes.freshness.map((f) => ({ at: position.get(f.id)!, f })).sort((a, b) => a.at - b.at);
    const runs: number[] = [];
    for (const { at } of checked) {
      if (runs.length > 0 && runs[runs.length - 2]! + runs[runs.length - 1]! === at) runs[runs.length - 1]! += 1;
      else runs.push(at, 1);
    }
    const base = Date.parse(observedAt);
    const ms = checked.map(({ f }) => Date.parse(f.checkedAt) - base);
    const unit = ms.every((x) => x % 1000 === 0) ? 1000 : 1;
    checks = {
      observedAt,
      runs,
      unit,
      at: ms.map((x) => x / unit),
      flags: checked.map(({ f }) => (f.official ? 2 : 0) + (f.confirmed ? 1 : 0)).join(''),
    };
  }
  return {
    sources: changes.sources.map(sourceOf),
    institutions: changes.institutions.map(institutionOf),
    brands: changes.brands.map(brandOf),
    offers: changes.offers.map(offerOf),
    checks,
  };
}

/** The state of blocks applied in order (the first a keyframe), with the plans in force given. */
export function replay(blocks: readonly Block[], plans: readonly PlanRow[]): CurrentState {
  const sources = new Map<string, SourceRow>();
  const institutions = new Map<string, InstitutionRow>();
  const brands = new Map<string, BrandRow>();
  const offers = new Map<string, OfferRow>();
  let ids: string[] | null = null; // the offers' sorted ids, while no block adds one
  // An offer's last check (checkedAt in ms, flags), applied once at the end: most offers are re-checked
  // in every block, and a row written later replaces the check with its own.
  const checked = new Map<string, [number, number]>();
  for (const b of blocks) {
    if (b.checks) {
      ids ??= sortedIds(offers);
      const base = Date.parse(b.checks.observedAt);
      let k = 0;
      for (let r = 0; r < b.checks.runs.length; r += 2) {
        for (let at = b.checks.runs[r]!, end = at + b.checks.runs[r + 1]!; at < end; at++, k++) {
          checked.set(ids[at]!, [base + b.checks.at[k]! * b.checks.unit, b.checks.flags.charCodeAt(k) - 48]);
        }
      }
    }
    for (const row of b.sources) sources.set(row.id, row);
    for (const row of b.institutions) institutions.set(row.id, row);
    for (const row of b.brands) brands.set(row.id, row);
    for (const row of b.offers) {
      if (!offers.has(row.id)) ids = null;
      offers.set(row.id, row);
      checked.delete(row.id);
    }
  }
  for (const [id, [at, flags]] of checked) {
    offers.set(id, {
      ...offers.get(id)!,
      checkedAt: new Date(at).toISOString(),
      official: (flags & 2) !== 0,
      confirmed: (flags & 1) !== 0,
    });
  }
  const currentPlans = new Map<string, PlanRow>();
  for (const p of plans) if (offers.get(p.offerId)?.status === 'active') currentPlans.set(p.offerId, p);
  return { sources, institutions, brands, offers, currentPlans };
}

// --- the database ---------------------------------------------------------------------------------

interface EntryRow {
  version: number;
  observedAt: Date;
  appliedAt: Date;
  snapshot: string;
  stateHash: string;
  chainHash: string;
  maxPlanId: number;
  maxEventId: number;
}

export const entryOf = (r: EntryRow): LedgerEntry => ({
  version: r.version,
  observedAt: iso(r.observedAt),
  appliedAt: iso(r.appliedAt),
  snapshot: r.snapshot,
  stateHash: r.stateHash,
  chainHash: r.chainHash,
  maxPlanId: r.maxPlanId,
  maxEventId: r.maxEventId,
});

interface PlanSqlRow {
  id: number;
  offerId: string;
  validFrom: Date;
  observedAt: Date;
  headlineRate: string;
  rateType: PlanTerms['rateType'];
  tierMode: PlanTerms['tierMode'];
  tiers: PlanTerms['tiers'];
  promotion: PlanTerms['promotion'];
  sourceId: string;
}

const planRowOf = (p: PlanSqlRow): PlanRow => ({
  id: p.id,
  offerId: p.offerId,
  validFrom: iso(p.validFrom),
  validTo: null,
  observedAt: iso(p.observedAt),
  sourceId: p.sourceId,
  ...planTerms({ ...p, headlineRate: dec2(p.headlineRate) }),
});

/** Where the ledger stands before a version is added: what its entry and block depend on. */
export interface LedgerPosition {
  /** The chain hash of the entry before (GENESIS for the first). */
  previous: string;
  /** The bytes of the newest keyframe, and of the blocks after it (null: none yet). */
  keyframeBytes: number | null;
  since: number;
  /** The newest plan and event ids once the version's rows are written. */
  maxPlanId: number;
  maxEventId: number;
}

/** The position for `version`, read in the ingest's transaction after that version's rows were written. */
export async function readPosition(tx: Tx, version: number): Promise<LedgerPosition> {
  const [row] = await tx.$queryRaw<
    { previous: string | null; keyframeBytes: number | null; since: bigint; maxPlanId: number; maxEventId: number }[]
  >`WITH k AS (SELECT max("version") AS v FROM "StateBlock" WHERE "keyframe")
    SELECT (SELECT "chainHash" FROM "LedgerEntry" WHERE "version" = ${version - 1}) AS "previous",
           (SELECT "bytes" FROM "StateBlock" WHERE "version" = (SELECT v FROM k)) AS "keyframeBytes",
           (SELECT coalesce(sum("bytes"), 0) FROM "StateBlock" WHERE "version" > (SELECT v FROM k)) AS "since",
           (SELECT coalesce(max("id"), 0) FROM "RatePlan") AS "maxPlanId",
           (SELECT coalesce(max("id"), 0) FROM "ChangeEvent") AS "maxEventId"`;
  return {
    previous: row?.previous ?? GENESIS,
    keyframeBytes: row?.keyframeBytes ?? null,
    since: Number(row?.since ?? 0),
    maxPlanId: row?.maxPlanId ?? 0,
    maxEventId: row?.maxEventId ?? 0,
  };
}

export interface BlockRow {
  version: number;
  keyframe: boolean;
  bytes: number;
  body: Buffer;
}

/**
 * A new version's entry and block: `next` is the state the version holds, `changes` what made it (null:
 * a keyframe). Pure; `after` is the position for the version after it.
 */
export function entryAt(
  position: LedgerPosition,
  run: { version: number; observedAt: string; appliedAt: string; snapshot: string },
  next: CurrentState,
  changes: { set: ChangeSet; before: CurrentState } | null,
): { entry: LedgerEntry; block: BlockRow; after: LedgerPosition } {
  const delta =
    changes && position.keyframeBytes !== null
      ? JSON.stringify(deltaOf(changes.set, changes.before, run.observedAt))
      : null;
  const keyframe = delta === null || position.since + delta.length > KEYFRAME_RATIO * position.keyframeBytes!;
  const json = keyframe ? JSON.stringify(keyframeOf(next)) : delta;
  const fields = { ...run, stateHash: stateHash(next) };
  const entry: LedgerEntry = {
    ...fields,
    chainHash: chainHashOf(position.previous, fields),
    maxPlanId: position.maxPlanId,
    maxEventId: position.maxEventId,
  };
  return {
    entry,
    // compressed: the same offers' ids and fields day after day
    block: { version: run.version, keyframe, bytes: json.length, body: gzipSync(json) },
    after: {
      ...position,
      previous: entry.chainHash,
      keyframeBytes: keyframe ? json.length : position.keyframeBytes,
      since: keyframe ? 0 : position.since + json.length,
    },
  };
}

/** Writes blocks and entries, in version order, in one statement each. */
export async function insertEntries(tx: Tx, blocks: BlockRow[], entries: LedgerEntry[]): Promise<void> {
  if (blocks.length > 0)
    await tx.$executeRawUnsafe(
      `INSERT INTO "StateBlock" ("version", "keyframe", "bytes", "body") SELECT x."version", x."keyframe", ` +
        `x."bytes", decode(x."body", 'base64') FROM jsonb_to_recordset($1::jsonb) AS x("version" int, ` +
        `"keyframe" boolean, "bytes" int, "body" text)`,
      JSON.stringify(blocks.map((b) => ({ ...b, body: b.body.toString('base64') }))),
    );
  if (entries.length > 0)
    await tx.$executeRawUnsafe(
      `INSERT INTO "LedgerEntry" ("version", "observedAt", "appliedAt", "snapshot", "stateHash", "chainHash", ` +
        `"maxPlanId", "maxEventId") SELECT * FROM jsonb_to_recordset($1::jsonb) AS x("version" int, ` +
        `"observedAt" timestamptz, "appliedAt" timestamptz, "snapshot" text, "stateHash" text, "chainHash" text, ` +
        `"maxPlanId" int, "maxEventId" int)`,
      JSON.stringify(entries),
    );
}

/**
 * Writes a new version's block and ledger entry, in the ingest's transaction after its rows: `next` is
 * the state the version holds, `changes` what made it.
 */
async function appendEntry(
  tx: Tx,
  run: { version: number; observedAt: string; appliedAt: string; snapshot: string },
  next: CurrentState,
  changes: { set: ChangeSet; before: CurrentState } | null,
): Promise<LedgerEntry> {
  const { entry, block } = entryAt(await readPosition(tx, run.version), run, next, changes);
  await insertEntries(tx, [block], [entry]);
  return entry;
}

/** A version's entry and state; `head` for the newest. Null when there is no such version. */
export async function readVersion(
  prisma: PrismaClient,
  version: number | 'head',
): Promise<{ entry: LedgerEntry; state: CurrentState } | null> {
  // The newest version by the ledger (not DataVersion): the entry and its rows are one transaction's.
  const v = version === 'head' ? null : version;
  const [entries, blocks, plans] = await prisma.$transaction(
    [
      prisma.$queryRaw<EntryRow[]>`SELECT * FROM "LedgerEntry"
        WHERE "version" = coalesce(${v}::int, (SELECT max("version") FROM "LedgerEntry"))`,
      prisma.$queryRaw<{ body: Uint8Array }[]>`WITH t AS (
          SELECT coalesce(${v}::int, (SELECT max("version") FROM "LedgerEntry")) AS v)
        SELECT "body" FROM "StateBlock"
        WHERE "version" <= (SELECT v FROM t)
          AND "version" >= (SELECT max("version") FROM "StateBlock" WHERE "keyframe" AND "version" <= (SELECT v FROM t))
        ORDER BY "version"`,
      prisma.$queryRaw<PlanSqlRow[]>`SELECT DISTINCT ON ("offerId") "id", "offerId", "validFrom", "observedAt",
          "headlineRate"::text AS "headlineRate", "rateType"::text AS "rateType", "tierMode"::text AS "tierMode",
          "tiers", "promotion", "sourceId"
        FROM "RatePlan"
        WHERE "id" <= (SELECT "maxPlanId" FROM "LedgerEntry"
          WHERE "version" = coalesce(${v}::int, (SELECT max("version") FROM "LedgerEntry")))
        ORDER BY "offerId", "id" DESC`,
    ],
    SNAPSHOT_READ,
  );
  const row = entries[0];
  if (!row) return null;
  const parsed = blocks.map((b) => JSON.parse(gunzipSync(b.body).toString('utf8')) as Block);
  return {
    entry: entryOf(row),
    state: replay(parsed, plans.map(planRowOf)),
  };
}

/** Every entry, oldest first (a few hundred bytes each). */
export async function readLedger(prisma: PrismaClient, after = 0): Promise<LedgerEntry[]> {
  const rows = await prisma.$queryRaw<EntryRow[]>`SELECT * FROM "LedgerEntry" WHERE "version" > ${after}
    ORDER BY "version"`;
  return rows.map(entryOf);
}

/**
 * A database that held data before the ledger existed starts its ledger at its current version: a
 * keyframe of the current state and the first entry (the past before it is what the rate plans and
 * events already tell). In a transaction holding the ingest's lock; true when it wrote the entry.
 */
export async function startLedger(tx: Tx): Promise<boolean> {
  const [found] = await tx.$queryRaw<{ version: number | null; changedAt: Date | null; entries: bigint }[]>`SELECT
    (SELECT "version" FROM "DataVersion" WHERE "id" = 1) AS "version",
    (SELECT "changedAt" FROM "DataVersion" WHERE "id" = 1) AS "changedAt",
    (SELECT count(*) FROM "LedgerEntry") AS "entries"`;
  const version = found?.version ?? 0;
  if (version === 0 || Number(found!.entries) > 0) return false;
  const [run] = await tx.$queryRaw<{ sha256: string; appliedAt: Date }[]>`SELECT "sha256", "appliedAt"
    FROM "IngestRun" WHERE "changed" ORDER BY "id" DESC LIMIT 1`;
  const observedAt = iso(found!.changedAt!);
  await appendEntry(
    tx,
    { version, observedAt, appliedAt: iso(run?.appliedAt ?? observedAt), snapshot: run?.sha256 ?? GENESIS },
    await loadState(tx),
    null,
  );
  return true;
}

/** startLedger in a transaction of its own, under `lock` (the ingest's): for a service starting. */
export function ensureLedger(prisma: PrismaClient, lock: number): Promise<boolean> {
  return prisma.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${lock})`);
      return startLedger(tx);
    },
    { timeout: 120_000, maxWait: 120_000 },
  );
}
