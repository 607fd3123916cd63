// GET /api/changes/stream (contract §11.4): change events as Server-Sent Events, as they are ingested.
// Its parameters are the GraphQL subscription's arguments (parsed and checked by the shared parser, so a
// bad filter is a 400 before the stream starts); its events come from the process's change feed
// (src/catalog/change-feed.ts), not from an operation per event: a thousand clients cost one read per
// data version, and each event is serialised once per amount, not once per client.
import type { Follower } from '../../catalog/change-feed.js';
import type { FeedEvent } from '../../catalog/changes.js';
import type { LedgerEntry } from '../../ingest/ledger.js';
import { FeedClosedError, SinceAheadError, StreamLimitError } from '../../catalog/change-feed.js';
import { changeFilter, type ChangeFilterArgs } from '../../catalog/changes.js';
import type { CalcService } from '../../catalog/calc-service.js';
import { Decimal } from '../../domain/decimal.js';
import { DEFAULTS, PARAMS } from '../../graphql/args.js';
import { RETRY_AFTER_SECONDS } from '../../request/errors.js';
import { CACHE_CONTROL } from '../../http/layer.js';
import { problemResponse } from '../../http/problem.js';
import { currentClient } from '../../request/context.js';
import { streamConnection } from '../../request/socket-backlog.js';
import { changeItemJson } from '../change-json.js';
import { internalValues, subscriptionParams } from '../params.js';
import type { RestRoute } from '../route.js';

/** How long a client waits before reconnecting (the `retry:` field). */
export const RETRY_MS = 5_000;

const params = subscriptionParams('changes');
const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': keep-alive\n\n');

/**
 * Where the client is, as an event with data: `id:` is what a reconnection resumes after, and only an
 * event with data makes every client keep it (EventSource in browsers keeps an id on its own, but the
 * npm eventsource client before version 5, and parsers like it, keep one only with an event).
 */
const positionFrame = (id: number) => encoder.encode(`id: ${id}\nevent: position\ndata: {"id":"${id}"}\n\n`);

/** The client resumed from before the replay window: it re-reads the list, then follows from here. */
function resetFrame(id: number, since: number): Uint8Array {
  const data = JSON.stringify({
    id: String(id),
    since: String(since),
    message:
      `The events after ${since} are no longer kept for resuming; read /api/changes again. ` +
      `This stream goes on after event ${id}.`,
  });
  return encoder.encode(`id: ${id}\nevent: reset\ndata: ${data}\n\n`);
}
/**
 * The ledger's head (docs/ledger.md) when the stream opens and at each new data version, as a comment
 * line at the start of the next block it sends: anyone reading the stream sees it, and no client takes it
 * for an event (EventSource ignores comments), so ids, kinds and resuming are as they were.
 */
const ledgerComment = ({ version, chainHash, observedAt }: LedgerEntry) =>
  encoder.encode(`: ledger version=${version} chainHash=${chainHash} observedAt=${observedAt}\n`);

const GOODBYE = encoder.encode(': the service is shutting down; reconnect with Last-Event-ID\n\n');

// Each event's frame for each amount asked, made once however many clients receive it. Events stay in
// the replay window for a while, and amounts are the clients' choice: an event keeps the frames of its
// first few amounts; any other is made for each client that asks.
const frames = new WeakMap<FeedEvent, Map<string, Uint8Array>>();
const AMOUNTS_KEPT = 4;

/** An amount and how an event's impact is worked out for it (the calculation's memo), or none. */
type ForAmount = { amount: Decimal; calc: CalcService } | null;

function frameOf(event: FeedEvent, forAmount: ForAmount): Uint8Array {
  let byAmount = frames.get(event);
  if (!byAmount) frames.set(event, (byAmount = new Map()));
  const key = forAmount?.amount.toString() ?? '';
  let frame = byAmount.get(key);
  if (!frame) {
    const impact =
      forAmount && event.basis ? forAmount.calc.impact(event.basis, forAmount.amount, DEFAULTS.horizon) : null;
    frame = encoder.encode(`id: ${event.id}\nevent: ${event.kind}\ndata: ${changeItemJson(event, impact)}\n\n`);
    if (byAmount.size <= AMOUNTS_KEPT) byAmount.set(key, frame);
  }
  return frame;
}

function framesOf(batch: readonly FeedEvent[], forAmount: ForAmount): Uint8Array {
  if (batch.length === 1) return frameOf(batch[0]!, forAmount);
  const parts = batch.map((e) => frameOf(e, forAmount));
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.byteLength;
  }
  return joined;
}

/**
 * The stream's body, pulled: the next events are taken from the follower only when the connection has
 * taken the last ones, so what a slow client has not taken stays in the follower, where it is bounded.
 */
function eventStream(
  follower: Follower,
  since: number | null,
  forAmount: ForAmount,
  signal: AbortSignal,
  setHeartbeat: (send: () => void) => void,
  head: () => LedgerEntry | null,
): ReadableStream<Uint8Array> {
  let announced = 0;
  /** The head's comment, once per version. */
  const newHead = (): Uint8Array | null => {
    const entry = head();
    if (!entry || entry.version === announced) return null;
    announced = entry.version;
    return ledgerComment(entry);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // `retry:` sets the reconnection delay; then where a reconnection resumes (after the client's
        // Last-Event-ID, or after the newest event now), or a reset when that was too old.
        controller.enqueue(encoder.encode(`retry: ${RETRY_MS}\n`));
        const opening = newHead();
        if (opening) controller.enqueue(opening);
        controller.enqueue(follower.reset ? resetFrame(follower.position, since!) : positionFrame(follower.position));
        // Only to a client that is waiting for data: one that has not taken what was sent needs no
        // keep-alive, and comments must not pile up behind it. A stream whose filter left events out
        // since its last one tells its client its new position instead, so that a reconnection does not
        // resume from before them (and, after long enough, from before the replay window).
        setHeartbeat(() => {
          if ((controller.desiredSize ?? -1) < 0) return;
          const moved = follower.newPosition();
          try {
            const announce = moved === null ? null : newHead();
            if (announce) controller.enqueue(announce);
            controller.enqueue(moved === null ? HEARTBEAT : positionFrame(moved));
          } catch {
            // closed meanwhile
          }
        });
        if (signal.aborted) follower.end('left');
        else signal.addEventListener('abort', () => follower.end('left'), { once: true });
      },
      async pull(controller) {
        const batch = await follower.nextBatch();
        if (follower.ended === 'returned') return; // cancelled by its reader while waiting: nothing left to write to
        if (batch) {
          const announce = newHead();
          if (announce) controller.enqueue(announce);
          return controller.enqueue(framesOf(batch, forAmount));
        }
        if (follower.ended === 'closed') controller.enqueue(GOODBYE);
        controller.close();
      },
      cancel() {
        void follower.return();
      },
    },
    { highWaterMark: 0 },
  );
}

export const streamRoute: RestRoute = {
  path: '/api/changes/stream',
  operationId: 'streamChanges',
  tag: 'Market',
  summary: 'Change events as they happen (Server-Sent Events)',
  description:
    'Each change event is one SSE event: `id:` its id (ids increase with ingest order), `event:` its kind, ' +
    '`data:` the same JSON as an item of /api/changes. ' +
    'The stream opens with `retry: 5000` and an `event: position` whose `id:` (and data `{"id": …}`) is ' +
    'where a reconnection resumes: after the Last-Event-ID, or after the newest event now. ' +
    'A client that reconnects with Last-Event-ID (or ?since=ID) first gets every matching event after that id, ' +
    'exactly once and in order, then live ones, as long as that id is among the newest STREAM_REPLAY_EVENTS ' +
    '(1000) events; from an older id it gets `event: reset` instead (data: `{"id", "since", "message"}`): ' +
    're-read /api/changes, the stream goes on after `id`. An id beyond the newest event is a 400. ' +
    `A comment every 15 s keeps proxies from closing the stream (an \`event: position\` instead when the filter ` +
    `left events out since the last one sent); \`retry: ${RETRY_MS}\`. Never cached or compressed. ` +
    'A client that leaves more than STREAM_BUFFER_MAX_KB unread (in the service and the kernel) is sent ' +
    'nothing more, and disconnected if it stays so for 15 s (it can resume); at most STREAMS_PER_IP open ' +
    'streams per address. The GraphQL subscription `changes` gives the same events.',
  params,
  cache: { control: CACHE_CONTROL.none, reuse: 'never' },
  body: { sse: 'ChangeEvent' },
  readsDatabase: true,
  async handle({ variables, request, context }) {
    // An EventSource reconnecting sends the last id it saw; it wins over the URL's since.
    const lastEventId = request.headers.get('last-event-id')?.trim();
    let since = variables.since as string | undefined;
    let sinceFrom = 'since';
    if (lastEventId) {
      const checked = PARAMS.since.safeParse(lastEventId);
      if (!checked.success)
        return problemResponse('BAD_USER_INPUT', 'Invalid header: Last-Event-ID.', [
          { parameter: 'Last-Event-ID', message: checked.error.issues[0]!.message },
        ]);
      since = lastEventId;
      sinceFrom = 'Last-Event-ID';
    }
    const args = internalValues(params, variables) as ChangeFilterArgs & { amount?: string };
    const { services, catalog } = await context();
    const connection = streamConnection(services.config);
    let heartbeat = () => {};
    const resumeAfter = since === undefined ? null : Number(since);
    const follower = services.changes.follow({
      filter: changeFilter(args, catalog),
      since: resumeAfter,
      client: currentClient(),
      transport: 'sse',
      room: connection.room,
      onHeartbeat: () => heartbeat(),
      // Too slow to keep up: the connection goes, with whatever it had not taken yet.
      onEnd: (reason) => reason === 'slow' && connection.cut(),
    });
    try {
      await follower.start();
    } catch (err) {
      if (err instanceof SinceAheadError)
        return problemResponse(
          'BAD_USER_INPUT',
          `Invalid ${sinceFrom === 'since' ? 'parameter' : 'header'}: ${sinceFrom}.`,
          [
            {
              parameter: sinceFrom,
              message:
                `must be the id of an event: the newest is ${err.newest}, so a stream after ${err.since} ` +
                'would wait for ever',
            },
          ],
        );
      const retryAfter = { 'retry-after': String(RETRY_AFTER_SECONDS) };
      if (err instanceof StreamLimitError)
        return problemResponse(
          'TOO_MANY_REQUESTS',
          `Too many open streams from your address (at most ${err.max}); close one first.`,
          undefined,
          retryAfter,
        );
      if (err instanceof FeedClosedError)
        return problemResponse(
          'SERVICE_UNAVAILABLE',
          'The service is shutting down; please reconnect shortly.',
          undefined,
          retryAfter,
        );
      return problemResponse(
        'SERVICE_UNAVAILABLE',
        'The database is not reachable right now to read the events to resume from; please retry shortly.',
        undefined,
        retryAfter,
      );
    }
    const forAmount = args.amount == null ? null : { amount: new Decimal(args.amount), calc: services.calc };
    const body = eventStream(
      follower,
      resumeAfter,
      forAmount,
      request.signal,
      (send) => (heartbeat = send),
      () => services.store.current().entry,
    );
    return new Response(body, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': CACHE_CONTROL.none },
    });
  },
};
