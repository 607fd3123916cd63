// Change events: Query.changes (GET /api/changes, and the Atom feed) and Subscription.changes (the
// same events pushed as they are ingested; GET /api/changes/stream is its REST form), with one set of
// filters and, for an amount, the impact of each rate change.
import { FeedClosedError, SinceAheadError, StreamLimitError } from '../../catalog/change-feed.js';
import type { FeedEvent } from '../../catalog/changes.js';
import { changeFilter, isAnyChange } from '../../catalog/changes.js';
import { listLane } from '../../catalog/lane.js';
import type { EventItem, ImpactBasis } from '../../catalog/shapes.js';
import { Decimal } from '../../domain/decimal.js';
import type { ChangeImpact } from '../../domain/impact.js';
import { clientError, fromDatabase, RETRY_AFTER_SECONDS } from '../../request/errors.js';
import { currentClient, currentLimits } from '../../request/context.js';
import { streamConnection } from '../../request/socket-backlog.js';
import { DEFAULTS, PARAMS } from '../args.js';
import { isBatched, SUBSCRIPTION_IN_BATCH } from '../batches.js';
import { euros } from '../scalars.js';
import { AS_OF_DESCRIPTION, methodField, viewAt } from '../as-of.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import type { Loaders } from '../loaders.js';
import { EventKindEnum, TypeFilterEnum } from '../enums.js';

/** An event, with its impact where one was asked for (an amount and a rate event). */
export type ChangeEventValue = EventItem & { impact?: ChangeImpact | null };

const ChangeImpactRef = builder.objectRef<ChangeImpact>('ChangeImpact').implement({
  description:
    'What a rate change means for the amount asked about: the return per year (euros per year at the ' +
    'comparable yield, as the list calculates it: over the horizon for flexible and notice accounts (12 ' +
    "months; in an offer's detail, its horizon), over the term for deposits, promotions included) under the " +
    'plan before the change and under the plan after it.',
  fields: (t) => ({
    amount: t.expose('amount', { type: 'Decimal', description: euros('the amount calculated') }),
    returnPerYearBefore: t.expose('returnPerYearBefore', {
      type: 'Decimal',
      description: euros('the return per year under the plan before the change'),
    }),
    returnPerYearAfter: t.expose('returnPerYearAfter', {
      type: 'Decimal',
      description: euros('the return per year under the plan after the change'),
    }),
    delta: t.expose('delta', {
      type: 'Decimal',
      description: euros('returnPerYearAfter − returnPerYearBefore (of the values shown)'),
    }),
  }),
});

export const ChangeEventRef = builder.objectRef<ChangeEventValue>('ChangeEvent').implement({
  description:
    'A change derived by the ingest: rate up or down, promotion start or end, new or removed offer, DGS change.',
  fields: (t) => ({
    id: t.id({ description: 'increases with ingest order', resolve: (e) => String(e.id) }),
    kind: t.expose('kind', { type: EventKindEnum }),
    at: t.expose('at', { type: 'DateTime', description: 'the time of the snapshot that showed the change' }),
    offerId: t.exposeID('offerId', { nullable: true, description: 'null for institution-level events' }),
    brandId: t.exposeID('brandId', { nullable: true }),
    institutionId: t.exposeID('institutionId', { nullable: true }),
    summary: t.exposeString('summary'),
    from: t.expose('from', { type: 'JSON', nullable: true, description: 'what changed, before' }),
    to: t.expose('to', { type: 'JSON', nullable: true, description: 'what changed, after' }),
    impact: t.field({
      type: ChangeImpactRef,
      nullable: true,
      description:
        'for rate events (rate up or down, promotion start or end) when an amount was given: what the change ' +
        'means for it; null otherwise',
      resolve: (e) => e.impact ?? null,
    }),
  }),
});

const ChangeListRef = builder.objectRef<{ items: ChangeEventValue[] }>('ChangeList').implement({
  fields: (t) => ({
    items: t.expose('items', { type: [ChangeEventRef], description: 'newest first' }),
    method: methodField(t),
  }),
});

/** The filters both fields take (and the REST routes, as their parameters). */
const filterArgs = builder.args((t) => ({
  kind: t.field({
    type: [EventKindEnum],
    required: false,
    description: 'only these kinds',
    validate: { schema: PARAMS.kind },
  }),
  offerId: t.id({ required: false, description: "only this offer's events", validate: { schema: PARAMS.offerId } }),
  brand: t.string({
    required: false,
    description: "only this brand's events (id or name, case-insensitive)",
    validate: { schema: PARAMS.brand },
  }),
  type: t.field({
    type: TypeFilterEnum,
    required: true,
    defaultValue: 'all',
    description: 'only events of offers of this type (institution-level events have none)',
  }),
  amount: t.field({
    type: 'Decimal',
    required: false,
    description: 'with an amount, rate events carry their impact for it',
    validate: { schema: PARAMS.amount },
  }),
}));

/** The impact of an event for an amount, where it has one. */
function withImpact<E extends EventItem>(
  ctx: Context,
  event: E,
  basis: ImpactBasis | null,
  amount: Decimal | null,
  horizon: number,
): E & { impact: ChangeImpact | null } {
  return { ...event, impact: amount && basis ? ctx.services.calc.impact(basis, amount, horizon) : null };
}

/** Events with their impact for an amount (the list's, and the detail's with its own amount and horizon). */
export async function withImpacts(
  ctx: Context,
  loaders: Loaders,
  items: EventItem[],
  amount: Decimal | null,
  horizon: number,
): Promise<ChangeEventValue[]> {
  if (amount === null) return items;
  const bases = await fromDatabase(ctx.services.database, () =>
    Promise.all(items.map((e) => loaders.impactBases.load(e))),
  );
  // An impact not asked before builds the calculation's pieces for the event's terms (two runs of up to
  // the horizon's months): a list of events is made in the lists' lane, in slices, not in one task.
  return listLane.run(impactSteps(ctx, items, bases, amount, horizon), currentLimits().signal);
}

function* impactSteps(
  ctx: Context,
  items: EventItem[],
  bases: (ImpactBasis | null)[],
  amount: Decimal,
  horizon: number,
): Generator<void, ChangeEventValue[], void> {
  const out: ChangeEventValue[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) yield;
    out.push(withImpact(ctx, items[i]!, bases[i]!, amount, horizon));
  }
  return out;
}

builder.queryField('changes', (t) =>
  t.field({
    type: ChangeListRef,
    description: 'GET /api/changes: the most recent change events, newest first.',
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: DEFAULTS.changesLimit,
        description: 'at most 500',
        validate: { schema: PARAMS.limit },
      }),
      ...filterArgs,
      asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }),
    },
    resolve: async (_root, args, ctx, info) => {
      const { catalog, loaders } = await viewAt(ctx, args.asOf, info);
      const filter = changeFilter(args, catalog);
      const database = ctx.services.database;
      const items = await fromDatabase(database, () =>
        isAnyChange(filter) ? loaders.changes(args.limit) : loaders.filteredChanges(filter, args.limit),
      );
      const amount = args.amount == null ? null : new Decimal(args.amount);
      return { items: await withImpacts(ctx, loaders, items, amount, DEFAULTS.horizon) };
    },
  }),
);

/** The argument `since` is wrong for the events there are (a 400, like a malformed one). */
const sinceProblem = (message: string) =>
  clientError('BAD_USER_INPUT', `Invalid argument: since ${message}`, {
    errors: [{ parameter: 'since', message }],
    http: { status: 400 },
  });

/** Why a stream cannot be opened, as the client sees it (the HTTP status for transports that have one). */
function refusal(err: unknown): Error {
  if (err instanceof SinceAheadError) {
    return sinceProblem(
      `must be the id of an event: the newest is ${err.newest}, so a subscription after ${err.since} would wait ` +
        'for ever',
    );
  }
  if (err instanceof StreamLimitError) {
    return clientError(
      'TOO_MANY_REQUESTS',
      `Too many open streams from your address (at most ${err.max}); close one first.`,
      { http: { status: 429 } },
    );
  }
  const message =
    err instanceof FeedClosedError
      ? 'The service is shutting down; please reconnect shortly.'
      : 'The database is not reachable right now; please retry shortly.';
  return clientError('SERVICE_UNAVAILABLE', message, {
    retryAfter: RETRY_AFTER_SECONDS,
    http: { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
  });
}

builder.subscriptionField('changes', (t) =>
  t.field({
    type: ChangeEventRef,
    description:
      'Every change event as it is ingested, one at a time, in id order (GET /api/changes/stream is the same ' +
      'as Server-Sent Events). With since, first every matching event after that id, then live ones, each once.',
    args: {
      ...filterArgs,
      since: t.arg.id({
        required: false,
        description: 'resume after this event id',
        validate: { schema: PARAMS.since },
      }),
    },
    subscribe: async (_root, args, ctx) => {
      // yoga would write the stream of a subscription in a batch as `{}` and never end it (batches.ts).
      const request = (ctx as { request?: Request }).request;
      if (isBatched(request)) throw clientError('BAD_REQUEST', SUBSCRIPTION_IN_BATCH, { http: { status: 400 } });
      const connection = streamConnection(ctx.services.config);
      const follower = ctx.services.changes.follow({
        filter: changeFilter(args, ctx.catalog),
        since: args.since == null ? null : Number(args.since),
        client: currentClient(),
        transport: 'graphql',
        room: connection.room,
        // A subscriber too slow to keep up: its connection is ended, not only its subscription.
        onEnd: (reason) => reason === 'slow' && connection.cut(),
      });
      try {
        await follower.start();
      } catch (err) {
        throw refusal(err);
      }
      if (follower.reset) {
        // A subscription has no event to say so: the client is told, and subscribes again from the list.
        void follower.return();
        const window = ctx.services.config.streamReplayEvents;
        throw sinceProblem(
          `is older than the newest ${window} events kept for resuming: read Query.changes again, then subscribe ` +
            `without since (or with since: "${follower.position}")`,
        );
      }
      // yoga does not end a subscription whose client hung up until it next writes to it (and then only
      // when the write fails); the request's signal says so at once.
      const signal = request?.signal;
      if (signal?.aborted) follower.end('left');
      else signal?.addEventListener('abort', () => follower.end('left'), { once: true });
      return follower;
    },
    resolve: (event: FeedEvent, args, ctx) =>
      withImpact(ctx, event, event.basis, args.amount == null ? null : new Decimal(args.amount), DEFAULTS.horizon),
  }),
);
