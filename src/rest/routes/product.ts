// GET /api/products/{id}: one offer in detail, as the value of Query.product.
import { schema } from '../../graphql/schema/index.js';
import { queryParams } from '../params.js';
import { sofaProjection } from '../projection.js';
import { DATA, json, type RestRoute } from '../route.js';

const operation = sofaProjection(schema)('product');

export const productRoute: RestRoute = {
  path: '/api/products/{id}',
  operationId: 'getProduct',
  tag: 'Offers',
  summary: 'One offer in detail',
  description:
    'The offer with the monthly steps of its calculation, its rate history, sources, events and the other ' +
    'offers under the same licence. Without amount the detail uses 50000, without horizon 12.',
  params: queryParams('product', ['id']),
  cache: DATA,
  body: { json: 'OfferDetail' },
  // The offer itself is answered from memory; history and events are null while the database is away.
  readsDatabase: false,
  notFound: 'No offer with this id (or it is no longer offered: its history remains at /api/rates/history?offerId=…)',
  async handle({ variables, run }) {
    const data = await run<{ product: unknown }>(operation, variables);
    return json(data.product);
  },
};
