// An offer as clients see it (contract §5 OfferView): its attributes, the calculation for the
// requested amount and the DGS split. Absent values are null, never missing.
import type { CalcSummary } from '../../domain/types.js';
import type { IneligibleReason } from '../../catalog/pipeline.js';
import type { CatalogBrand, CatalogInstitution, CatalogOffer } from '../../catalog/types.js';
import type { Decimal } from '../../domain/decimal.js';
import { presentCalc, type PresentedCalc, type PresentedStep } from '../../domain/present.js';
import type { CalcResult, DgsSplit, Promotion, Tier } from '../../domain/types.js';
import { builder } from '../builder.js';
import {
  ChannelEnum,
  IneligibleReasonEnum,
  OfferTypeEnum,
  PayoutEnum,
  PromotionKindEnum,
  RateTypeEnum,
  TierModeEnum,
  WithholdingKindEnum,
} from '../enums.js';
import { euros, perYear, UNIT } from '../scalars.js';

/** What an Offer resolves from: a catalogue offer with its calculation for one request. */
export interface OfferView {
  offer: CatalogOffer;
  /** With monthly steps in the detail, without in lists. */
  calc: CalcSummary | CalcResult;
  /** What a client sees of `calc`, where already known (a list's rows: src/catalog/pipeline.ts withCalc). */
  shown?: PresentedCalc | null;
  dgs: DgsSplit;
  eligible: boolean;
  ineligibleReason: IneligibleReason | null;
}

export const BrandSummaryRef = builder
  .objectRef<Pick<CatalogBrand, 'id' | 'name' | 'country'>>('BrandSummary')
  .implement({
    description: 'A brand: the name the public sees.',
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      country: t.exposeString('country', { description: 'ISO 3166 alpha-2' }),
    }),
  });

export const InstitutionSummaryRef = builder
  .objectRef<Pick<CatalogInstitution, 'id' | 'name' | 'country'>>('InstitutionSummary')
  .implement({
    description: 'The legal, licensed institution behind a brand.',
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      country: t.exposeString('country', { description: 'ISO 3166 alpha-2' }),
    }),
  });

/** Decimals arrive as Decimal (history) or as text already formatted (the catalogue): the scalar takes both. */
type Shown<T> = {
  [K in keyof T]: T[K] extends Decimal
    ? Decimal | string
    : T[K] extends Decimal | null
      ? Decimal | string | null
      : T[K];
};

export const TierRef = builder.objectRef<Shown<Tier>>('Tier').implement({
  description: 'A balance band and its rate: from inclusive, to exclusive (null for the last tier).',
  fields: (t) => ({
    from: t.field({
      type: 'Decimal',
      description: euros('where the tier starts (inclusive)'),
      resolve: (tier) => tier.from,
    }),
    to: t.field({
      type: 'Decimal',
      nullable: true,
      description: euros('where the tier ends (exclusive); null for the last tier'),
      resolve: (tier) => tier.to,
    }),
    rate: t.field({
      type: 'Decimal',
      description: perYear('the gross rate of the tier'),
      resolve: (tier) => tier.rate,
    }),
  }),
});

export const PromotionRef = builder.objectRef<Shown<Promotion>>('Promotion').implement({
  description: 'A promotion for the first `months` months, on the balance up to maxBalance (all of it when null).',
  fields: (t) => ({
    kind: t.field({ type: PromotionKindEnum, resolve: (p) => p.kind }),
    rate: t.field({
      type: 'Decimal',
      description: perYear('bonus: added to the base rate; replace: paid instead of it'),
      resolve: (p) => p.rate,
    }),
    months: t.exposeInt('months'),
    maxBalance: t.field({
      type: 'Decimal',
      nullable: true,
      description: euros('the part of the balance the promotion applies to; null: all of it'),
      resolve: (p) => p.maxBalance,
    }),
  }),
});

export const WithholdingRef = builder.objectRef<Shown<CatalogOffer['withholding']>>('Withholding').implement({
  fields: (t) => ({
    kind: t.field({ type: WithholdingKindEnum, resolve: (w) => w.kind }),
    rate: t.field({
      type: 'Decimal',
      nullable: true,
      description: `the tax kept back (applicable); ${UNIT.ofInterest}`,
      resolve: (w) => w.rate,
    }),
    reducedRate: t.field({
      type: 'Decimal',
      nullable: true,
      description: `the tax kept back after the form (reducible); ${UNIT.ofInterest}`,
      resolve: (w) => w.reducedRate,
    }),
  }),
});

export const FreshnessRef = builder.objectRef<CatalogOffer['freshness']>('Freshness').implement({
  fields: (t) => ({
    checkedAt: t.field({ type: 'DateTime', resolve: (f) => f.checkedAt }),
    official: t.exposeBoolean('official', { description: 'from an official source' }),
    confirmed: t.exposeBoolean('confirmed'),
  }),
});

export const CalcStepRef = builder.objectRef<PresentedStep>('CalcStep').implement({
  description: 'One month of the calculation.',
  fields: (t) => ({
    month: t.exposeInt('month'),
    openingBalance: t.field({
      type: 'Decimal',
      description: euros('the balance at the start of the month'),
      resolve: (s) => s.openingBalance,
    }),
    rate: t.field({
      type: 'Decimal',
      description: perYear("the month's interest × 1200 / opening balance"),
      resolve: (s) => s.rate,
    }),
    interest: t.field({
      type: 'Decimal',
      description: euros('interest accrued in the month'),
      resolve: (s) => s.interest,
    }),
    credited: t.field({
      type: 'Decimal',
      description: euros('interest credited at the end of the month (0 between creditings)'),
      resolve: (s) => s.credited,
    }),
    withholding: t.field({
      type: 'Decimal',
      description: euros('tax kept back from what was credited'),
      resolve: (s) => s.withholding,
    }),
    closingBalance: t.field({
      type: 'Decimal',
      description: euros('the balance at the end of the month (interest paid out leaves it as it was)'),
      resolve: (s) => s.closingBalance,
    }),
  }),
});

/** Where the calculation is explained (served by the REST facade from docs/calculation.md). */
export const CALCULATION_PATH = '/api/docs/calculation';

const money = (description: string) => ({ type: 'Decimal' as const, description: euros(description) });
const rate = (description: string) => ({ type: 'Decimal' as const, description: perYear(description) });

export const CalcRef = builder.objectRef<PresentedCalc>('Calc').implement({
  description:
    `What the offer earns on the amount over the period, explained at ${CALCULATION_PATH} (contract §2). Each ` +
    `value rounded once, half-up; net and end balance are exact sums of the values shown.`,
  fields: (t) => ({
    amount: t.field({ ...money('the amount calculated'), resolve: (c) => c.amount }),
    months: t.exposeInt('months', {
      description: 'the horizon for flexible and notice accounts, the term for deposits',
    }),
    promotionApplied: t.exposeBoolean('promotionApplied'),
    nominalRate: t.field({
      ...rate("the rate this amount earns at the start (month 1's interest × 1200 / amount)"),
      resolve: (c) => c.nominalRate,
    }),
    grossInterest: t.field({ ...money('all interest of the period'), resolve: (c) => c.grossInterest }),
    withholdingTax: t.field({ ...money('all withholding tax kept back'), resolve: (c) => c.withholdingTax }),
    fees: t.field({ ...money('annual fee × months / 12'), resolve: (c) => c.fees }),
    netInterest: t.field({ ...money('grossInterest − withholdingTax − fees'), resolve: (c) => c.netInterest }),
    endBalance: t.field({ ...money('amount + netInterest'), resolve: (c) => c.endBalance }),
    comparableYield: t.field({
      ...rate('the comparable annual yield (interest assumed to stay in)'),
      resolve: (c) => c.comparableYield,
    }),
    effectiveRate: t.field({
      ...rate('the net effective annual rate, after tax and fees'),
      resolve: (c) => c.effectiveRate,
    }),
    returnPerYear: t.field({ ...money('euros per year at the comparable yield'), resolve: (c) => c.returnPerYear }),
    steps: t.field({
      type: [CalcStepRef],
      description: 'one per month in the detail; empty in lists',
      resolve: (c) => c.steps,
    }),
  }),
});

export const DgsSplitRef = builder.objectRef<DgsSplit>('DgsSplit').implement({
  description:
    'How much of the amount the deposit guarantee scheme covers. The limit is per institution: sharedWith ' +
    'names its other brands.',
  fields: (t) => ({
    scheme: t.exposeString('scheme'),
    country: t.exposeString('country'),
    limit: t.field({
      type: 'Decimal',
      description: euros('what the scheme covers per depositor and institution'),
      resolve: (d) => d.limit,
    }),
    verified: t.exposeBoolean('verified'),
    covered: t.field({
      type: 'Decimal',
      description: euros('the part of the amount the scheme covers'),
      resolve: (d) => d.covered,
    }),
    uncovered: t.field({
      type: 'Decimal',
      description: euros('the part of the amount it does not'),
      resolve: (d) => d.uncovered,
    }),
    coveredPercent: t.field({
      type: 'Decimal',
      description: `covered / amount × 100; ${UNIT.ofAmount}`,
      resolve: (d) => d.coveredPercent,
    }),
    fullyCovered: t.exposeBoolean('fullyCovered'),
    sharedWith: t.exposeStringList('sharedWith'),
  }),
});

const attr =
  <T>(pick: (o: CatalogOffer) => T) =>
  (view: OfferView) =>
    pick(view.offer);
const decimal = (description: string, pick: (o: CatalogOffer) => Decimal | string) => ({
  type: 'Decimal' as const,
  description,
  resolve: attr(pick),
});
const optionalDecimal = (description: string, pick: (o: CatalogOffer) => Decimal | string | null) => ({
  type: 'Decimal' as const,
  nullable: true as const,
  description,
  resolve: attr(pick),
});

export const OfferRef = builder.objectRef<OfferView>('Offer').implement({
  description: 'A savings offer calculated for the requested amount.',
  fields: (t) => ({
    id: t.id({ resolve: attr((o) => o.id) }),
    name: t.string({ resolve: attr((o) => o.name) }),
    type: t.field({ type: OfferTypeEnum, resolve: attr((o) => o.type) }),
    brand: t.field({ type: BrandSummaryRef, resolve: attr((o) => o.brand) }),
    institution: t.field({ type: InstitutionSummaryRef, resolve: attr((o) => o.institution) }),
    channel: t.field({ type: ChannelEnum, resolve: attr((o) => o.channel) }),
    platform: t.string({
      nullable: true,
      description: 'the marketplace or platform selling it, if any',
      resolve: attr((o) => o.platform),
    }),
    termMonths: t.int({ nullable: true, description: 'deposits only', resolve: attr((o) => o.termMonths) }),
    noticeDays: t.int({ nullable: true, description: 'notice accounts only', resolve: attr((o) => o.noticeDays) }),
    payout: t.field({ type: PayoutEnum, resolve: attr((o) => o.payout) }),
    minAmount: t.field(decimal(euros('the smallest amount accepted'), (o) => o.shown.minAmount)),
    maxAmount: t.field(
      optionalDecimal(euros('the largest amount accepted; null: no maximum'), (o) => o.shown.maxAmount),
    ),
    rateType: t.field({ type: RateTypeEnum, resolve: attr((o) => o.rateType) }),
    headlineRate: t.field(decimal(perYear('the best rate advertised, gross'), (o) => o.shown.headlineRate)),
    tierMode: t.field({ type: TierModeEnum, resolve: attr((o) => o.tierMode) }),
    tiers: t.field({ type: [TierRef], resolve: attr((o) => o.shown.tiers) }),
    promotion: t.field({ type: PromotionRef, nullable: true, resolve: attr((o) => o.shown.promotion) }),
    openToNewCustomers: t.boolean({ resolve: attr((o) => o.openToNewCustomers) }),
    currentAccountRequired: t.boolean({ resolve: attr((o) => o.currentAccountRequired) }),
    annualFee: t.field(decimal(euros('the fee charged each year'), (o) => o.shown.annualFee)),
    earlyWithdrawal: t.boolean({
      description: 'deposits: can be ended early',
      resolve: attr((o) => o.earlyWithdrawal),
    }),
    interestCompounds: t.boolean({
      description: 'interest stays on the account (true) or is paid out (false)',
      resolve: attr((o) => o.interestCompounds),
    }),
    withholding: t.field({ type: WithholdingRef, resolve: attr((o) => o.shown.withholding) }),
    freshness: t.field({ type: FreshnessRef, resolve: attr((o) => o.freshness) }),
    sourceUrl: t.string({ nullable: true, resolve: attr((o) => o.sourceUrl) }),
    eligible: t.boolean({ description: 'whether the amount fits minAmount and maxAmount', resolve: (v) => v.eligible }),
    ineligibleReason: t.field({ type: IneligibleReasonEnum, nullable: true, resolve: (v) => v.ineligibleReason }),
    calc: t.field({ type: CalcRef, resolve: (v) => v.shown ?? presentCalc(v.calc) }),
    dgs: t.field({ type: DgsSplitRef, resolve: (v) => v.dgs }),
  }),
});
