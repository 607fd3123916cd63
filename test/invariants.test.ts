// The chaos run's checker (bench/invariants.ts): silent on what the ingest writes, loud on each kind
// of damage a half-applied snapshot would leave.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInvariants, partialWrites, violations } from '../bench/invariants.js';
import { applySnapshot } from '../src/ingest/apply.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { baseSnapshot } from './support/snapshots.js';

let db: TestDatabase;
let client: pg.Client;
const day = (n: number) => `2026-11-${String(n).padStart(2, '0')}T06:00:00.000Z`;

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  // Rates up and down, a promotion, an offer removed and offered again, a DGS change: every kind of row.
  const days = [
    (s: ReturnType<typeof baseSnapshot>) => s,
    (s: ReturnType<typeof baseSnapshot>) => void (s.offers[0]!.plan.headlineRate = '2.50'),
    (s: ReturnType<typeof baseSnapshot>) => void s.offers.pop(),
    (s: ReturnType<typeof baseSnapshot>) => {
      s.offers[1]!.plan.promotion = { kind: 'bonus', rate: '0.30', months: 3, maxBalance: null };
      s.institutions[0]!.dgs.limit = '120000.00';
    },
  ];
  for (const [i, change] of days.entries()) {
    const snapshot = baseSnapshot(day(i + 1));
    change(snapshot);
    await applySnapshot(db.prisma, snapshot);
  }
});
afterAll(async () => {
  await client?.end();
  await db?.close();
});

describe('checkInvariants', () => {
  it('finds nothing wrong in what the ingest wrote', async () => {
    const checks = await checkInvariants(client);
    expect(checks.filter((c) => c.violations > 0)).toEqual([]);
    expect(checks.length).toBeGreaterThanOrEqual(9);
  });

  it.each([
    [
      'a plan of a snapshot never applied',
      `INSERT INTO "RatePlan" ("offerId", "validFrom", "observedAt", "headlineRate", "rateType", "tierMode", ` +
        `"tiers", "sourceId")
       VALUES ('zeeland-direct-flex', '${day(9)}', '${day(9)}', 3, 'variable', 'whole', '[]', 'src-zeeland')`,
      'plans of no applied snapshot',
      true,
    ],
    [
      'an event of a snapshot never applied',
      `INSERT INTO "ChangeEvent" (kind, at, "offerId", summary) VALUES ('rate_up', '${day(9)}', ` +
        `'zeeland-direct-flex', 'x')`,
      'events of no applied snapshot',
      true,
    ],
    [
      'a snapshot missing its events',
      `DELETE FROM "ChangeEvent" WHERE kind = 'rate_up'`,
      'applied snapshots missing plans or events',
      true,
    ],
    [
      'a data version ahead of the snapshots',
      `UPDATE "DataVersion" SET version = version + 1`,
      'data version other than the number of applied snapshots that changed data',
      true,
    ],
    [
      'a second open plan',
      `UPDATE "RatePlan" SET "validTo" = NULL WHERE "validTo" IS NOT NULL`,
      'offers without exactly one open plan (active) or with one (removed)',
      false,
    ],
    [
      'a plan that ends after the next begins',
      `UPDATE "RatePlan" SET "validTo" = "validTo" + interval '1 hour' WHERE "validTo" IS NOT NULL`,
      'plans that overlap the next or do not end where it begins',
      false,
    ],
    [
      'an offer back without its new_offer event',
      `UPDATE "ChangeEvent" SET kind = 'promotion_start' WHERE kind = 'new_offer' AND at = '${day(4)}'`,
      'plans that begin an offer without a new_offer event',
      false,
    ],
  ])('reports %s', async (_damage, sql, name, partial) => {
    await client.query('BEGIN');
    try {
      await client.query(sql);
      const checks = await checkInvariants(client, { inTransaction: true });
      expect(checks.find((c) => c.name === name)?.violations).toBeGreaterThan(0);
      expect(violations(checks)).toBeGreaterThan(0);
      expect(partialWrites(checks) > 0).toBe(partial);
    } finally {
      await client.query('ROLLBACK');
    }
  });
});
