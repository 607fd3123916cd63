// fast-check generators shared by the domain's tests: offer terms, amounts and periods built from
// integers (basis points, cents), so that every Decimal is exact and no float reaches one.
import fc from 'fast-check';
import { Decimal } from '../decimal.js';
import type { CalcInput, CalcTerms, Payout, Promotion, PromotionsMode, Tier } from '../types.js';

const PAYOUTS: readonly Payout[] = ['MONTHLY', 'QUARTERLY', 'ANNUALLY', 'AT_MATURITY', 'OTHER'];
const MODES: readonly PromotionsMode[] = ['include', 'exclude', 'only'];

const cents = (n: number) => new Decimal(n).div(100);

/** A rate in percent with two decimals, −5.00 … 15.00 by default. */
export const arbitraryRate = (minBp = -500, maxBp = 1500) => fc.integer({ min: minBp, max: maxBp }).map(cents);

export interface TermsOptions {
  /** Whole-mode tier rates never fall (a larger balance never earns a lower whole-balance rate). */
  monotoneTiers?: boolean;
  /** No rate below 0 (tiers and promotion): balances never fall. */
  nonNegativeRates?: boolean;
}

export function arbitraryTiers(options: TermsOptions = {}, tierMode?: CalcTerms['tierMode']) {
  return fc
    .record({
      // tier widths in cents: 10.00 … 100,000.00, often round
      widths: fc.array(
        fc.oneof(
          fc.constantFrom(500_000, 1_000_000, 2_500_000, 5_000_000),
          fc.integer({ min: 1_000, max: 10_000_000 }),
        ),
        {
          maxLength: 3,
        },
      ),
      rates: fc.array(fc.integer({ min: options.nonNegativeRates ? 0 : -500, max: 1500 }), {
        minLength: 4,
        maxLength: 4,
      }),
    })
    .map(({ widths, rates }) => {
      let bps = rates.slice(0, widths.length + 1);
      if (options.monotoneTiers && tierMode !== 'marginal') bps = [...bps].sort((a, b) => a - b);
      const tiers: Tier[] = [];
      let from = 0;
      bps.forEach((bp, i) => {
        const width = widths[i];
        const to = width === undefined ? null : from + width;
        tiers.push({ from: cents(from), to: to === null ? null : cents(to), rate: cents(bp) });
        if (to !== null) from = to;
      });
      return tiers;
    });
}

export const arbitraryPromotion = (minBp = -200): fc.Arbitrary<Promotion | null> =>
  fc.option(
    fc.record({
      kind: fc.constantFrom('bonus' as const, 'replace' as const),
      rate: arbitraryRate(minBp, 800),
      months: fc.integer({ min: 1, max: 24 }),
      maxBalance: fc.option(
        fc.oneof(fc.constantFrom(1_000_000, 2_500_000, 5_000_000), fc.integer({ min: 0, max: 20_000_000 })).map(cents),
        { nil: null },
      ),
    }),
    { nil: null, freq: 2 },
  );

export function arbitraryTerms(options: TermsOptions = {}): fc.Arbitrary<CalcTerms> {
  return fc.constantFrom('whole' as const, 'marginal' as const).chain((tierMode) =>
    fc.record({
      tierMode: fc.constant(tierMode),
      tiers: arbitraryTiers(options, tierMode),
      promotion: arbitraryPromotion(options.nonNegativeRates ? 0 : -200),
      payout: fc.constantFrom(...PAYOUTS),
      interestCompounds: fc.boolean(),
      annualFee: fc.oneof(fc.constant(new Decimal(0)), fc.integer({ min: 0, max: 20_000 }).map(cents)),
      withholdingRate: fc.oneof(
        fc.constant(new Decimal(0)),
        fc.constantFrom(15, 25, 30).map((w) => new Decimal(w)),
        fc.integer({ min: 0, max: 6000 }).map(cents),
      ),
    }),
  );
}

export const arbitraryMonths = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 36 }) },
  { weight: 2, arbitrary: fc.constantFrom(12, 24, 36, 48, 60) },
  { weight: 1, arbitrary: fc.integer({ min: 37, max: 120 }) },
);

/** Amounts where regimes change hands: tier bounds and caps, a cent either side of them. */
export function edgeAmounts(terms: CalcTerms): Decimal[] {
  const levels = terms.tiers.flatMap((t) => [t.from, ...(t.to === null ? [] : [t.to])]);
  if (terms.promotion?.maxBalance) levels.push(terms.promotion.maxBalance);
  const out: Decimal[] = [];
  for (const level of levels)
    for (const d of ['-0.01', '0', '0.01']) {
      const a = level.plus(d);
      if (a.gt(0)) out.push(a);
    }
  return out;
}

export function arbitraryCase(options: TermsOptions = {}): fc.Arbitrary<CalcInput> {
  return arbitraryTerms(options).chain((terms) => {
    const edges = edgeAmounts(terms);
    const plain = fc.oneof(
      fc.integer({ min: 1, max: 100_000_000 }).map(cents), // 0.01 … 1,000,000.00
      fc.constantFrom(1_000, 10_000, 24_990, 25_000, 50_000, 100_000).map((a) => new Decimal(a)),
    );
    const amount =
      edges.length === 0
        ? plain
        : fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
    return fc.record({
      amount,
      months: arbitraryMonths,
      promotions: fc.constantFrom(...MODES),
      terms: fc.constant(terms),
    });
  });
}

export interface OfferCase {
  terms: CalcTerms;
  months: number;
  promotions: PromotionsMode;
  /** Several amounts for one offer, so that later ones meet the pieces earlier ones built. */
  amounts: Decimal[];
}

export function arbitraryOffer(options: TermsOptions = {}): fc.Arbitrary<OfferCase> {
  return arbitraryTerms(options).chain((terms) => {
    const edges = edgeAmounts(terms);
    const plain = fc
      .oneof(
        fc.integer({ min: 1, max: 100_000_000 }).map(cents),
        // near the bounds, where balances cross them through interest
        ...(edges.length === 0
          ? []
          : [
              fc
                .tuple(fc.constantFrom(...edges), fc.integer({ min: -500_000, max: 500_000 }))
                .map(([e, d]) => e.plus(cents(d))),
            ]),
      )
      .filter((a) => a.gt(0));
    const amount =
      edges.length === 0
        ? plain
        : fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
    return fc.record({
      terms: fc.constant(terms),
      months: arbitraryMonths,
      promotions: fc.constantFrom(...MODES),
      amounts: fc.array(amount, { minLength: 1, maxLength: 12 }),
    });
  });
}
