// Query.changes: the most recent change events (GET /api/changes).
import type { EventItem } from '../../catalog/history.js';
import { fromDatabase } from '../../http/errors.js';
import { DEFAULTS, PARAMS } from '../args.js';
import { builder } from '../builder.js';
import { EventKindEnum } from '../enums.js';

export const ChangeEventRef = builder.objectRef<EventItem>('ChangeEvent').implement({
  description: 'A change derived by the ingest: rate up or down, promotion start or end, new or removed offer, DGS change.',
  fields: (t) => ({
    id: t.id({ resolve: (e) => String(e.id) }),
    kind: t.field({ type: EventKindEnum, resolve: (e) => e.kind }),
    at: t.field({ type: 'DateTime', description: 'the time of the snapshot that showed the change', resolve: (e) => e.at }),
    offerId: t.id({ nullable: true, description: 'null for institution-level events', resolve: (e) => e.offerId }),
    brandId: t.id({ nullable: true, resolve: (e) => e.brandId }),
    institutionId: t.id({ nullable: true, resolve: (e) => e.institutionId }),
    summary: t.exposeString('summary'),
    from: t.field({ type: 'JSON', nullable: true, description: 'what changed, before', resolve: (e) => e.from }),
    to: t.field({ type: 'JSON', nullable: true, description: 'what changed, after', resolve: (e) => e.to }),
  }),
});

const ChangeListRef = builder.objectRef<{ items: EventItem[] }>('ChangeList').implement({
  fields: (t) => ({ items: t.field({ type: [ChangeEventRef], description: 'newest first', resolve: (l) => l.items }) }),
});

builder.queryField('changes', (t) =>
  t.field({
    type: ChangeListRef,
    description: 'GET /api/changes: the most recent change events, newest first.',
    args: { limit: t.arg.int({ required: true, defaultValue: DEFAULTS.changesLimit, description: 'at most 500', validate: { schema: PARAMS.limit } }) },
    resolve: async (_root, args, ctx) => ({ items: await fromDatabase(ctx.services.database, () => ctx.loaders.changes(args.limit)) }),
  }),
);
