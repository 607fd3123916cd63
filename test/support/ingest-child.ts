// A separate ingest process for test/ingest-safety.test.ts: it applies a snapshot and, once offers and
// plans are written inside the transaction (events come last), announces "paused" and waits to be killed.
import { readFile } from 'node:fs/promises';
import { createPrisma, type PrismaClient } from '../../src/db/client.js';
import { applySnapshot } from '../../src/ingest/apply.js';

const [url, file] = process.argv.slice(2);
const base = createPrisma(url!, 2);
const paused = base.$extends({
  query: {
    async $executeRawUnsafe({ args, query }) {
      if (!String(args[0]).startsWith('INSERT INTO "ChangeEvent"')) return query(args);
      process.stdout.write('paused\n');
      return new Promise<never>(() => {});
    },
  },
}) as unknown as PrismaClient;

await applySnapshot(paused, JSON.parse(await readFile(file!, 'utf8')));
process.stdout.write('committed\n'); // never expected: the test fails if it sees this
