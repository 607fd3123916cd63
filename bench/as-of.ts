// npm run bench:asof [-- --days 400 --amounts 200 --versions 20]
// What asOf costs beside the current answers, in one process over the sample's history (the real ingest
// into an in-memory database): the list for new amounts now (cold: every amount new), the first asOf
// answer of a version not loaded yet (its catalogue read back from the ledger's blocks and plans), and
// asOf answers at new amounts once its catalogue is kept. Also the database's size per table.
import { createCalcService } from '../src/catalog/calc-service.js';
import { listProducts } from '../src/catalog/pipeline.js';
import { productQuery } from '../src/catalog/query.js';
import { createCatalogStore } from '../src/catalog/store.js';
import { Timeline } from '../src/catalog/timeline.js';
import type { Catalog } from '../src/catalog/types.js';
import { createPrisma } from '../src/db/client.js';
import { openInMemory } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { Decimal } from '../src/domain/decimal.js';
import { readLedger } from '../src/ingest/ledger.js';
import { Rng } from '../src/sample/random.js';
import { seedSample } from '../src/sample/seed.js';
import { arg, percentile } from './support.js';

const days = Number(arg('days', '400'));
const amounts = Number(arg('amounts', '200'));
const versions = Number(arg('versions', '20'));
const NO_BEST = { flexible: null, notice: null, deposit12: null, deposit60: null };
const round = (v: number) => Number(v.toFixed(2));
const ms = (started: number) => performance.now() - started;

const db = await openInMemory();
await applyMigrations(db.url);
const prisma = createPrisma(db.url, 4);
try {
  const seeded = performance.now();
  await seedSample(prisma, { seed: 42, days, end: '2026-11-23', scale: 1 });
  console.log(`seeded ${days} days in ${round(ms(seeded) / 1000)} s`);
  const sizes = await prisma.$queryRawUnsafe<{ name: string; bytes: bigint }[]>(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC`,
  );
  const total = sizes.reduce((sum, s) => sum + Number(s.bytes), 0);
  const ledgerBytes = sizes
    .filter((s) => s.name === 'StateBlock' || s.name === 'LedgerEntry')
    .reduce((sum, s) => sum + Number(s.bytes), 0);
  console.log(
    `database: ${round(total / 1048576)} MB in its tables, of which the ledger and its blocks ` +
      `${round(ledgerBytes / 1048576)} MB (${round((100 * ledgerBytes) / (total - ledgerBytes))} % on top of the rest)`,
  );
  for (const s of sizes) console.log(`  ${s.name.padEnd(16)} ${round(Number(s.bytes) / 1048576)} MB`);

  const store = await createCatalogStore(prisma);
  const timeline = new Timeline(prisma, store, 512 * 1024 * 1024);
  const calc = createCalcService();
  const rng = new Rng(7);
  const newAmount = () => new Decimal(Math.round(50_000 * 1000 ** (rng.int(0, 1_000_000) / 1_000_000))).div(100);
  const list = (catalog: Catalog, now: Date) =>
    listProducts({ catalog, calc, marketBest: NO_BEST, now }, productQuery({ amount: newAmount(), type: 'all' }));
  const timed = (catalog: Catalog, now: Date, n: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      list(catalog, now);
      times.push(ms(started));
    }
    return times.sort((a, b) => a - b);
  };
  const current = store.current();
  timed(current, current.generatedAt, 50); // the calculator's pieces, as a running service has them
  const now = timed(current, current.generatedAt, amounts);

  const ledger = await readLedger(prisma);
  const first: number[] = [];
  let sample: Catalog | null = null;
  for (let i = 0; i < versions; i++) {
    const entry = ledger[rng.int(0, ledger.length - 2)]!;
    const started = performance.now();
    const at = await timeline.at(new Date(entry.observedAt), new Date());
    if ('kind' in at) throw new Error(`no version at ${entry.observedAt}`);
    list(at.catalog, at.now);
    first.push(ms(started));
    sample = at.catalog;
  }
  first.sort((a, b) => a - b);
  timed(sample!, sample!.generatedAt, 50);
  const past = timed(sample!, sample!.generatedAt, amounts);
  const p50 = (xs: number[]) => round(percentile(xs, 50));
  console.log(`\nlist, type=all, new amounts (p50 / p95 / max ms):`);
  console.log(`  now:                             ${p50(now)} / ${round(percentile(now, 95))} / ${round(now.at(-1)!)}`);
  console.log(
    `  asOf, a version not loaded yet:  ${p50(first)} / ${round(percentile(first, 95))} / ${round(first.at(-1)!)}` +
      `  (${versions} versions: read back, catalogue built, then the list)`,
  );
  console.log(
    `  asOf, its catalogue kept:        ${p50(past)} / ${round(percentile(past, 95))} / ${round(past.at(-1)!)}` +
      `  (${round(p50(past) / p50(now))}x the current p50)`,
  );
} finally {
  await prisma.$disconnect();
  await db.close();
}
