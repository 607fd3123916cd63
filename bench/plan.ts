// npm run bench:plan [-- --scale 1,20 --amounts 200]
// The savings plan (GET /api/plan) for NEW amounts over the sample catalogue, as bench:calc measures the
// list: the sample market's last day goes through the real ingest into an in-memory database, the
// catalogue is loaded from it, then every request asks for an amount not asked before.
import { createCalcService } from '../src/catalog/calc-service.js';
import { loadCatalog } from '../src/catalog/load.js';
import { planAllocation, planQuery, type PlanQuery } from '../src/catalog/plan.js';
import { Decimal } from '../src/domain/decimal.js';
import { Rng } from '../src/sample/random.js';
import { arg, marketDatabase, percentile } from './support.js';

/** New amounts asked before the timed ones (the calculator and the offer models fill in). */
const WARMUP = 50;

interface Scenario {
  name: string;
  query: Partial<PlanQuery>;
}

const SCENARIOS: Scenario[] = [
  { name: 'default (type=all, maxOffers=5)', query: {} },
  { name: 'sort=effective', query: { sort: 'effective' } },
  { name: 'flexibleShare=25', query: { flexibleShare: new Decimal(25) } },
  { name: 'maxOffers=20', query: { maxOffers: 20 } },
  { name: 'type=flexible, horizon=24', query: { type: 'flexible', horizon: 24 } },
];

/** Log-uniform 5,000–2,000,000 euros, in cents: from one part to more than maxOffers × 100,000. */
function amountFrom(rng: Rng): Decimal {
  const cents = Math.round(500_000 * 400 ** (rng.int(0, 1_000_000) / 1_000_000));
  return new Decimal(cents).div(100);
}

const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;
const round = (v: number) => Number(v.toFixed(2));

async function benchScale(scale: number, amounts: number) {
  const db = await marketDatabase(scale);
  try {
    const catalog = await loadCatalog(db.prisma);
    const now = new Date('2026-11-23T12:00:00.000Z');
    const results = [];
    for (const scenario of SCENARIOS) {
      // A fresh calculator per scenario: its first request pays for the pieces and offer models.
      const calc = createCalcService();
      const rng = new Rng(scale * 7919);
      const run = (amount: Decimal) => {
        const t = process.hrtime.bigint();
        const plan = planAllocation({ catalog, calc, now }, planQuery({ ...scenario.query, amount }));
        return { ms: ms(t), plan };
      };
      const first = run(new Decimal('250000'));
      const seen = new Set<string>(['250000.00']);
      const times: number[] = [];
      let warm = 0;
      let nodes = 0;
      let leaves = 0;
      let kept = 0;
      let unproven = 0;
      while (times.length < amounts) {
        const amount = amountFrom(rng);
        if (seen.has(amount.toFixed(2))) continue;
        seen.add(amount.toFixed(2));
        const r = run(amount);
        if (warm++ < WARMUP) continue;
        times.push(r.ms);
        nodes += r.plan.search.nodes;
        leaves += r.plan.search.leaves;
        kept += r.plan.search.kept;
        if (!r.plan.optimal) unproven++;
      }
      const sorted = [...times].sort((a, b) => a - b);
      const result = {
        scale,
        scenario: scenario.name,
        offers: catalog.offers.length,
        candidates: first.plan.search.candidates,
        firstRequestMs: round(first.ms),
        newAmount: {
          requests: times.length,
          p50Ms: round(percentile(sorted, 50)),
          p95Ms: round(percentile(sorted, 95)),
          maxMs: round(sorted[sorted.length - 1]!),
          /** Plans the search answered at its node budget, without the proof (optimal: false). */
          unproven,
        },
        perRequest: {
          kept: Math.round(kept / times.length),
          nodes: Math.round(nodes / times.length),
          leaves: Math.round(leaves / times.length),
        },
      };
      console.log(JSON.stringify(result));
      results.push(result);
    }
    return results;
  } finally {
    await db.close();
  }
}

async function main() {
  const scales = arg('scale', '1,20').split(',').map(Number);
  const amounts = Number(arg('amounts', '200'));
  const all = [];
  for (const scale of scales) all.push(...(await benchScale(scale, amounts)));
  console.log(
    '\nscale  offers  scenario                            first request  new ' +
      'amount p50 / p95 / max      kept  nodes  leaves  unproven',
  );
  for (const r of all) {
    console.log(
      `${String(r.scale).padStart(5)}  ${String(r.offers).padStart(6)}  ${r.scenario.padEnd(34)} ` +
        ` ${`${r.firstRequestMs} ms`.padStart(13)} ` +
        ` ${`${r.newAmount.p50Ms} / ${r.newAmount.p95Ms} / ${r.newAmount.maxMs} ms`.padEnd(30)} ` +
        ` ${String(r.perRequest.kept).padStart(4)}  ${String(r.perRequest.nodes).padStart(5)} ` +
        ` ${String(r.perRequest.leaves).padStart(6)}  ${String(r.newAmount.unproven).padStart(8)}`,
    );
  }
  console.log(
    'amounts: log-uniform 5,000–2,000,000 EUR, each new; after 50 warm-up amounts ' +
      'per scenario (a fresh calculator each)',
  );
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
