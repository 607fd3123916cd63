// GET /api/rates/history: Query.rateHistory (one offer's plans, or every plan paged), or with
// view=market Query.marketHistory. One REST path for two root fields, chosen by `view`.
import { GraphQLEnumType, type GraphQLArgument } from 'graphql';
import { schema } from '../../graphql/schema/index.js';
import { queryParams, type ParamSpec } from '../params.js';
import { sofaProjection } from '../projection.js';
import { DATA, json, pagedJson, type RestRoute } from '../route.js';

const project = sofaProjection(schema);
const plans = project('rateHistory');
const market = project('marketHistory');

/** REST-only: which view of /api/rates/history. */
const RateHistoryView = new GraphQLEnumType({
  name: 'RateHistoryView',
  values: { PLANS: { value: 'plans' }, MARKET: { value: 'market' } },
});

const viewParam: ParamSpec = {
  name: 'view',
  in: 'query',
  arg: {
    name: 'view',
    type: RateHistoryView,
    defaultValue: 'plans',
    description:
      'plans: rate plans (of one offer with offerId, or all of them, paged); market: the best headline rate ' +
      'per day and type',
  } as unknown as GraphQLArgument,
  base: RateHistoryView,
  list: false,
};

const planParams = queryParams('rateHistory');

export const historyRoute: RestRoute = {
  path: '/api/rates/history',
  operationId: 'getRateHistory',
  tag: 'Market',
  summary: 'Rate history',
  description:
    'With offerId: the append-only rate-plan history of that offer. Without: every historic rate plan, newest ' +
    'first, filterable by brand and type, paged. With view=market: per day, the best headline rate per ' +
    'product type over the last `days` days, across offers whose institution has a verified DGS.',
  // rateHistory's parameters, then marketHistory's days, then the view that chooses between them
  params: [...planParams, ...queryParams('marketHistory').filter((p) => p.name !== 'asOf'), viewParam],
  cache: DATA,
  body: { jsonOneOf: ['RatePlanPage', 'MarketHistory'] },
  readsDatabase: true,
  notFound: 'Unknown offerId',
  paged: true,
  async handle({ variables, run }) {
    if (variables.view === 'MARKET') {
      const data = await run<{ marketHistory: unknown }>(market, { days: variables.days, asOf: variables.asOf });
      return json(data.marketHistory);
    }
    const own = Object.fromEntries(
      planParams.filter((p) => p.name in variables).map((p) => [p.name, variables[p.name]]),
    );
    const data = await run<{ rateHistory: { page: number; pages: number } }>(plans, own);
    // One offer's plans are its newest `limit`, not a page of a longer list.
    return variables.offerId ? json(data.rateHistory) : pagedJson(data.rateHistory);
  },
};
