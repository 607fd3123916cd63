// GET /api/changes/feed (contract §11.4): the newest change events as an Atom 1.0 feed, with the same
// filters as /api/changes (and amount, for the impact in each entry's text); cached like every data
// answer (ETag, 304, a new body when the data changes).
import { parse } from 'graphql';
import { DEFAULTS } from '../../graphql/args.js';
import { schema } from '../../graphql/schema/index.js';
import { renderAtom, type AtomChange } from '../atom.js';
import { API_VERSION } from '../openapi.js';
import { canonicalQuery, queryParams } from '../params.js';
import { DATA, type RestRoute } from '../route.js';

const params = queryParams('changes').filter((p) => p.name !== 'limit');
const argTypes = new Map(
  schema
    .getQueryType()!
    .getFields()
    .changes!.args.map((a): [string, string] => [a.name, String(a.type).replace(/!$/, '')]),
);
const names = params.map((p) => p.name);
const operation = parse(
  `query feed($limit: Int${names.map((n) => `, $${n}: ${argTypes.get(n)}`).join('')}) {
  changes(limit: $limit${names.map((n) => `, ${n}: $${n}`).join('')}) { items { id kind at offerId brandId ` +
    `institutionId summary impact { amount returnPerYearBefore returnPerYearAfter delta } } } }`,
);

export const feedRoute: RestRoute = {
  path: '/api/changes/feed',
  operationId: 'changesFeed',
  tag: 'Market',
  summary: 'Change events as an Atom feed',
  description:
    `The newest ${DEFAULTS.feedEntries} change events matching the filters as Atom 1.0, for feed readers: one ` +
    `entry per event (its summary as title, its time as updated, a link to the offer), with the impact for ` +
    `the amount when one is given.`,
  params,
  cache: DATA,
  body: { atom: 'Atom 1.0 (RFC 4287); links are relative to the feed URL' },
  readsDatabase: true,
  async handle({ variables, run, context }) {
    const data = await run<{ changes: { items: AtomChange[] } }>(operation, {
      ...variables,
      limit: DEFAULTS.feedEntries,
    });
    const { catalog } = await context();
    const body = renderAtom({
      query: canonicalQuery(variables),
      generatedAt: catalog.generatedAt,
      items: data.changes.items,
      version: API_VERSION,
    });
    return new Response(body, { headers: { 'content-type': 'application/atom+xml; charset=utf-8' } });
  },
};
