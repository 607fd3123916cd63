// What a consistent database holds after any number of ingests, whole or killed: checked in SQL, so
// that nothing of the code under test reads its own writes back. Used by `npm run chaos`.
import type pg from 'pg';

export interface Check {
  name: string;
  /** Traces of a snapshot written in part: a row of a snapshot that has no ingest run, or a run missing rows. */
  partialWrite: boolean;
  violations: number;
  /** A few offending rows, for the report. */
  examples: string[];
}

/** Each query returns the offending rows, one `what` text each. */
const CHECKS: { name: string; partialWrite: boolean; sql: string }[] = [
  {
    name: 'plans of no applied snapshot',
    partialWrite: true,
    sql: `SELECT 'plan ' || p.id || ' of ' || p."offerId" || ' observed ' || p."observedAt" AS what FROM "RatePlan" p
           WHERE NOT EXISTS (SELECT 1 FROM "IngestRun" r WHERE r."observedAt" = p."observedAt")`,
  },
  {
    name: 'events of no applied snapshot',
    partialWrite: true,
    sql: `SELECT 'event ' || e.id || ' ' || e.kind || ' at ' || e.at AS what FROM "ChangeEvent" e
           WHERE NOT EXISTS (SELECT 1 FROM "IngestRun" r WHERE r."observedAt" = e.at)`,
  },
  {
    name: 'offers first seen in no applied snapshot',
    partialWrite: true,
    sql: `SELECT 'offer ' || o.id || ' first seen ' || o."firstSeenAt" AS what FROM "Offer" o
           WHERE NOT EXISTS (SELECT 1 FROM "IngestRun" r WHERE r."observedAt" = o."firstSeenAt")
              OR o."checkedAt" > (SELECT max("observedAt") FROM "IngestRun")`,
  },
  {
    name: 'applied snapshots missing plans or events',
    partialWrite: true,
    sql:
      `SELECT 'snapshot ' || r."observedAt" || ': ' || r.plans || ' plans recorded, ' || (SELECT count(*) FROM ` +
      `"RatePlan" p WHERE p."observedAt" = r."observedAt")
                 || ' found; ' || r.events || ' events recorded, ' || (SELECT count(*) FROM "ChangeEvent" ` +
      `e WHERE e.at = r."observedAt") || ' found' AS what
            FROM (SELECT "observedAt", sum("plansAdded") AS plans, sum("eventsAdded") AS events FROM ` +
      `"IngestRun" GROUP BY "observedAt") r
           WHERE r.plans <> (SELECT count(*) FROM "RatePlan" p WHERE p."observedAt" = r."observedAt")
              OR r.events <> (SELECT count(*) FROM "ChangeEvent" e WHERE e.at = r."observedAt")`,
  },
  {
    name: 'data version other than the number of applied snapshots that changed data',
    partialWrite: true,
    sql:
      `SELECT 'data version ' || coalesce((SELECT version FROM "DataVersion" WHERE id = 1), 0) || ', changing ` +
      `snapshots ' || n AS what
            FROM (SELECT count(*) AS n FROM "IngestRun" WHERE changed) c
           WHERE n <> coalesce((SELECT version FROM "DataVersion" WHERE id = 1), 0)`,
  },
  {
    name: 'offers without exactly one open plan (active) or with one (removed)',
    partialWrite: false,
    sql: `SELECT 'offer ' || o.id || ' (' || o.status || ') has ' || count(p.id) || ' open plans' AS what
            FROM "Offer" o LEFT JOIN "RatePlan" p ON p."offerId" = o.id AND p."validTo" IS NULL
           GROUP BY o.id, o.status
          HAVING count(p.id) <> CASE WHEN o.status = 'active' THEN 1 ELSE 0 END`,
  },
  {
    name: 'plans that overlap the next or do not end where it begins',
    partialWrite: false,
    sql:
      `WITH chain AS (SELECT p.id, p."offerId", p."validFrom", p."validTo",
                               lead(p."validFrom") OVER w AS "nextFrom", lead(p.id) OVER w AS "nextId"
                          FROM "RatePlan" p WINDOW w AS (PARTITION BY p."offerId" ORDER BY p."validFrom", p.id))
          SELECT 'plan ' || c.id || ' of ' || c."offerId" || ' [' || c."validFrom" || ', ' || ` +
      `coalesce(c."validTo"::text, 'open') || ') then plan ' || coalesce(c."nextId"::text, '-') AS what
            FROM chain c
           WHERE (c."validTo" IS NOT NULL AND c."validTo" <= c."validFrom")
              OR (c."nextId" IS NOT NULL AND (c."validTo" IS NULL OR c."validTo" > c."nextFrom"))
              OR (c."nextId" IS NOT NULL AND c."validTo" < c."nextFrom" AND NOT (
                    EXISTS (SELECT 1 FROM "ChangeEvent" e WHERE e."offerId" = c."offerId" AND e.kind = ` +
      `'removed_offer' AND e.at = c."validTo")
                AND EXISTS (SELECT 1 FROM "ChangeEvent" e WHERE e."offerId" = c."offerId" AND e.kind = ` +
      `'new_offer' AND e.at = c."nextFrom")))`,
  },
  {
    name: 'plans that begin an offer without a new_offer event',
    partialWrite: false,
    sql:
      `SELECT 'plan ' || p.id || ' of ' || p."offerId" || ' from ' || p."validFrom" AS what FROM "RatePlan" p
           WHERE NOT EXISTS (SELECT 1 FROM "RatePlan" q WHERE q."offerId" = p."offerId" AND q."validTo" = p."validFrom")
             AND NOT EXISTS (SELECT 1 FROM "ChangeEvent" e WHERE e."offerId" = p."offerId" AND e.kind = ` +
      `'new_offer' AND e.at = p."validFrom")`,
  },
  {
    name: 'offer events without the plan they announce',
    partialWrite: false,
    sql:
      `SELECT 'event ' || e.id || ' ' || e.kind || ' of ' || e."offerId" || ' at ' || e.at AS what ` +
      `FROM "ChangeEvent" e
           WHERE e."offerId" IS NOT NULL AND NOT EXISTS (
                 SELECT 1 FROM "RatePlan" p WHERE p."offerId" = e."offerId"
                    AND CASE WHEN e.kind = 'removed_offer' THEN p."validTo" = e.at ELSE p."validFrom" = e.at END)`,
  },
];

const EXAMPLES = 3;

/** `inTransaction`: the client is in a transaction of the caller's already (tests that damage and roll back). */
export async function checkInvariants(client: pg.Client, options: { inTransaction?: boolean } = {}): Promise<Check[]> {
  const checks: Check[] = [];
  // One committed state for every check: an ingest may commit between two of them.
  if (!options.inTransaction) await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    for (const { name, partialWrite, sql } of CHECKS) {
      const { rows } = await client.query<{ what: string }>(sql);
      checks.push({
        name,
        partialWrite,
        violations: rows.length,
        examples: rows.slice(0, EXAMPLES).map((r) => r.what),
      });
    }
  } finally {
    if (!options.inTransaction) await client.query('COMMIT');
  }
  return checks;
}

export const partialWrites = (checks: readonly Check[]) =>
  checks.filter((c) => c.partialWrite).reduce((n, c) => n + c.violations, 0);
export const violations = (checks: readonly Check[]) => checks.reduce((n, c) => n + c.violations, 0);
