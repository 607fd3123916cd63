// A fresh, migrated database per test file: in-memory PGlite by default, or a new database on the
// PostgreSQL server named by TEST_DATABASE_URL (CI runs the suite both ways).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPrisma, type PrismaClient } from '../../src/db/client.js';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openInMemory } from '../../src/db/embedded.js';
import { applyMigrations, migrationsDigest } from '../../src/db/migrate.js';

export interface TestDatabase {
  prisma: PrismaClient;
  url: string;
  kind: 'embedded' | 'postgresql';
  close(): Promise<void>;
}

export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);

// The build's migrated template (src/db/embedded.ts), when it holds exactly the migrations there are:
// a copy of it is ready in a fraction of what initdb and the migrations take, in every test file.
const BUILT_TEMPLATE = fileURLToPath(new URL('../../dist/db/template.tar.gz', import.meta.url));
let template: Promise<string | null> | undefined;
const builtTemplate = () =>
  (template ??= Promise.all([readFile(`${BUILT_TEMPLATE}.digest`, 'utf8'), migrationsDigest()]).then(
    ([built, now]) => (built === now ? BUILT_TEMPLATE : null),
    () => null,
  ));

/** `migrated: false` leaves the database empty, for tests of migrating it. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const migrate = options.migrated === false ? async () => {} : applyMigrations;
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const copy = options.migrated === false ? null : await builtTemplate();
    const db = await openInMemory(copy);
    if (!copy) await migrate(db.url);
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
