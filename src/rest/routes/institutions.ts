// GET /api/institutions: the value of Query.institutions.
import { schema } from '../../graphql/schema/index.js';
import { queryParams } from '../params.js';
import { sofaProjection } from '../projection.js';
import { DATA, json, type RestRoute } from '../route.js';

const operation = sofaProjection(schema)('institutions');

export const institutionsRoute: RestRoute = {
  path: '/api/institutions',
  operationId: 'listInstitutions',
  tag: 'Market',
  summary: 'Legal institutions',
  description: 'Every legal institution with its deposit guarantee scheme and brands.',
  params: queryParams('institutions'),
  cache: DATA,
  body: { json: 'InstitutionList' },
  readsDatabase: false,
  async handle({ variables, run }) {
    const data = await run<{ institutions: unknown }>(operation, variables);
    return json(data.institutions);
  },
};
