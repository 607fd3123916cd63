// npm run bench:graphql — executing a large list: graphql-js against graphql-jit, same schema, same
// context, alternating runs (A B A B) so that the machine's noise hits both alike.
import { execute, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/graphql/context.js';
import { schema } from '../src/graphql/schema/index.js';
import { createLogger } from '../src/logger.js';
import { arg, marketDatabase, percentile } from './support.js';

const QUERY =
  `query($amount: Decimal, $pageSize: Int) { products(type: ALL, amount: $amount, pageSize: $pageSize) {
  total items { id name type brand { id name country } institution { id name country } channel platform ` +
  `termMonths noticeDays payout
  minAmount maxAmount rateType headlineRate tierMode tiers { from to rate } promotion { kind rate months maxBalance }
  openToNewCustomers currentAccountRequired annualFee earlyWithdrawal interestCompounds withholding { kind ` +
  `rate reducedRate }
  freshness { checkedAt official confirmed } sourceUrl eligible ineligibleReason
  calc { amount months promotionApplied nominalRate grossInterest withholdingTax fees netInterest endBalance ` +
  `comparableYield effectiveRate returnPerYear steps { month } }
  dgs { scheme country limit verified covered uncovered coveredPercent fullyCovered sharedWith } } } }`;

async function main() {
  const runs = Number(arg('runs', '60'));
  const pageSize = Number(arg('pageSize', '500'));
  const db = await marketDatabase(1);
  try {
    const app = await createApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      db: { prisma: db.prisma, kind: 'embedded', url: db.url, close: db.close },
      logger: createLogger('silent'),
    });
    const document = parse(QUERY);
    const compiled = compileQuery(schema, document);
    if (!isCompiledQuery(compiled)) throw new Error(JSON.stringify(compiled));
    const variables = { amount: '50000', pageSize };
    // Same amount every run: both measure execution and serialisation, not the calculation.
    const viaJs = async () =>
      JSON.stringify(
        await execute({ schema, document, contextValue: createContext(app.services), variableValues: variables }),
      );
    const viaJit = async () =>
      compiled.stringify(await compiled.query(undefined, createContext(app.services), variables));
    const a = await viaJs();
    const b = await viaJit();
    if (a !== b) throw new Error('graphql-js and graphql-jit disagree');
    const times = { js: [] as number[], jit: [] as number[] };
    for (let i = 0; i < runs + 5; i++) {
      for (const [name, run] of [
        ['js', viaJs],
        ['jit', viaJit],
      ] as const) {
        const t = process.hrtime.bigint();
        await run();
        if (i >= 5) times[name].push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }
    const p50 = (xs: number[]) =>
      percentile(
        [...xs].sort((x, y) => x - y),
        50,
      );
    const result = {
      pageSize,
      bytes: a.length,
      graphqlJsP50Ms: Number(p50(times.js).toFixed(2)),
      graphqlJitP50Ms: Number(p50(times.jit).toFixed(2)),
    };
    console.log(
      JSON.stringify({ ...result, speedup: Number((result.graphqlJsP50Ms / result.graphqlJitP50Ms).toFixed(2)) }),
    );
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
