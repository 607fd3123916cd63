// GET /api/ledger (Query.ledger) and GET /api/state (Query.state): the ledger of data versions, and the
// canonical state of one as it is hashed, byte for byte (docs/ledger.md).
import { schema } from '../../graphql/schema/index.js';
import { queryParams } from '../params.js';
import { fieldOperation, sofaProjection } from '../projection.js';
import { DATA, pagedJson, type RestRoute } from '../route.js';

const ledger = sofaProjection(schema)('ledger');

export const ledgerRoute: RestRoute = {
  path: '/api/ledger',
  operationId: 'getLedger',
  tag: 'Market',
  summary: 'The ledger of data versions',
  description:
    'Every data version, oldest first: when it was observed and applied, the SHA-256 of its snapshot and of its ' +
    'canonical state (GET /api/state), and the chain hash that links it to the version before. Paged.',
  params: queryParams('ledger'),
  cache: DATA,
  body: { json: 'LedgerPage' },
  readsDatabase: true,
  paged: true,
  async handle({ variables, run }) {
    const data = await run<{ ledger: { page: number; pages: number } }>(ledger, variables);
    return pagedJson(data.ledger);
  },
};

const stateParams = queryParams('state');
const state = fieldOperation(schema, 'state', stateParams, {}, 'canonical');

export const stateRoute: RestRoute = {
  path: '/api/state',
  operationId: 'getState',
  tag: 'Market',
  summary: 'The canonical state of a data version',
  description:
    'The institutions, brands, offers, plans in force and sources of the data version in force at asOf (default: ' +
    'the newest) as canonical JSON: the body is exactly what the ledger hashes, so sha256(body) is its stateHash.',
  params: stateParams,
  cache: DATA,
  body: {
    canonical:
      'keys sorted, no white space, decimals as two-decimal strings, instants in ISO 8601 UTC; the rows of ' +
      'each kind sorted by id (plans by offer id), each with every field of the snapshot it came from',
  },
  readsDatabase: true,
  async handle({ variables, run }) {
    const data = await run<{ state: { canonical: string } }>(state, variables);
    return new Response(data.state.canonical, { headers: { 'content-type': 'application/json; charset=utf-8' } });
  },
};
