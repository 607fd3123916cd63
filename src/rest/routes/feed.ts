// GET /api/changes/feed (contract §11.4): the newest change events as an Atom 1.0 feed, with the same
// filters as /api/changes (and amount, for the impact in each entry's text). Its links are absolute and
// name the origin the request named (or PUBLIC_URL), so a finished answer is not reused for another
// request (it might have named another host); ETag and 304 work as for every data answer.
import { getNamedType, isEnumType } from 'graphql';
import { DEFAULTS } from '../../graphql/args.js';
import { answeredAt } from '../../graphql/as-of.js';
import { schema } from '../../graphql/schema/index.js';
import { renderAtom, type AtomChange } from '../atom.js';
import { API_VERSION } from '../openapi.js';
import { canonicalQuery, queryParams } from '../params.js';
import { fieldOperation } from '../projection.js';
import { DATA, type RestRoute, type Variables } from '../route.js';

const params = queryParams('changes').filter((p) => p.name !== 'limit');

// The filters as a REST client writes them (kind=rate_down, type=all), for the self link and the feed id.
const restValues = new Map(
  schema
    .getQueryType()!
    .getFields()
    .changes!.args.flatMap((a) => {
      const named = getNamedType(a.type);
      return isEnumType(named)
        ? [[a.name, new Map(named.getValues().map((v) => [v.name, String(v.value)]))] as const]
        : [];
    }),
);
const restSpelling = (variables: Variables): Variables =>
  Object.fromEntries(
    Object.entries(variables).map(([name, value]) => {
      const values = restValues.get(name);
      if (!values) return [name, value];
      return [
        name,
        Array.isArray(value) ? value.map((v) => values.get(v) ?? v) : (values.get(value as string) ?? value),
      ];
    }),
  );
const operation = fieldOperation(
  schema,
  'changes',
  params,
  { limit: 'Int' },
  'items { id kind at offerId brandId institutionId summary ' +
    'impact { amount returnPerYearBefore returnPerYearAfter delta } }',
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
  cache: { ...DATA, reuse: 'never' },
  body: { atom: 'Atom 1.0 (RFC 4287); links are absolute, from PUBLIC_URL or the origin the request named' },
  readsDatabase: true,
  async handle({ variables, run, context, url }) {
    const data = await run<{ changes: { items: AtomChange[] } }>(operation, {
      ...variables,
      limit: DEFAULTS.feedEntries,
    });
    const ctx = await context();
    const catalog = answeredAt(ctx)[0]?.catalog ?? ctx.catalog;
    // asOf names a moment of the same feed, not another feed: its id and self link leave it out
    const { asOf: _asOf, ...filters } = variables;
    const body = renderAtom({
      base: ctx.services.config.publicUrl ?? url.origin,
      query: canonicalQuery(restSpelling(filters)),
      generatedAt: catalog.generatedAt,
      head: catalog.entry && {
        version: catalog.entry.version,
        chainHash: catalog.entry.chainHash,
        observedAt: catalog.entry.observedAt,
      },
      items: data.changes.items,
      version: API_VERSION,
    });
    return new Response(body, { headers: { 'content-type': 'application/atom+xml; charset=utf-8' } });
  },
};
