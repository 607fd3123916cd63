// GET /api/changes: the value of Query.changes.
import { schema } from '../../graphql/schema/index.js';
import { queryParams } from '../params.js';
import { sofaProjection } from '../projection.js';
import { DATA, json, type RestRoute } from '../route.js';

const operation = sofaProjection(schema)('changes');

export const changesRoute: RestRoute = {
  path: '/api/changes',
  operationId: 'listChanges',
  tag: 'Market',
  summary: 'Recent change events',
  description: 'Rate up and down, promotion start and end, new and removed offers, DGS changes; newest first.',
  params: queryParams('changes'),
  cache: DATA,
  body: { json: 'ChangeList' },
  readsDatabase: true,
  async handle({ variables, run }) {
    const data = await run<{ changes: unknown }>(operation, variables);
    return json(data.changes);
  },
};
