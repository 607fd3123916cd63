// A timing harness for the list path's calculation (not a test: timings do not belong in unit
// tests). `benchFastCalc()` builds a seeded, varied catalogue of offers and times, per request of
// all offers for one amount: the reference loop, the memoising evaluator on its first amounts
// (building pieces) and on amounts it has not seen before once warm. Meant for `npm run bench:calc`.
import { performance } from 'node:perf_hooks';
import { Decimal } from '../src/domain/decimal.js';
import { calculate } from '../src/domain/calc.js';
import { createCalculator, type CalculatorStats } from '../src/domain/fast-calc.js';
import type { CalcSummary } from '../src/domain/types.js';
import { presentCalc } from '../src/domain/present.js';
import { nthRoot, rationalPow } from '../src/domain/root.js';
import type { CalcInput, CalcTerms, Payout, PromotionsMode, Tier } from '../src/domain/types.js';
import { seeded } from './seeded.js';

export interface BenchOptions {
  offers?: number;
  /** New amounts timed on the warm evaluator. */
  amounts?: number;
  /** Amounts that warm the evaluator before the new ones are timed. */
  warmupAmounts?: number;
  /** Amounts the (slow) reference is timed on. */
  referenceAmounts?: number;
  seed?: number;
}

export interface RequestTimings {
  requests: number;
  /** Wall-clock time per request (all offers for one amount). */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** CPU time of this process per request: less disturbed by other work on the machine. */
  cpuP50Ms: number;
  cpuP95Ms: number;
  /** Mean wall-clock cost of one offer, in microseconds. */
  perOfferUs: number;
}

export interface BenchResult {
  offers: number;
  reference: RequestTimings;
  /** The evaluator's first requests, while it builds pieces. */
  fastCold: RequestTimings;
  /** Requests for amounts never asked before, once the evaluator has seen `warmupAmounts`. */
  fastWarmNewAmount: RequestTimings;
  /** The same amounts asked again (every offer answered from a piece or the exact cache). */
  fastWarmRepeat: RequestTimings;
  /**
   * A list request for a new amount as the list can make it: evaluateYields for every offer (what
   * ranking, the term curve and the type maxima need), evaluate for the 50 offers of a page.
   */
  fastListNewAmount: RequestTimings;
  /** The evaluator's counters after the warm-up, and what the new amounts added to them. */
  statsAfterWarmup: CalculatorStats;
  statsNewAmounts: CalculatorStats;
  /** Summaries compared with the reference (shown strings) on the reference amounts. */
  checked: number;
  mismatches: number;
  root: { case: string; rootUs: number; decimalPowUs: number }[];
  mix: Record<string, number>;
}

interface BenchOffer {
  key: string;
  months: number;
  promotions: PromotionsMode;
  terms: CalcTerms;
}

/** Rates and amounts are built from integers (basis points, cents): no float reaches a Decimal. */
function catalogue(count: number, random: () => number, mix: Record<string, number>): BenchOffer[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const bp = (lo: number, hi: number) => new Decimal(lo + Math.floor(random() * (hi - lo + 1))).div(100);
  const note = (what: string) => (mix[what] = (mix[what] ?? 0) + 1);
  const offers: BenchOffer[] = [];
  for (let i = 0; i < count; i++) {
    const kind = random() < 0.45 ? 'flexible' : random() < 0.2 ? 'notice' : 'deposit';
    const months = kind === 'deposit' ? pick([3, 6, 9, 12, 12, 18, 24, 24, 36, 48, 60, 60, 120]) : 12;
    const payout: Payout =
      kind === 'deposit'
        ? pick(['ANNUALLY', 'ANNUALLY', 'AT_MATURITY', 'MONTHLY', 'QUARTERLY', 'OTHER'] as const)
        : pick(['MONTHLY', 'MONTHLY', 'QUARTERLY', 'ANNUALLY'] as const);
    const tierRoll = random();
    let tiers: Tier[];
    let tierMode: CalcTerms['tierMode'] = 'whole';
    if (tierRoll < 0.7) {
      tiers = [{ from: new Decimal(0), to: null, rate: bp(50, 400) }];
      note('single tier');
    } else {
      const bounds = pick([[25000], [10000, 50000], [50000, 100000, 250000]] as const).map((b) => new Decimal(b));
      let rate = bp(50, 250);
      tiers = [];
      let from = new Decimal(0);
      for (const to of [...bounds, null]) {
        tiers.push({ from, to, rate });
        rate = rate.plus(bp(0, 60));
        if (to !== null) from = to;
      }
      tierMode = tierRoll < 0.9 ? 'whole' : 'marginal';
      note(`${tierMode} tiers`);
    }
    let promotion: CalcTerms['promotion'] = null;
    if (random() < 0.2) {
      const capped = random() < 0.5;
      promotion = {
        kind: random() < 0.7 ? 'bonus' : 'replace',
        rate: bp(25, 150),
        months: pick([3, 6, 12]),
        maxBalance: capped ? new Decimal(pick([25000, 50000, 100000])) : null,
      };
      note(`promotion ${promotion.kind}${capped ? ' capped' : ''}`);
    }
    const annualFee = random() < 0.08 ? new Decimal(pick([500, 1200, 2500])).div(100) : new Decimal(0);
    if (!annualFee.isZero()) note('fee');
    const withholdingRate = random() < 0.3 ? new Decimal(pick([15, 25, 30])) : new Decimal(0);
    if (!withholdingRate.isZero()) note('withholding');
    const interestCompounds = kind !== 'deposit' || random() < 0.3;
    if (12 % months !== 0) note('yields need a root (12/n not an integer)');
    offers.push({
      key: `offer-${i}|${months}|include`,
      months,
      promotions: 'include',
      terms: { tierMode, tiers, promotion, payout, interestCompounds, annualFee, withholdingRate },
    });
  }
  return offers;
}

function amounts(count: number, random: () => number): Decimal[] {
  const round = [1000, 5000, 10000, 20000, 25000, 50000, 75000, 100000, 250000];
  const seen = new Set<string>();
  const out: Decimal[] = [];
  while (out.length < count) {
    const a =
      random() < 0.3
        ? new Decimal(round[Math.floor(random() * round.length)]! + Math.floor(random() * 50) * 100)
        : new Decimal(50000 + Math.floor(random() * 50_000_000)).div(100);
    if (seen.has(a.toString())) continue;
    seen.add(a.toString());
    out.push(a);
  }
  return out;
}

interface Timing {
  wall: number;
  cpu: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function summarise(times: Timing[], offers: number): RequestTimings {
  const quantile = (values: number[], q: number) => {
    const sorted = [...values].sort((x, y) => x - y);
    return round3(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  };
  const wall = times.map((t) => t.wall);
  const cpu = times.map((t) => t.cpu);
  return {
    requests: times.length,
    p50Ms: quantile(wall, 0.5),
    p95Ms: quantile(wall, 0.95),
    maxMs: quantile(wall, 1),
    cpuP50Ms: quantile(cpu, 0.5),
    cpuP95Ms: quantile(cpu, 0.95),
    perOfferUs: round3((wall.reduce((s, x) => s + x, 0) * 1000) / (times.length * offers)),
  };
}

function request(
  offers: readonly BenchOffer[],
  amount: Decimal,
  each: (o: BenchOffer, input: CalcInput) => unknown,
): Timing {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (const o of offers) each(o, { amount, months: o.months, promotions: o.promotions, terms: o.terms });
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

function difference(after: CalculatorStats, before: CalculatorStats): CalculatorStats {
  const out = { ...after };
  for (const k of Object.keys(out) as (keyof CalculatorStats)[]) out[k] = after[k] - before[k];
  return out;
}

function timeRoot(): BenchResult['root'] {
  const random = seeded(7);
  const xs = Array.from({ length: 200 }, () => new Decimal(1).plus(new Decimal(Math.floor(random() * 1e9)).div(1e10)));
  const time = (f: (x: Decimal) => unknown, rounds: number) => {
    const start = performance.now();
    for (let r = 0; r < rounds; r++) for (const x of xs) f(x);
    return ((performance.now() - start) * 1000) / (rounds * xs.length);
  };
  return [24, 36, 60, 7, 120]
    .map((n) => {
      const exponent = new Decimal(12).div(n);
      time((x) => rationalPow(x, 12, n), 2);
      return {
        case: `x^(12/${n})`,
        rootUs: round3(time((x) => rationalPow(x, 12, n), 10)),
        decimalPowUs: round3(time((x) => x.pow(exponent), 1)),
      };
    })
    .concat([
      {
        case: 'sqrt: nthRoot(x, 2) vs Decimal#sqrt',
        rootUs: round3(time((x) => nthRoot(x, 2), 10)),
        decimalPowUs: round3(time((x) => x.sqrt(), 2)),
      },
    ]);
}

export function benchFastCalc(options: BenchOptions = {}): BenchResult {
  const random = seeded(options.seed ?? 20261122);
  const mix: Record<string, number> = {};
  const offers = catalogue(options.offers ?? 600, random, mix);
  const warm = amounts(options.warmupAmounts ?? 50, random);
  const fresh = amounts((options.amounts ?? 200) + warm.length, random).filter((a) => !warm.some((w) => w.eq(a)));
  const newAmounts = fresh.slice(0, options.amounts ?? 200);
  const referenceAmounts = newAmounts.slice(0, options.referenceAmounts ?? 10);

  const references = new Map<string, ReturnType<typeof calculate>>();
  const referenceMs = referenceAmounts.map((a) =>
    request(offers, a, (o, input) => references.set(`${o.key}@${a.toString()}`, calculate(input))),
  );

  const calculator = createCalculator({ maxPieces: 200_000 });
  const coldMs = warm.map((a) => request(offers, a, (o, input) => calculator.evaluate(o.key, input)));
  const statsAfterWarmup = calculator.stats();
  const summaries = new Map<string, CalcSummary>();
  const newMs = newAmounts.map((a) =>
    request(offers, a, (o, input) => summaries.set(`${o.key}@${a.toString()}`, calculator.evaluate(o.key, input))),
  );
  const statsNewAmounts = difference(calculator.stats(), statsAfterWarmup);
  const repeatMs = newAmounts.map((a) => request(offers, a, (o, input) => calculator.evaluate(o.key, input)));
  // A second evaluator, warmed up the same way, answers the same new amounts as a list would.
  const lister = createCalculator({ maxPieces: 200_000 });
  for (const a of warm) request(offers, a, (o, input) => lister.evaluate(o.key, input));
  const page = new Set(offers.slice(0, 50));
  const listMs = newAmounts.map((a) =>
    request(offers, a, (o, input) => {
      lister.evaluateYields(o.key, input);
      if (page.has(o)) lister.evaluate(o.key, input);
    }),
  );

  let checked = 0;
  let mismatches = 0;
  for (const [id, ref] of references) {
    const fast = summaries.get(id);
    if (fast === undefined) continue;
    checked++;
    if (JSON.stringify(presentCalc(ref)) !== JSON.stringify(presentCalc(fast))) mismatches++;
  }
  return {
    offers: offers.length,
    reference: summarise(referenceMs, offers.length),
    fastCold: summarise(coldMs, offers.length),
    fastWarmNewAmount: summarise(newMs, offers.length),
    fastWarmRepeat: summarise(repeatMs, offers.length),
    fastListNewAmount: summarise(listMs, offers.length),
    statsAfterWarmup,
    statsNewAmounts,
    checked,
    mismatches,
    root: timeRoot(),
    mix,
  };
}
