// Query.ledger (GET /api/ledger) and Query.state (GET /api/state): the ledger of every data version and
// the canonical state of one, so that anyone can recompute its hash and the chain (docs/ledger.md).
import { pageCount } from '../../catalog/pipeline.js';
import type { LedgerEntry } from '../../ingest/ledger.js';
import { GENESIS } from '../../ingest/ledger.js';
import { fromDatabase } from '../../request/errors.js';
import { DEFAULTS, PARAMS } from '../args.js';
import { AS_OF_DESCRIPTION, viewAt } from '../as-of.js';
import { builder } from '../builder.js';

interface EntryView extends LedgerEntry {
  previous: string;
}

const LedgerEntryRef = builder.objectRef<EntryView>('LedgerEntry').implement({
  description:
    'One data version: what made it and the hashes that let anyone check it (docs/ledger.md). chainHash = ' +
    'SHA-256 of previous, version, observedAt, appliedAt, snapshot and stateHash, each on a line of its own.',
  fields: (t) => ({
    version: t.exposeInt('version'),
    observedAt: t.field({
      type: 'DateTime',
      description: "the snapshot's time: the version is in force from then (asOf)",
      resolve: (e) => new Date(e.observedAt),
    }),
    appliedAt: t.field({
      type: 'DateTime',
      description: 'when the ingest applied the snapshot',
      resolve: (e) => new Date(e.appliedAt),
    }),
    snapshot: t.exposeString('snapshot', { description: 'SHA-256 of the applied snapshot (hex)' }),
    stateHash: t.exposeString('stateHash', {
      description: 'SHA-256 (hex) of the canonical state at this version: the body of GET /api/state?asOf=observedAt',
    }),
    previous: t.exposeString('previous', {
      description: "the chain hash of the version before (64 zeros before the ledger's first)",
    }),
    chainHash: t.exposeString('chainHash'),
  }),
});

const LedgerPageRef = builder
  .objectRef<{ items: EntryView[]; total: number; page: number; pageSize: number; pages: number }>('LedgerPage')
  .implement({
    fields: (t) => ({
      items: t.expose('items', { type: [LedgerEntryRef], description: 'oldest first' }),
      total: t.exposeInt('total'),
      page: t.exposeInt('page'),
      pageSize: t.exposeInt('pageSize'),
      pages: t.exposeInt('pages'),
    }),
  });

builder.queryField('ledger', (t) =>
  t.field({
    type: LedgerPageRef,
    description:
      'GET /api/ledger: every data version, oldest first, with the hash of its state and the chain that links it ' +
      'to the one before; paged. With asOf, the ledger as it stood then.',
    args: {
      page: t.arg.int({ required: true, defaultValue: DEFAULTS.page, validate: { schema: PARAMS.page } }),
      pageSize: t.arg.int({
        required: true,
        defaultValue: DEFAULTS.historyPageSize,
        description: 'at most 500',
        validate: { schema: PARAMS.pageSize },
      }),
      asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }),
    },
    resolve: async (_root, args, ctx, info) => {
      const { catalog } = await viewAt(ctx, args.asOf, info, { catalogue: false });
      const all = await fromDatabase(ctx.services.database, () => ctx.services.timeline.ledger());
      const upTo = all.filter((e) => e.version <= catalog.version);
      const from = (args.page - 1) * args.pageSize;
      const items = upTo.slice(from, from + args.pageSize).map((e, i) => {
        const before = from + i > 0 ? upTo[from + i - 1] : undefined;
        return { ...e, previous: before && before.version === e.version - 1 ? before.chainHash : GENESIS };
      });
      return {
        items,
        total: upTo.length,
        page: args.page,
        pageSize: args.pageSize,
        pages: pageCount(upTo.length, args.pageSize),
      };
    },
  }),
);

const StateRef = builder.objectRef<{ entry: EntryView; canonical: string }>('CanonicalState').implement({
  description:
    'The state of a data version (institutions, brands, offers, the plans in force, sources) as canonical JSON: ' +
    'keys sorted, no white space, decimals as two-decimal strings, instants in ISO 8601 UTC.',
  fields: (t) => ({
    version: t.int({ resolve: (s) => s.entry.version }),
    stateHash: t.string({ resolve: (s) => s.entry.stateHash }),
    canonical: t.exposeString('canonical', { description: 'its SHA-256 is stateHash' }),
  }),
});

builder.queryField('state', (t) =>
  t.field({
    type: StateRef,
    description: 'GET /api/state: the canonical state of the data version in force at asOf (default: now).',
    args: { asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }) },
    resolve: async (_root, args, ctx, info) => {
      // the state is read from the ledger's blocks: the version's catalogue is not needed
      const { catalog } = await viewAt(ctx, args.asOf, info, { catalogue: false });
      const entry = catalog.entry;
      const canonical =
        entry && (await fromDatabase(ctx.services.database, () => ctx.services.states.at(entry.version)));
      if (!entry || canonical == null) {
        return {
          entry: {
            version: 0,
            observedAt: new Date(0).toISOString(),
            appliedAt: new Date(0).toISOString(),
            snapshot: GENESIS,
            stateHash: GENESIS,
            chainHash: GENESIS,
            maxPlanId: 0,
            maxEventId: 0,
            previous: GENESIS,
          },
          canonical: '{"brands":[],"institutions":[],"offers":[],"plans":[],"sources":[]}',
        };
      }
      return { entry: { ...entry, previous: GENESIS }, canonical };
    },
  }),
);
