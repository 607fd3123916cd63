// Query.rateHistory and Query.marketHistory (GET /api/rates/history, its plan and market views).
import type { PlanItem } from '../../catalog/shapes.js';
import { pageCount } from '../../catalog/pipeline.js';
import type { MarketDay } from '../../catalog/market.js';
import { clientError, fromDatabase } from '../../request/errors.js';
import { DEFAULTS, PARAMS } from '../args.js';
import { AS_OF_DESCRIPTION, methodField, viewAt } from '../as-of.js';
import { builder } from '../builder.js';
import { HistoryTypeFilterEnum, RateTypeEnum, TierModeEnum } from '../enums.js';
import { perYear } from '../scalars.js';
import { marketCategoryFields } from './market-fields.js';
import { BrandSummaryRef, PromotionRef, TierRef } from './offer.js';

const PlanOfferRef = builder.objectRef<PlanItem['offer']>('RatePlanOffer').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    brand: t.expose('brand', { type: BrandSummaryRef }),
  }),
});

export const RatePlanRef = builder.objectRef<PlanItem>('RatePlan').implement({
  description:
    "One version of an offer's rates. Append-only: a new plan whenever anything about the rates changes; the " +
    'previous one gets validTo.',
  fields: (t) => ({
    id: t.id({ resolve: (p) => String(p.id) }),
    offerId: t.exposeID('offerId'),
    offer: t.expose('offer', { type: PlanOfferRef }),
    validFrom: t.expose('validFrom', { type: 'DateTime' }),
    validTo: t.expose('validTo', { type: 'DateTime', nullable: true, description: 'null for the current plan' }),
    observedAt: t.expose('observedAt', { type: 'DateTime' }),
    headlineRate: t.expose('headlineRate', {
      type: 'Decimal',
      description: perYear('the best rate advertised, gross'),
    }),
    rateType: t.expose('rateType', { type: RateTypeEnum }),
    tierMode: t.expose('tierMode', { type: TierModeEnum }),
    tiers: t.expose('tiers', { type: [TierRef] }),
    promotion: t.expose('promotion', { type: PromotionRef, nullable: true }),
    sourceId: t.exposeID('sourceId'),
  }),
});

interface PlanPage {
  items: PlanItem[];
  total: number;
  page: number;
  pageSize: number;
  pages: number;
}

const RatePlanPageRef = builder.objectRef<PlanPage>('RatePlanPage').implement({
  description: 'Rate plans, newest first. For one offer: its newest `limit` plans as page 1.',
  fields: (t) => ({
    items: t.expose('items', { type: [RatePlanRef] }),
    total: t.exposeInt('total'),
    page: t.exposeInt('page'),
    pageSize: t.exposeInt('pageSize'),
    pages: t.exposeInt('pages', { description: 'pages that hold the total (listing; for one offer: 1)' }),
    method: methodField(t),
  }),
});

builder.queryField('rateHistory', (t) =>
  t.field({
    type: RatePlanPageRef,
    description:
      "GET /api/rates/history: with offerId, that offer's append-only plan history; without, every historic " +
      'plan, newest first, filtered by brand and type, paged.',
    args: {
      offerId: t.arg.id({ required: false, validate: { schema: PARAMS.offerId } }),
      limit: t.arg.int({
        required: true,
        defaultValue: DEFAULTS.historyLimit,
        description: 'maximum plans for one offer (at most 500)',
        validate: { schema: PARAMS.limit },
      }),
      brand: t.arg.id({ required: false, description: 'brand id (listing)', validate: { schema: PARAMS.brand } }),
      type: t.arg({ type: HistoryTypeFilterEnum, required: true, defaultValue: 'all', description: 'listing' }),
      page: t.arg.int({ required: true, defaultValue: DEFAULTS.page, validate: { schema: PARAMS.page } }),
      pageSize: t.arg.int({
        required: true,
        defaultValue: DEFAULTS.historyPageSize,
        description: 'at most 500 (listing)',
        validate: { schema: PARAMS.pageSize },
      }),
      asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }),
    },
    resolve: async (_root, args, ctx, info) => {
      const { catalog, loaders } = await viewAt(ctx, args.asOf, info);
      const offerId = args.offerId ?? null;
      if (offerId !== null) {
        if (!catalog.byId.has(offerId) && !catalog.removed.has(offerId))
          throw clientError('NOT_FOUND', `no offer with id "${offerId}"`);
        const plans = await fromDatabase(ctx.services.database, () => loaders.plans.load(offerId));
        return { items: plans.slice(0, args.limit), total: plans.length, page: 1, pageSize: args.limit, pages: 1 };
      }
      const page = await fromDatabase(ctx.services.database, () =>
        loaders.planPage({ brand: args.brand ?? null, type: args.type, page: args.page, pageSize: args.pageSize }),
      );
      return { ...page, page: args.page, pageSize: args.pageSize, pages: pageCount(page.total, args.pageSize) };
    },
  }),
);

const MarketDayRef = builder.objectRef<MarketDay>('MarketDay').implement({
  description:
    'The best headline rate per product type at the end of a day, across offers whose institution had a verified DGS.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date' }),
    ...marketCategoryFields(t, (what) => what),
  }),
});

const MarketHistoryRef = builder.objectRef<{ items: MarketDay[] }>('MarketHistory').implement({
  fields: (t) => ({
    items: t.expose('items', {
      type: [MarketDayRef],
      description: 'oldest day first, ending with the day of the newest data',
    }),
    method: methodField(t),
  }),
});

builder.queryField('marketHistory', (t) =>
  t.field({
    type: MarketHistoryRef,
    description:
      'GET /api/rates/history?view=market: the best headline rate per day and product type over the last `days` days.',
    args: {
      days: t.arg.int({
        required: true,
        defaultValue: DEFAULTS.days,
        description: 'at most 3650',
        validate: { schema: PARAMS.days },
      }),
      asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }),
    },
    resolve: async (_root, args, ctx, info) => {
      const { catalog } = await viewAt(ctx, args.asOf, info);
      return { items: await fromDatabase(ctx.services.database, () => ctx.services.market.days(catalog, args.days)) };
    },
  }),
);
