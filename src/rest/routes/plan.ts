// GET /api/plan: the savings plan, as the value of Query.plan.
import { schema } from '../../graphql/schema/index.js';
import { queryParams } from '../params.js';
import { sofaProjection } from '../projection.js';
import { DATA, json, type RestRoute } from '../route.js';

const operation = sofaProjection(schema)('plan');

export const planRoute: RestRoute = {
  path: '/api/plan',
  operationId: 'getSavingsPlan',
  tag: 'Offers',
  summary: 'A savings plan: an amount spread over offers for the best fully covered return',
  description:
    'Spreads `amount` over at most `maxOffers` of the offers the list shows ' +
    'for the same filters (verified DGS only), so that every part is fully ' +
    "covered by its institution's deposit guarantee (the parts at one institution, " +
    'all its brands together, within its limit), each part lies within its ' +
    "offer's minimum and maximum, `flexibleShare` percent stays in flexible " +
    'accounts, and the total return (`sort`: return or effective) is the highest ' +
    'possible. Each part is an offer calculated for its own amount; `unplacedReason` ' +
    'says why a rest cannot be placed. The method: /api/docs/calculation.',
  params: queryParams('plan'),
  // freshness=24h depends on the clock: such a plan is reused for a minute at most.
  cache: { ...DATA, reuse: (variables) => (variables.freshness === 'LAST_24H' ? 'minute' : 'version') },
  body: { json: 'SavingsPlan' },
  readsDatabase: false,
  async handle({ variables, run }) {
    const data = await run<{ plan: unknown }>(operation, variables);
    return json(data.plan);
  },
};
