// An offer as clients see it (contract §5 OfferView): its attributes, the calculation for the
// requested amount and the DGS split. Absent values are null, never missing.
import type { CalcSummary } from '../../domain/types.js';
import type { IneligibleReason } from '../../catalog/pipeline.js';
import type { CatalogBrand, CatalogInstitution, CatalogOffer, ShownOffer } from '../../catalog/types.js';
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
    from: t.expose('from', {
      type: 'Decimal',
      description: euros('where the tier starts (inclusive)'),
    }),
    to: t.expose('to', {
      type: 'Decimal',
      nullable: true,
      description: euros('where the tier ends (exclusive); null for the last tier'),
    }),
    rate: t.expose('rate', {
      type: 'Decimal',
      description: perYear('the gross rate of the tier'),
    }),
  }),
});

export const PromotionRef = builder.objectRef<Shown<Promotion>>('Promotion').implement({
  description: 'A promotion for the first `months` months, on the balance up to maxBalance (all of it when null).',
  fields: (t) => ({
    kind: t.expose('kind', { type: PromotionKindEnum }),
    rate: t.expose('rate', {
      type: 'Decimal',
      description: perYear('bonus: added to the base rate; replace: paid instead of it'),
    }),
    months: t.exposeInt('months'),
    maxBalance: t.expose('maxBalance', {
      type: 'Decimal',
      nullable: true,
      description: euros('the part of the balance the promotion applies to; null: all of it'),
    }),
  }),
});

export const WithholdingRef = builder.objectRef<Shown<CatalogOffer['withholding']>>('Withholding').implement({
  fields: (t) => ({
    kind: t.expose('kind', { type: WithholdingKindEnum }),
    rate: t.expose('rate', {
      type: 'Decimal',
      nullable: true,
      description: `the tax kept back (applicable); ${UNIT.ofInterest}`,
    }),
    reducedRate: t.expose('reducedRate', {
      type: 'Decimal',
      nullable: true,
      description: `the tax kept back after the form (reducible); ${UNIT.ofInterest}`,
    }),
  }),
});

export const FreshnessRef = builder.objectRef<CatalogOffer['freshness']>('Freshness').implement({
  fields: (t) => ({
    checkedAt: t.expose('checkedAt', { type: 'DateTime' }),
    official: t.exposeBoolean('official', { description: 'from an official source' }),
    confirmed: t.exposeBoolean('confirmed'),
  }),
});

export const CalcStepRef = builder.objectRef<PresentedStep>('CalcStep').implement({
  description: 'One month of the calculation.',
  fields: (t) => ({
    month: t.exposeInt('month'),
    openingBalance: t.expose('openingBalance', {
      type: 'Decimal',
      description: euros('the balance at the start of the month'),
    }),
    rate: t.expose('rate', {
      type: 'Decimal',
      description: perYear("the month's interest × 1200 / opening balance"),
    }),
    interest: t.expose('interest', {
      type: 'Decimal',
      description: euros('interest accrued in the month'),
    }),
    credited: t.expose('credited', {
      type: 'Decimal',
      description: euros('interest credited at the end of the month (0 between creditings)'),
    }),
    withholding: t.expose('withholding', {
      type: 'Decimal',
      description: euros('tax kept back from what was credited'),
    }),
    closingBalance: t.expose('closingBalance', {
      type: 'Decimal',
      description: euros('the balance at the end of the month (interest paid out leaves it as it was)'),
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
    amount: t.expose('amount', { ...money('the amount calculated') }),
    months: t.exposeInt('months', {
      description: 'the horizon for flexible and notice accounts, the term for deposits',
    }),
    promotionApplied: t.exposeBoolean('promotionApplied'),
    nominalRate: t.expose('nominalRate', {
      ...rate("the rate this amount earns at the start (month 1's interest × 1200 / amount)"),
    }),
    grossInterest: t.expose('grossInterest', { ...money('all interest of the period') }),
    withholdingTax: t.expose('withholdingTax', { ...money('all withholding tax kept back') }),
    fees: t.expose('fees', { ...money('annual fee × months / 12') }),
    netInterest: t.expose('netInterest', { ...money('grossInterest − withholdingTax − fees') }),
    endBalance: t.expose('endBalance', { ...money('amount + netInterest') }),
    comparableYield: t.expose('comparableYield', {
      ...rate('the comparable annual yield (interest assumed to stay in)'),
    }),
    effectiveRate: t.expose('effectiveRate', {
      ...rate('the net effective annual rate, after tax and fees'),
    }),
    returnPerYear: t.expose('returnPerYear', { ...money('euros per year at the comparable yield') }),
    steps: t.expose('steps', {
      type: [CalcStepRef],
      description: 'one per month in the detail; empty in lists',
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
    limit: t.expose('limit', {
      type: 'Decimal',
      description: euros('what the scheme covers per depositor and institution'),
    }),
    verified: t.exposeBoolean('verified'),
    covered: t.expose('covered', {
      type: 'Decimal',
      description: euros('the part of the amount the scheme covers'),
    }),
    uncovered: t.expose('uncovered', {
      type: 'Decimal',
      description: euros('the part of the amount it does not'),
    }),
    coveredPercent: t.expose('coveredPercent', {
      type: 'Decimal',
      description: `covered / amount × 100; ${UNIT.ofAmount}`,
    }),
    fullyCovered: t.exposeBoolean('fullyCovered'),
    sharedWith: t.exposeStringList('sharedWith'),
  }),
});

/**
 * An Offer as GraphQL reads it: every field a property (a getter of the view), so that no field has a
 * resolver of its own. graphql-jit reads a field without one inline, in the code that builds the row;
 * a field with one is a call, a resolve info and a path of its own, per field and row: 30 a row, 1,500 a
 * list's page of 50, 600 a detail's offers. Made for each answer from its view, never kept.
 */
export class OfferRow {
  /** What a client sees of the calculation: made once (graphql-jit reads `calc` again for each of its fields). */
  #calc: PresentedCalc | undefined;
  constructor(readonly view: OfferView) {}
  get calc(): PresentedCalc {
    return (this.#calc ??= this.view.shown ?? presentCalc(this.view.calc));
  }
  get id(): string {
    return this.view.offer.id;
  }
  get name(): string {
    return this.view.offer.name;
  }
  get type(): CatalogOffer['type'] {
    return this.view.offer.type;
  }
  get brand(): CatalogOffer['brand'] {
    return this.view.offer.brand;
  }
  get institution(): CatalogOffer['institution'] {
    return this.view.offer.institution;
  }
  get channel(): CatalogOffer['channel'] {
    return this.view.offer.channel;
  }
  get platform(): string | null {
    return this.view.offer.platform;
  }
  get termMonths(): number | null {
    return this.view.offer.termMonths;
  }
  get noticeDays(): number | null {
    return this.view.offer.noticeDays;
  }
  get payout(): CatalogOffer['payout'] {
    return this.view.offer.payout;
  }
  get minAmount(): string {
    return this.view.offer.shown.minAmount;
  }
  get maxAmount(): string | null {
    return this.view.offer.shown.maxAmount;
  }
  get rateType(): CatalogOffer['rateType'] {
    return this.view.offer.rateType;
  }
  get headlineRate(): string {
    return this.view.offer.shown.headlineRate;
  }
  get tierMode(): CatalogOffer['tierMode'] {
    return this.view.offer.tierMode;
  }
  get tiers(): ShownOffer['tiers'] {
    return this.view.offer.shown.tiers;
  }
  get promotion(): ShownOffer['promotion'] {
    return this.view.offer.shown.promotion;
  }
  get openToNewCustomers(): boolean {
    return this.view.offer.openToNewCustomers;
  }
  get currentAccountRequired(): boolean {
    return this.view.offer.currentAccountRequired;
  }
  get annualFee(): string {
    return this.view.offer.shown.annualFee;
  }
  get earlyWithdrawal(): boolean {
    return this.view.offer.earlyWithdrawal;
  }
  get interestCompounds(): boolean {
    return this.view.offer.interestCompounds;
  }
  get withholding(): ShownOffer['withholding'] {
    return this.view.offer.shown.withholding;
  }
  get freshness(): CatalogOffer['freshness'] {
    return this.view.offer.freshness;
  }
  get sourceUrl(): string | null {
    return this.view.offer.sourceUrl;
  }
  get eligible(): boolean {
    return this.view.eligible;
  }
  get ineligibleReason(): IneligibleReason | null {
    return this.view.ineligibleReason;
  }
  get dgs(): DgsSplit {
    return this.view.dgs;
  }
}

export const offerRow = (view: OfferView): OfferRow => new OfferRow(view);

const decimalField = (description: string) => ({ type: 'Decimal' as const, description });

export const OfferRef = builder.objectRef<OfferRow>('Offer').implement({
  description: 'A savings offer calculated for the requested amount.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    type: t.expose('type', { type: OfferTypeEnum }),
    brand: t.expose('brand', { type: BrandSummaryRef }),
    institution: t.expose('institution', { type: InstitutionSummaryRef }),
    channel: t.expose('channel', { type: ChannelEnum }),
    platform: t.exposeString('platform', {
      nullable: true,
      description: 'the marketplace or platform selling it, if any',
    }),
    termMonths: t.exposeInt('termMonths', { nullable: true, description: 'deposits only' }),
    noticeDays: t.exposeInt('noticeDays', { nullable: true, description: 'notice accounts only' }),
    payout: t.expose('payout', { type: PayoutEnum }),
    minAmount: t.expose('minAmount', decimalField(euros('the smallest amount accepted'))),
    maxAmount: t.expose('maxAmount', {
      ...decimalField(euros('the largest amount accepted; null: no maximum')),
      nullable: true,
    }),
    rateType: t.expose('rateType', { type: RateTypeEnum }),
    headlineRate: t.expose('headlineRate', decimalField(perYear('the best rate advertised, gross'))),
    tierMode: t.expose('tierMode', { type: TierModeEnum }),
    tiers: t.expose('tiers', { type: [TierRef] }),
    promotion: t.expose('promotion', { type: PromotionRef, nullable: true }),
    openToNewCustomers: t.exposeBoolean('openToNewCustomers'),
    currentAccountRequired: t.exposeBoolean('currentAccountRequired'),
    annualFee: t.expose('annualFee', decimalField(euros('the fee charged each year'))),
    earlyWithdrawal: t.exposeBoolean('earlyWithdrawal', { description: 'deposits: can be ended early' }),
    interestCompounds: t.exposeBoolean('interestCompounds', {
      description: 'interest stays on the account (true) or is paid out (false)',
    }),
    withholding: t.expose('withholding', { type: WithholdingRef }),
    freshness: t.expose('freshness', { type: FreshnessRef }),
    sourceUrl: t.exposeString('sourceUrl', { nullable: true }),
    eligible: t.exposeBoolean('eligible', { description: 'whether the amount fits minAmount and maxAmount' }),
    ineligibleReason: t.expose('ineligibleReason', { type: IneligibleReasonEnum, nullable: true }),
    calc: t.expose('calc', { type: CalcRef }),
    dgs: t.expose('dgs', { type: DgsSplitRef }),
  }),
});
