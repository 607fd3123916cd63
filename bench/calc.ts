// npm run bench:calc [-- --scale 1,20 --amounts 300]
// The list pipeline for NEW amounts (type=all) over the sample catalogue, and the catalogue's heap.
// Each scale: the sample market's last day goes through the real ingest into an in-memory database,
// the catalogue is loaded from it, then every request asks for an amount not asked before.
import { createCalcService } from '../src/catalog/calc-service.js';
import { loadCatalog } from '../src/catalog/load.js';
import { listProducts } from '../src/catalog/pipeline.js';
import { productQuery } from '../src/catalog/query.js';
import { Decimal } from '../src/domain/decimal.js';
import { Rng } from '../src/sample/random.js';
import { benchFastCalc } from './evaluator.js';
import { arg, marketDatabase, percentile } from './support.js';

const gc = (globalThis as { gc?: () => void }).gc;
/** New amounts asked before the timed ones (the calculator learns its pieces). */
const WARMUP = 200;
const heapMb = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

type Distribution = 'savings' | 'uniform';

/** savings: log-uniform 500–500,000 euros (most savers hold thousands); uniform: 1–1,000,000 euros. */
function amountFrom(rng: Rng, distribution: Distribution): Decimal {
  const cents =
    distribution === 'savings'
      ? Math.round(50_000 * 1000 ** (rng.int(0, 1_000_000) / 1_000_000))
      : rng.int(100, 100_000_000);
  return new Decimal(cents).div(100);
}

async function benchScale(scale: number, amounts: number, distribution: Distribution) {
  const db = await marketDatabase(scale);
  const prisma = db.prisma;
  try {
    const before = heapMb();
    const catalog = await loadCatalog(prisma);
    const catalogMb = heapMb() - before;
    const calc = createCalcService();
    const rng = new Rng(scale * 7919);
    const marketBest = { flexible: null, notice: null, deposit12: null, deposit60: null };
    const ctx = { catalog, calc, marketBest, now: new Date('2026-11-23T12:00:00.000Z') };
    const run = (amount: Decimal) => {
      const t = process.hrtime.bigint();
      const result = listProducts(ctx, productQuery({ type: 'all', amount }));
      return { ms: Number(process.hrtime.bigint() - t) / 1e6, total: result.total };
    };

    // The very first request builds every piece (nothing is known yet); then new amounts only: first
    // while the calculator is still learning the amount ranges, then as in a service that has run a while.
    const first = run(new Decimal('50000'));
    const warmup: number[] = [];
    const times: number[] = [];
    const seen = new Set<string>(['50000.00']);
    while (times.length < amounts) {
      const amount = amountFrom(rng, distribution);
      if (seen.has(amount.toFixed(2))) continue;
      seen.add(amount.toFixed(2));
      (warmup.length < WARMUP ? warmup : times).push(run(amount).ms);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const warmSorted = [...warmup].sort((a, b) => a - b);
    const stats = calc.stats();
    return {
      scale,
      distribution,
      offers: catalog.offers.length,
      catalogHeapMb: Number(catalogMb.toFixed(1)),
      firstRequestMs: Number(first.ms.toFixed(1)),
      learning: {
        requests: warmup.length,
        p50Ms: Number(percentile(warmSorted, 50).toFixed(2)),
        p95Ms: Number(percentile(warmSorted, 95).toFixed(2)),
      },
      newAmount: {
        requests: times.length,
        p50Ms: Number(percentile(sorted, 50).toFixed(2)),
        p95Ms: Number(percentile(sorted, 95).toFixed(2)),
        p99Ms: Number(percentile(sorted, 99).toFixed(2)),
        maxMs: Number(sorted[sorted.length - 1]!.toFixed(2)),
      },
      calculator: {
        pieces: stats.pieces,
        hits: stats.hits,
        misses: stats.misses,
        fallbacks: stats.fallbacks,
        unpieceable: stats.unpieceable,
        guarded: stats.guarded,
      },
      heapAfterMb: Number(heapMb().toFixed(1)),
    };
  } finally {
    await db.close();
  }
}

async function main() {
  if (!gc) console.error('(run with node --expose-gc for heap numbers; npm run bench:calc does)');
  // The calculation alone, per offer: the reference loop against the memoising evaluator.
  const domain = benchFastCalc({ offers: 600 });
  console.log(
    `calculation of 600 varied offers per request, p50: reference ${domain.reference.p50Ms} ms, ` +
      `fast (new amount) ${domain.fastWarmNewAmount.p50Ms} ms, list path (yields for all, full for 50) ` +
      `${domain.fastListNewAmount.p50Ms} ms; ` +
      `${domain.checked} results checked against the reference, ${domain.mismatches} mismatches`,
  );
  for (const r of domain.root) console.log(`  root ${r.case}: ${r.rootUs} µs (decimal.js pow ${r.decimalPowUs} µs)`);

  const scales = arg('scale', '1,20').split(',').map(Number);
  const amounts = Number(arg('amounts', '300'));
  const results = [];
  for (const scale of scales) {
    for (const distribution of ['savings', 'uniform'] as const) {
      const result = await benchScale(scale, amounts, distribution);
      results.push(result);
      console.log(JSON.stringify(result));
    }
  }
  console.log(
    '\nscale  amounts  offers  catalog heap  first request  first 200 new amounts p50  then new amounts p50 / ' +
      'p95 / p99',
  );
  for (const r of results) {
    console.log(
      `${String(r.scale).padStart(5)}  ${r.distribution.padStart(7)}  ${String(r.offers).padStart(6)}  ` +
        `${`${r.catalogHeapMb} MB`.padStart(12)}  ${`${r.firstRequestMs} ms`.padStart(13)}  ` +
        `${`${r.learning.p50Ms} ms`.padStart(25)}  ${r.newAmount.p50Ms} / ${r.newAmount.p95Ms} / ` +
        `${r.newAmount.p99Ms} ms`,
    );
  }
  console.log(
    'amounts: savings = log-uniform 500–500,000 EUR; uniform = 1–1,000,000 EUR (most offers then fall outside ' +
      'min/max or the DGS limit)',
  );
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
