// Statements that write many rows at once, each batch one JSON parameter: the ingest's writes.
import type { Prisma } from '../db/client.js';

type Tx = Prisma.TransactionClient;

/** Where a committed ingest announces the new data version (running services on PostgreSQL reload). */
export const DATA_VERSION_CHANNEL = 'savings_data_version';

// Column types for the batched upserts below (jsonb_to_recordset needs them spelled out).
const COLUMNS = {
  Source: {
    id: 'text',
    name: 'text',
    kind: '"SourceKind"',
    url: 'text',
    status: '"SourceStatus"',
    lastCheckedAt: 'timestamptz',
    lastSuccessAt: 'timestamptz',
    lastError: 'text',
  },
  Institution: {
    id: 'text',
    name: 'text',
    country: 'char(2)',
    lei: 'text',
    dgsScheme: 'text',
    dgsCountry: 'char(2)',
    dgsLimit: 'numeric',
    dgsVerified: 'boolean',
    dgsSource: 'text',
    dgsVerifiedAt: 'timestamptz',
  },
  Brand: { id: 'text', name: 'text', country: 'char(2)', website: 'text', institutionId: 'text' },
  Offer: {
    id: 'text',
    brandId: 'text',
    name: 'text',
    type: '"OfferType"',
    termMonths: 'integer',
    noticeDays: 'integer',
    channel: '"Channel"',
    platform: 'text',
    payout: '"Payout"',
    minAmount: 'numeric',
    maxAmount: 'numeric',
    openToNewCustomers: 'boolean',
    currentAccountRequired: 'boolean',
    annualFee: 'numeric',
    earlyWithdrawal: 'boolean',
    interestCompounds: 'boolean',
    withholdingKind: '"WithholdingKind"',
    withholdingRate: 'numeric',
    withholdingReducedRate: 'numeric',
    sourceId: 'text',
    sourceUrl: 'text',
    checkedAt: 'timestamptz',
    official: 'boolean',
    confirmed: 'boolean',
    status: '"OfferStatus"',
    firstSeenAt: 'timestamptz',
    removedAt: 'timestamptz',
  },
} as const;

/**
 * Insert-or-update of whole rows in one statement. A daily snapshot re-checks every offer, so several
 * hundred rows change each time; one statement instead of one per row keeps a 400-day history
 * ingest in seconds rather than minutes.
 */
export async function upsertRows(tx: Tx, table: keyof typeof COLUMNS, rows: readonly object[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.entries(COLUMNS[table]);
  const names = columns.map(([name]) => `"${name}"`).join(', ');
  const record = columns.map(([name, type]) => `"${name}" ${type}`).join(', ');
  const updates = columns
    .filter(([name]) => name !== 'id')
    .map(([name]) => `"${name}" = EXCLUDED."${name}"`)
    .join(', ');
  await tx.$executeRawUnsafe(
    `INSERT INTO "${table}" (${names}) SELECT ${names} FROM jsonb_to_recordset($1::jsonb) AS x(${record}) ON ` +
      `CONFLICT ("id") DO UPDATE SET ${updates}`,
    JSON.stringify(rows),
  );
}

/**
 * Appends rows in one statement, in their order. Prisma's createMany splits a batch of more than 32,767
 * parameters into several INSERTs and sends them all at once on the transaction's one connection, which
 * pg deprecates and pg 9 will refuse ("Calling client.query() when the client is already executing a
 * query", issue 19). Here the whole batch is one JSON parameter, whatever its size.
 */
export async function appendRows<R = never>(
  tx: Tx,
  table: 'RatePlan' | 'ChangeEvent' | 'IngestRun',
  rows: readonly object[],
  returning?: string,
): Promise<R[]> {
  if (rows.length === 0) return [];
  const names = Object.keys(rows[0]!)
    .map((name) => `"${name}"`)
    .join(', ');
  const sql =
    `INSERT INTO "${table}" (${names}) SELECT ${names} FROM jsonb_populate_recordset(NULL::"${table}", ` +
    `$1::jsonb) WITH ORDINALITY AS x ORDER BY x.ordinality`;
  const json = JSON.stringify(rows);
  if (!returning) {
    await tx.$executeRawUnsafe(sql, json);
    return [];
  }
  return tx.$queryRawUnsafe<R[]>(`${sql} RETURNING ${returning}`, json);
}
