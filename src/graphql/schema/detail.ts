// Query.product (GET /api/products/{id}) and Query.offers (a batch of details): an offer with its
// monthly steps, rate history, sources, events and the other offers under the same licence.
import { DETAIL_LIMIT } from '../loaders.js';
import { offerResult, offerStanding, splitsAt } from '../../catalog/pipeline.js';
import type { CatalogOffer, CatalogSource } from '../../catalog/types.js';
import { Decimal } from '../../domain/decimal.js';
import { clientError } from '../../request/errors.js';
import { DEFAULTS, PARAMS } from '../args.js';
import { AS_OF_DESCRIPTION, methodField, viewAt, type View } from '../as-of.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { ChangeEventRef, withImpacts } from './changes.js';
import { RatePlanRef } from './history.js';
import { SourceRef } from './meta.js';
import { OfferRef, offerRow, type OfferView } from './offer.js';

interface DetailSource {
  offer: CatalogOffer;
  view: OfferView;
  amount: Decimal;
  horizon: number;
  /** The version (and its reads) the detail answers from: the present, or asOf's. */
  at: View;
}

const AMOUNT = 'the amount to calculate, in euros (more than 0, at most 1000000000, at most two decimals)';
const HORIZON = 'months, for flexible and notice accounts (1–600; deposits run for their term)';

const query = (amount: Decimal, horizon: number) => ({ amount, horizon, promotions: 'include' as const });

export const OfferDetailRef = builder.objectRef<DetailSource>('OfferDetail').implement({
  fields: (t) => ({
    offer: t.field({
      type: OfferRef,
      description: 'with the monthly steps of the calculation',
      resolve: (d) => offerRow(d.view),
    }),
    history: t.field({
      type: [RatePlanRef],
      nullable: true,
      description:
        'rate plans, newest first (at most 100); null while the database is unreachable (the offer itself is ' +
        'answered from memory)',
      resolve: (d) =>
        d.at.loaders.plans.load(d.offer.id).then(
          (plans) => plans.slice(0, DETAIL_LIMIT),
          () => null,
        ),
    }),
    sources: t.field({
      type: [SourceRef],
      description: 'the sources of the offer and of its rate plans',
      resolve: async (d) => {
        const plans = (await d.at.loaders.plans.load(d.offer.id).catch(() => null)) ?? [];
        const ids = [...new Set([d.offer.sourceId, ...plans.map((p) => p.sourceId)])].sort();
        // As the version knew them (its state holds every source).
        const known = new Map(d.at.catalog.sources.map((s) => [s.id, s]));
        return ids.map((id) => known.get(id) ?? null).filter((s): s is CatalogSource => s !== null);
      },
    }),
    events: t.field({
      type: [ChangeEventRef],
      nullable: true,
      description:
        'changes of this offer and of its institution, newest first (at most 100), rate changes with their ' +
        'impact for the amount and horizon; null while the database is unreachable',
      resolve: (d, _args, ctx) =>
        d.at.loaders.events
          .load({ id: d.offer.id, institutionId: d.offer.institution.id })
          .then((events) => withImpacts(ctx, d.at.loaders, events, d.amount, d.horizon))
          .catch(() => null),
    }),
    sameLicence: t.field({
      type: [OfferRef],
      description: "the institution's other active offers, for the same amount and horizon (they share one DGS limit)",
      resolve: (d, _args, ctx) => {
        // one institution: one DGS split's figures for all of them
        const split = splitsAt(d.amount);
        return (d.at.catalog.offersByInstitution.get(d.offer.institution.id) ?? [])
          .filter((o) => o.id !== d.offer.id)
          .map((o) => offerRow(offerResult(ctx.services.calc, query(d.amount, d.horizon), o, split)));
      },
    }),
    method: methodField(t),
  }),
});

function detail(ctx: Context, at: View, id: string, amount: Decimal, horizon: number): DetailSource {
  const offer = at.catalog.byId.get(id);
  if (!offer) {
    const removed = at.catalog.removed.get(id);
    throw removed !== undefined
      ? clientError(
          'NOT_FOUND',
          `offer "${id}" is no longer offered` +
            `${removed ? ` (removed ${removed.toISOString().slice(0, 10)})` : ''}; its history remains at ` +
            `/api/rates/history?offerId=${encodeURIComponent(id)}`,
        )
      : clientError('NOT_FOUND', `no offer with id "${id}"`);
  }
  // The offer with its monthly steps: the reference loop's calculation, not a list row's (no `shown`).
  const view = {
    offer,
    ...offerStanding(amount, offer),
    calc: ctx.services.calc.full(offer, amount, horizon, 'include'),
  };
  return { offer, amount, horizon, view, at };
}

/** The amount and horizon a detail is calculated for (contract: 50000 and 12 unless given). */
const calculatedFor = builder.args((t) => ({
  amount: t.field({
    type: 'Decimal',
    required: true,
    defaultValue: DEFAULTS.amount,
    description: AMOUNT,
    validate: { schema: PARAMS.amount },
  }),
  horizon: t.int({
    required: true,
    defaultValue: DEFAULTS.horizon,
    description: HORIZON,
    validate: { schema: PARAMS.horizon },
  }),
  asOf: t.field({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }),
}));

builder.queryField('product', (t) =>
  t.field({
    type: OfferDetailRef,
    nullable: true,
    description: 'GET /api/products/{id}: one offer in detail. Null, with a NOT_FOUND error, for an unknown id.',
    args: {
      id: t.arg.id({ required: true, validate: { schema: PARAMS.id } }),
      ...calculatedFor,
    },
    resolve: async (_root, args, ctx, info) =>
      detail(ctx, await viewAt(ctx, args.asOf, info), String(args.id), new Decimal(args.amount), args.horizon),
  }),
);

builder.queryField('offers', (t) =>
  t.field({
    type: [OfferDetailRef],
    nullable: { list: false, items: true },
    description:
      'Several offers in detail at once (at most 100 ids); an unknown id gives null with a NOT_FOUND error at ' +
      'its position.',
    args: {
      ids: t.arg.idList({ required: true, validate: { schema: PARAMS.ids } }),
      ...calculatedFor,
    },
    resolve: async (_root, args, ctx, info) => {
      const at = await viewAt(ctx, args.asOf, info);
      return args.ids.map((id) => {
        try {
          return detail(ctx, at, String(id), new Decimal(args.amount), args.horizon);
        } catch (err) {
          return err as Error; // graphql-js turns an Error in a list into null plus an error at that index
        }
      }) as DetailSource[];
    },
  }),
);
