// GET /api/meta/last-updated: the value of Query.meta.
import { schema } from '../../graphql/schema/index.js';
import { queryParams } from '../params.js';
import { sofaProjection } from '../projection.js';
import { DATA, json, type RestRoute } from '../route.js';

const operation = sofaProjection(schema)('meta');

export const metaRoute: RestRoute = {
  path: '/api/meta/last-updated',
  operationId: 'getLastUpdated',
  tag: 'Service',
  summary: 'Freshness and source health',
  description:
    'When the data last changed, the newest ingest, offer counts by freshness and the health of every source.',
  params: queryParams('meta'),
  // Staleness and "checked in the last 24 hours" depend on the clock.
  cache: { ...DATA, reuse: 'minute' },
  body: { json: 'MetaSummary' },
  readsDatabase: false,
  async handle({ variables, run }) {
    const data = await run<{ meta: unknown }>(operation, variables);
    return json(data.meta);
  },
};
