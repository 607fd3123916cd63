// GET /api/health: Query.health, answered 200 when ok and 503 when degraded; never reused.
import { schema } from '../../graphql/schema/index.js';
import { CACHE_CONTROL } from '../../http/layer.js';
import { PATHS } from '../../request/paths.js';
import { sofaProjection } from '../projection.js';
import { json, type RestRoute } from '../route.js';

const operation = sofaProjection(schema)('health');

export const healthRoute: RestRoute = {
  path: PATHS.health,
  exemptFromRateLimit: true,
  operationId: 'getHealth',
  tag: 'Service',
  summary: 'Liveness and readiness',
  description:
    '200 when ok; 503 when degraded: the database does not answer, or the data is older than the configured ' +
    'maximum age.',
  params: [],
  cache: { control: CACHE_CONTROL.health, reuse: 'never' },
  body: { json: 'Health' },
  readsDatabase: true,
  async handle({ variables, run }) {
    const { health } = await run<{ health: { status: string } }>(operation, variables);
    return json(health, {
      status: health.status === 'ok' ? 200 : 503,
      headers: { 'cache-control': CACHE_CONTROL.health },
    });
  },
};
