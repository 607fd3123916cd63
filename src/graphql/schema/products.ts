// Query.products: the filtered, calculated, sorted and paged list (GET /api/products), with facets,
// term curve, per-type maxima and the market summary.
import {
  coreSteps,
  listSteps,
  pageSteps,
  type BestRate,
  type ListCore,
  type FacetValue,
  type MarketSummary,
  type ProductList,
  type TermPoint,
} from '../../catalog/pipeline.js';
import { listLane } from '../../catalog/lane.js';
import type { MarketBest } from '../../catalog/market.js';
import { PRODUCT_DEFAULTS, type ProductQuery } from '../../catalog/query.js';
import { Decimal } from '../../domain/decimal.js';
import type { Channel, OfferType, Payout, WithholdingKind } from '../../domain/types.js';
import { DEFAULTS, PARAMS } from '../args.js';
import { AS_OF_DESCRIPTION, methodField, viewAt } from '../as-of.js';
import { builder } from '../builder.js';
import {
  ChannelFilterEnum,
  PayoutEnum,
  SortKeyEnum,
  SortOrderEnum,
  TypeFilterEnum,
  WithholdingFilterEnum,
} from '../enums.js';
import { crossRules, filterArgs, filtersOf } from '../filter-args.js';
import { perYear } from '../scalars.js';
import { marketCategoryFields } from './market-fields.js';
import { OfferRef, offerRow } from './offer.js';

// A facet bucket carries its value as the filter argument takes it (contract §11.6): a value of the
// filter's own enum, a country code, or a term as Int, so any bucket can be passed straight back.
const bucket = { count: 'offers with this value that pass every other filter' } as const;
const TypeFacetRef = builder.objectRef<FacetValue>('TypeFacet').implement({
  fields: (t) => ({
    value: t.field({ type: TypeFilterEnum, resolve: (f) => f.value as OfferType }),
    count: t.exposeInt('count', { description: bucket.count }),
  }),
});
const ChannelFacetRef = builder.objectRef<FacetValue>('ChannelFacet').implement({
  fields: (t) => ({
    value: t.field({ type: ChannelFilterEnum, resolve: (f) => f.value as Channel }),
    count: t.exposeInt('count', { description: bucket.count }),
  }),
});
const CountryFacetRef = builder.objectRef<FacetValue>('CountryFacet').implement({
  fields: (t) => ({
    value: t.exposeString('value', { description: 'ISO 3166 alpha-2' }),
    count: t.exposeInt('count', { description: bucket.count }),
  }),
});
const PayoutFacetRef = builder.objectRef<FacetValue>('PayoutFacet').implement({
  fields: (t) => ({
    value: t.field({ type: PayoutEnum, resolve: (f) => f.value as Payout }),
    count: t.exposeInt('count', { description: bucket.count }),
  }),
});
const TermFacetRef = builder.objectRef<FacetValue>('TermFacet').implement({
  fields: (t) => ({
    value: t.int({ description: 'deposit term in months', resolve: (f) => Number(f.value) }),
    count: t.exposeInt('count', { description: bucket.count }),
  }),
});
const WithholdingFacetRef = builder.objectRef<FacetValue>('WithholdingFacet').implement({
  fields: (t) => ({
    value: t.field({ type: WithholdingFilterEnum, resolve: (f) => f.value as WithholdingKind }),
    count: t.exposeInt('count', { description: bucket.count }),
  }),
});

const FacetsRef = builder.objectRef<ProductList['facets']>('Facets').implement({
  description:
    'Counts per value over the offers that pass every other filter (each facet leaves its own filter out), ' +
    'sorted by value. Each value can be passed back as the filter of the same name.',
  fields: (t) => ({
    type: t.expose('type', { type: [TypeFacetRef] }),
    channel: t.expose('channel', { type: [ChannelFacetRef] }),
    country: t.expose('country', { type: [CountryFacetRef], description: "the brand's country" }),
    dgsCountry: t.expose('dgsCountry', { type: [CountryFacetRef] }),
    payout: t.expose('payout', { type: [PayoutFacetRef] }),
    term: t.expose('term', { type: [TermFacetRef], description: 'deposit terms in months (filter: terms)' }),
    withholding: t.expose('withholding', { type: [WithholdingFacetRef] }),
  }),
});

const TermPointRef = builder.objectRef<TermPoint>('TermCurvePoint').implement({
  fields: (t) => ({
    term: t.exposeInt('term'),
    rate: t.expose('rate', { type: 'Decimal', description: perYear('the best comparable yield for this term') }),
    offerId: t.exposeID('offerId'),
  }),
});

const BestRateRef = builder.objectRef<BestRate>('BestRate').implement({
  fields: (t) => ({
    rate: t.expose('rate', { type: 'Decimal', description: perYear('the best comparable yield') }),
    offerId: t.exposeID('offerId'),
  }),
});

const TypeMaxRef = builder.objectRef<ProductList['typeMax']>('TypeMax').implement({
  description: 'The best comparable yield per product type, over the same filters but the type.',
  fields: (t) => ({
    flexible: t.expose('flexible', { type: BestRateRef, nullable: true }),
    notice: t.expose('notice', { type: BestRateRef, nullable: true }),
    deposit: t.expose('deposit', { type: BestRateRef, nullable: true }),
  }),
});

export const MarketBestRef = builder.objectRef<MarketBest>('MarketBest').implement({
  description: 'The best headline rates of the latest day of the market view (verified DGS only).',
  fields: (t) => ({
    ...marketCategoryFields(t, (what) => `best headline rate of ${what}`),
  }),
});

const MarketSummaryRef = builder.objectRef<MarketSummary>('MarketSummary').implement({
  description: 'The whole market, whatever the filters.',
  fields: (t) => ({
    offers: t.exposeInt('offers', { description: 'active offers' }),
    institutions: t.exposeInt('institutions', { description: 'institutions with active offers' }),
    verifiedDgs: t.exposeInt('verifiedDgs', { description: 'of those, with a verified deposit guarantee' }),
    best: t.expose('best', { type: MarketBestRef }),
  }),
});

export const ProductListRef = builder.objectRef<ProductList>('ProductListResult').implement({
  fields: (t) => ({
    items: t.field({
      type: [OfferRef],
      description: 'the page; calc.steps is empty in lists',
      resolve: (l) => l.items.map(offerRow),
    }),
    total: t.exposeInt('total', { description: 'offers matching every filter' }),
    hiddenByDgs: t.exposeInt('hiddenByDgs', {
      description: 'offers hidden because a verified DGS does not cover the whole amount (fullDgs)',
    }),
    hiddenIneligible: t.exposeInt('hiddenIneligible', {
      description: 'offers hidden because the amount is below their minimum or above their maximum',
    }),
    facets: t.expose('facets', { type: FacetsRef }),
    termCurve: t.expose('termCurve', {
      type: [TermPointRef],
      description: 'deposits: the best comparable yield per term',
    }),
    typeMax: t.expose('typeMax', { type: TypeMaxRef }),
    market: t.expose('market', { type: MarketSummaryRef }),
    generatedAt: t.expose('generatedAt', {
      type: 'DateTime',
      description:
        'when the data last changed; for an answer that reads the clock (freshness=24h) the instant it was made ' +
        'for. asOf=generatedAt gives the same answer again',
    }),
    page: t.exposeInt('page', { description: 'this page (from 1)' }),
    pageSize: t.exposeInt('pageSize', { description: 'items per page' }),
    pages: t.exposeInt('pages', { description: 'pages that hold the total; at least 1' }),
    method: methodField(t),
  }),
});

const d = PRODUCT_DEFAULTS;
const NO_BEST: MarketBest = { flexible: null, notice: null, deposit12: null, deposit60: null };

/**
 * A kept list's core on the heap: a ranked row per matching offer (measured ≈70 bytes with its yields
 * shared), facets, curve and maxima.
 */
const coreBytes = (core: Pick<ListCore, 'total'>) => 4_096 + 96 * core.total;
/** A kept page: its core's rows too (it holds them while the core may have gone), and its whole calculations. */
const listBytes = (list: ProductList) => coreBytes(list) + 1_500 * list.items.length;

builder.queryField('products', (t) => {
  const {
    terms,
    termMin,
    termMax,
    channel,
    country,
    dgsCountry,
    withholding,
    promotions,
    newCustomers,
    payout,
    currentAccount,
    fees,
    earlyWithdrawal,
    noticeMax,
    freshness,
    brand,
    zoek,
  } = filterArgs(t.arg);
  return t.field({
    type: ProductListRef,
    description:
      'GET /api/products: every DGS-verified savings offer calculated for the amount, filtered, sorted and paged.',
    args: {
      amount: t.arg({
        type: 'Decimal',
        required: true,
        defaultValue: DEFAULTS.amount,
        description: 'amount in EUR used in every calculation',
        validate: { schema: PARAMS.amount },
      }),
      horizon: t.arg.int({
        required: true,
        defaultValue: DEFAULTS.horizon,
        description: 'months, for flexible and notice accounts',
        validate: { schema: PARAMS.horizon },
      }),
      type: t.arg({ type: TypeFilterEnum, required: true, defaultValue: d.type }),
      terms,
      termMin,
      termMax,
      channel,
      country,
      dgsCountry,
      fullDgs: t.arg.boolean({
        required: true,
        defaultValue: d.fullDgs,
        description: 'the entire amount must be covered by a verified DGS',
      }),
      withholding,
      promotions,
      newCustomers,
      payout,
      currentAccount,
      fees,
      earlyWithdrawal,
      noticeMax,
      freshness,
      includeIneligible: t.arg.boolean({
        required: true,
        defaultValue: d.includeIneligible,
        description: 'also return offers whose minimum/maximum does not fit the amount',
      }),
      sort: t.arg({ type: SortKeyEnum, required: true, defaultValue: d.sort }),
      brand,
      zoek,
      order: t.arg({
        type: SortOrderEnum,
        required: false,
        description:
          "default: the sort key's own direction (desc for return, effective, headline and verified; asc otherwise)",
      }),
      page: t.arg.int({ required: true, defaultValue: DEFAULTS.page, validate: { schema: PARAMS.page } }),
      pageSize: t.arg.int({
        required: true,
        defaultValue: DEFAULTS.productsPageSize,
        description: 'at most 500',
        validate: { schema: PARAMS.pageSize },
      }),
      asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }),
    },
    validate: crossRules(),
    resolve: async (_root, args, ctx, info) => {
      const { catalog, now } = await viewAt(ctx, args.asOf, info);
      const query: ProductQuery = {
        ...filtersOf(args),
        amount: new Decimal(args.amount),
        horizon: args.horizon,
        type: args.type,
        fullDgs: args.fullDgs,
        includeIneligible: args.includeIneligible,
        sort: args.sort,
        order: args.order ?? null,
        page: args.page,
        pageSize: args.pageSize,
      };
      // The list answers from memory even while the database is away: the market's best rates are then unknown.
      const marketBest = await ctx.services.database
        .track(() => ctx.services.market.best(catalog))
        .catch(() => NO_BEST);
      // In slices, between which the loop answers what else arrived (health, cached answers): a page of
      // 500 rows or a first list for a new horizon is a tenth of a second or more of calculation.
      const { calc } = ctx.services;
      const pipeline = { catalog, calc, marketBest, now };
      // freshness=24h reads the clock: made anew each time. Any other list follows from the catalogue,
      // the query and the market's best rates (the version's, or none while the database is away).
      if (query.freshness === '24h') return listLane.run(listSteps(pipeline, query));
      const prefix = marketBest === NO_BEST ? 'no-best|' : '';
      // Its pages share the rest: an export of 13,000 rows asks for 27 pages of 500, which each ranked
      // and sorted the whole market again.
      const core = () =>
        calc.kept(catalog, `${prefix}${JSON.stringify({ ...query, page: 0, pageSize: 0 })}`, coreBytes, () =>
          listLane.run(coreSteps(pipeline, query)),
        );
      return calc.kept(catalog, `${prefix}${JSON.stringify(query)}`, listBytes, async () =>
        listLane.run(pageSteps(await core(), calc, query)),
      );
    },
  });
});
