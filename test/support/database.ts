// A fresh, migrated database per test file: in-memory PGlite by default, or a new database on the
// PostgreSQL server named by TEST_DATABASE_URL (CI runs the suite both ways).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPrisma, type PrismaClient } from '../../src/db/client.js';
import { openInMemory } from '../../src/db/embedded.js';
import { applyMigrations } from '../../src/db/migrate.js';

export interface TestDatabase {
  prisma: PrismaClient;
  url: string;
  kind: 'embedded' | 'postgresql';
  close(): Promise<void>;
}

export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** `migrated: false` leaves the database empty, for tests of migrating it. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrated === false ? async () => {} : applyMigrations;
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const db = await openInMemory();
    await migrate(db.url);
    const prisma = createPrisma(db.url, 4);
    return {
      prisma,
      url: db.url,
      kind: 'embedded',
      async close() {
        await prisma.$disconnect();
        await db.close();
      },
    };
  }
  const name = `savings_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  const prisma = createPrisma(url.toString(), 4);
  return {
    prisma,
    url: url.toString(),
    kind: 'postgresql',
    async close() {
      await prisma.$disconnect();
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
