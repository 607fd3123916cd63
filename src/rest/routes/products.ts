// GET /api/products: the list, as the value of Query.products.
import { schema } from '../../graphql/schema/index.js';
import { queryParams } from '../params.js';
import { sofaProjection } from '../projection.js';
import { DATA, pagedJson, type RestRoute } from '../route.js';

const operation = sofaProjection(schema)('products');

export const productsRoute: RestRoute = {
  path: '/api/products',
  operationId: 'listProducts',
  tag: 'Offers',
  summary: 'Savings offers calculated for an amount',
  description:
    'A filtered, calculated and sorted list of DGS-verified savings offers, paged, with facets, term curve, ' +
    'per-type maxima and a market summary.',
  params: queryParams('products'),
  // freshness=24h depends on the clock: such a list is reused for a minute at most.
  cache: { ...DATA, reuse: (variables) => (variables.freshness === 'LAST_24H' ? 'minute' : 'version') },
  body: { json: 'ProductListResult' },
  readsDatabase: false,
  paged: true,
  async handle({ variables, run }) {
    const data = await run<{ products: { page: number; pages: number } }>(operation, variables);
    return pagedJson(data.products);
  },
};
