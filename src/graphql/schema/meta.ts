// Query.meta (GET /api/meta/last-updated) and Query.health (GET /api/health).
import { answerInstant, checkedInLast24h, dataState } from '../../catalog/freshness.js';
import type { HealthReport } from '../../catalog/health.js';
import type { CatalogSource } from '../../catalog/types.js';
import { AS_OF_DESCRIPTION, methodField, viewAt } from '../as-of.js';
import { builder } from '../builder.js';
import { HealthStatusEnum, SourceKindEnum, SourceStatusEnum } from '../enums.js';

export const SourceRef = builder.objectRef<CatalogSource>('Source').implement({
  description: 'Where data comes from, and its health at the last check.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    kind: t.expose('kind', { type: SourceKindEnum }),
    url: t.exposeString('url'),
    status: t.expose('status', { type: SourceStatusEnum }),
    lastCheckedAt: t.expose('lastCheckedAt', { type: 'DateTime', nullable: true }),
    lastSuccessAt: t.expose('lastSuccessAt', { type: 'DateTime', nullable: true }),
    lastError: t.exposeString('lastError', { nullable: true }),
  }),
});

interface MetaSummary {
  generatedAt: Date;
  lastIngestAt: Date | null;
  dataVersion: number;
  stale: boolean;
  offers: { active: number; removed: number; checked24h: number; official: number; confirmed: number };
  sources: { total: number; ok: number; failing: number; items: CatalogSource[] };
}

const OfferCountsRef = builder.objectRef<MetaSummary['offers']>('OfferCounts').implement({
  fields: (t) => ({
    active: t.exposeInt('active'),
    removed: t.exposeInt('removed'),
    checked24h: t.exposeInt('checked24h', { description: 'active offers checked in the last 24 hours' }),
    official: t.exposeInt('official', { description: 'active offers from an official source' }),
    confirmed: t.exposeInt('confirmed'),
  }),
});

const SourceHealthRef = builder.objectRef<MetaSummary['sources']>('SourceHealth').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    ok: t.exposeInt('ok'),
    failing: t.exposeInt('failing'),
    items: t.expose('items', { type: [SourceRef] }),
  }),
});

const MetaSummaryRef = builder.objectRef<MetaSummary>('MetaSummary').implement({
  description: 'How fresh the data is, and the health of its sources.',
  fields: (t) => ({
    generatedAt: t.expose('generatedAt', {
      type: 'DateTime',
      description:
        'when the data last changed; for an answer that reads the clock (freshness=24h) the instant it was made ' +
        'for. asOf=generatedAt gives the same answer again',
    }),
    lastIngestAt: t.expose('lastIngestAt', {
      type: 'DateTime',
      nullable: true,
      description: 'when the newest snapshot was applied',
    }),
    dataVersion: t.exposeInt('dataVersion', { description: 'increases with every change of the data' }),
    stale: t.exposeBoolean('stale', {
      description:
        'the newest data is older than the configured maximum age, or there is none (the same rule as health: ' +
        'checks.data is then not ok)',
    }),
    offers: t.expose('offers', { type: OfferCountsRef }),
    sources: t.expose('sources', { type: SourceHealthRef }),
    method: methodField(t),
  }),
});

builder.queryField('meta', (t) =>
  t.field({
    type: MetaSummaryRef,
    description: 'GET /api/meta/last-updated: freshness overview and source health.',
    args: { asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }) },
    resolve: async (_root, args, ctx, info) => {
      const { catalog, now } = await viewAt(ctx, args.asOf, info);
      const offers = catalog.offers;
      return {
        // staleness and checked24h read the clock: the summary stands for its minute
        generatedAt: answerInstant(catalog.generatedAt, now, true),
        lastIngestAt: catalog.lastIngestAt,
        dataVersion: catalog.version,
        stale: dataState(catalog.lastObservedAt, now, ctx.services.config.maxDataAgeSeconds) !== 'ok',
        offers: {
          active: offers.length,
          removed: catalog.removed.size,
          checked24h: offers.filter((o) => checkedInLast24h(o.freshness.checkedAt, now)).length,
          official: offers.filter((o) => o.freshness.official).length,
          confirmed: offers.filter((o) => o.freshness.confirmed).length,
        },
        sources: {
          total: catalog.sources.length,
          ok: catalog.sources.filter((s) => s.status === 'ok').length,
          failing: catalog.sources.filter((s) => s.status === 'failing').length,
          items: catalog.sources,
        },
      };
    },
  }),
);

const HealthChecksRef = builder.objectRef<HealthReport['checks']>('HealthChecks').implement({
  fields: (t) => ({
    database: t.exposeString('database', { description: 'ok | unavailable' }),
    data: t.exposeString('data', { description: 'ok | stale | empty' }),
    capacity: t.exposeString('capacity', {
      description:
        'ok | exceeded: the newest data version has more active offers than the memory budget holds, so the ' +
        'data before it is served',
    }),
  }),
});

export const HealthRef = builder.objectRef<HealthReport>('Health').implement({
  fields: (t) => ({
    status: t.expose('status', { type: HealthStatusEnum }),
    checks: t.expose('checks', { type: HealthChecksRef }),
    dataAgeSeconds: t.exposeInt('dataAgeSeconds', {
      nullable: true,
      description: 'seconds since the newest snapshot was observed',
    }),
  }),
});

builder.queryField('health', (t) =>
  t.field({
    type: HealthRef,
    description: 'GET /api/health: 200 when ok, 503 when degraded.',
    resolve: (_root, _args, ctx) => ctx.services.health(),
  }),
);
