// Following the market live (contract §11.4, issue 18): GET /api/changes/stream (Server-Sent Events),
// the GraphQL subscription `changes` (graphql-sse's protocol, with its own client), filters, resuming
// with Last-Event-ID, the impact of a rate change for an amount, the Atom feed, the bounds (per client,
// per slow client) and the end of every stream on shutdown. Over a loopback port where connections
// matter; ingests go through the real ingest, and reach the streams through the reload signal.
import { parseFeed } from '@rowanmanning/feed-parser';
import fc from 'fast-check';
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY_CHANGE, changeFilter, changesAfter, matchesChange, newestChanges } from '../src/catalog/changes.js';
import { applySnapshot } from '../src/ingest/apply.js';
import { EVENT_KINDS } from '../src/ingest/diff.js';
import type { Snapshot, SnapshotOffer } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { createTestApp, SAMPLE, serve, type TestApp } from './support/app.js';
import { baseSnapshot, clone } from './support/snapshots.js';
import { readSse, type SseMessage } from './support/sse.js';

interface Item {
  id: string;
  kind: string;
  at: string;
  offerId: string | null;
  brandId: string | null;
  institutionId: string | null;
  summary: string;
  from: unknown;
  to: unknown;
  impact: { amount: string; returnPerYearBefore: string; returnPerYearAfter: string; delta: string } | null;
}

const DAYS = 5;
/** A window smaller than the sample's events, so that resuming from the first one is a reset. */
const REPLAY_EVENTS = 100;
let t: TestApp;
let base: string;
let closeServer: () => Promise<void>;

beforeAll(async () => {
  t = await createTestApp({ days: DAYS, env: { STREAM_REPLAY_EVENTS: String(REPLAY_EVENTS) } });
  const server = await serve(t.app);
  base = server.base;
  closeServer = server.close;
});
afterAll(async () => {
  await closeServer?.();
  await t?.close();
});

let lastDay: Snapshot | undefined;
let hours = 0;

/** The sample's last day again, an hour after the previous ingest, changed by `edit`. */
async function ingest(edit: (offers: SnapshotOffer[]) => void): Promise<void> {
  if (!lastDay) for (const s of generateSnapshots({ ...SAMPLE, days: DAYS })) lastDay = s;
  const snapshot = clone(lastDay!);
  snapshot.observedAt = new Date(Date.parse(snapshot.observedAt) + ++hours * 3_600_000).toISOString();
  edit(snapshot.offers);
  lastDay = snapshot;
  await applied(t, await applySnapshot(t.db.prisma, snapshot));
}

/** Waits until the service has loaded what an ingest wrote (answers are cached per data version until then). */
async function applied(app: TestApp, result: { dataVersion: number }): Promise<void> {
  await until(() => app.app.services.store.current().version >= result.dataVersion);
}

const setRate = (offer: SnapshotOffer, rate: string) => {
  offer.plan = {
    ...offer.plan,
    headlineRate: rate,
    tierMode: 'whole',
    tiers: [{ from: '0.00', to: null, rate }],
    promotion: null,
  };
};

/** A rate that differs from the offer's own. */
const otherRate = (offer: SnapshotOffer, up: boolean) =>
  (Number(offer.plan.headlineRate) + (up ? 0.37 : -0.23)).toFixed(2);

async function changes(query = ''): Promise<Item[]> {
  const res = await fetch(`${base}/api/changes?limit=500${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Item[] }).items;
}

/** The newest event id now. */
const newestId = async () => Number((await changes())[0]?.id ?? 0);

/** Events after an id, oldest first, as /api/changes lists them (with the same filters). */
async function eventsAfter(id: number, query = ''): Promise<Item[]> {
  return (await changes(query)).filter((e) => Number(e.id) > id).reverse();
}

async function openStream(query = '', headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/changes/stream${query}`, { headers });
  expect(res.status, await (res.status === 200 ? '' : res.clone().text())).toBe(200);
  const sse = readSse(res.body!);
  const hello = await sse.next();
  return { res, sse, hello: hello! };
}

const asItem = (m: SseMessage) => JSON.parse(m.data!) as Item;

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('GET /api/changes/stream', () => {
  it(
    'opens with retry: 5000 and a position event carrying the newest id; never cached, compressed or validated; ' +
      'with CORS and a request id',
    async () => {
      const newest = await newestId();
      const { res, sse, hello } = await openStream('', {
        'accept-encoding': 'gzip, br',
        'if-none-match': '*',
        origin: 'https://elsewhere.example',
        'x-request-id': 'stream-1',
      });
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-accel-buffering')).toBe('no');
      expect(res.headers.get('content-encoding')).toBeNull();
      expect(res.headers.get('etag')).toBeNull();
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-request-id')).toBe('stream-1');
      // the ledger's head rides along as a comment, which no EventSource client takes for an event
      const head = t.app.services.store.current().entry!;
      expect(hello).toEqual({
        retry: 5000,
        id: String(newest),
        event: 'position',
        data: JSON.stringify({ id: String(newest) }),
        comments: [`ledger version=${head.version} chainHash=${head.chainHash} observedAt=${head.observedAt}`],
      });
      await sse.close();
    },
  );

  it(
    'delivers an ingest that changes a rate to a connected SSE client and a GraphQL subscriber, with the right ' +
      'id and kind',
    async () => {
      const before = await newestId();
      const { sse } = await openStream();
      const client = createClient({ url: `${base}/graphql` });
      const subscription = client.iterate<{ changes: { id: string; kind: string; offerId: string } }>({
        query: 'subscription { changes { id kind offerId } }',
      });
      const firstNext = subscription.next();
      await until(() => t.app.services.changes.stats().open.graphql === 1);

      let changed = '';
      await ingest((offers) => {
        const offer = offers.find((o) => o.type === 'flexible')!;
        changed = offer.id;
        setRate(offer, otherRate(offer, false));
      });
      const expected = await eventsAfter(before);
      expect(expected.some((e) => e.offerId === changed && e.kind === 'rate_down')).toBe(true);

      const received = await sse.events(expected.length);
      expect(received.map((m) => [m.id, m.event])).toEqual(expected.map((e) => [e.id, e.kind]));
      // The data is an item of /api/changes, key for key.
      expect(received.map(asItem)).toEqual(expected);

      const subscribed = [(await firstNext).value];
      for (let i = 1; i < expected.length; i++) subscribed.push((await subscription.next()).value);
      expect(subscribed.map((r) => r!.data!.changes)).toEqual(
        expected.map((e) => ({ id: e.id, kind: e.kind.toUpperCase(), offerId: e.offerId })),
      );

      await subscription.return?.();
      client.dispose();
      await sse.close();
      await until(
        () => t.app.services.changes.stats().open.graphql === 0 && t.app.services.changes.stats().open.sse === 0,
      );
    },
  );

  it('resumes with Last-Event-ID: exactly the events missed, in order, then live ones', async () => {
    const start = await newestId();
    const first = await openStream();
    await ingest((offers) => setRate(offers[0]!, otherRate(offers[0]!, true)));
    const seen = await first.sse.events((await eventsAfter(start)).length);
    const lastSeen = Number(seen.at(-1)!.id);
    await first.sse.close();

    // Away for two ingests that change several offers.
    await ingest((offers) => {
      for (const o of offers.slice(1, 4)) setRate(o, otherRate(o, true));
    });
    await ingest((offers) => {
      for (const o of offers.slice(4, 6)) setRate(o, otherRate(o, false));
    });
    const missed = await eventsAfter(lastSeen);
    expect(missed.length).toBeGreaterThanOrEqual(5);

    const again = await openStream('', { 'last-event-id': String(lastSeen) });
    expect(again.hello.id).toBe(String(lastSeen));
    const resumed = await again.sse.events(missed.length);
    expect(resumed.map(asItem)).toEqual(missed);

    // ?since= means the same; Last-Event-ID (a reconnecting EventSource) wins over it.
    const bySince = await openStream(`?since=${lastSeen}`);
    expect((await bySince.sse.events(missed.length)).map((m) => m.id)).toEqual(missed.map((e) => e.id));
    const both = await openStream(`?since=${start}`, { 'last-event-id': String(lastSeen) });
    expect((await both.sse.events(missed.length)).map((m) => m.id)).toEqual(missed.map((e) => e.id));

    // Then live, with no repeat of what the backlog gave.
    const newest = Number(missed.at(-1)!.id);
    await ingest((offers) => setRate(offers[6]!, otherRate(offers[6]!, true)));
    const live = await eventsAfter(newest);
    for (const stream of [again, bySince, both]) {
      expect((await stream.sse.events(live.length)).map((m) => m.id)).toEqual(live.map((e) => e.id));
      await stream.sse.close();
    }
  });

  it(
    'answers a resume from before the replay window with a reset event, then goes on live from the newest ' +
      'event; the window itself is read once for every stream that resumes from it',
    async () => {
      const all = await eventsAfter(0);
      expect(all.length).toBeGreaterThan(REPLAY_EVENTS + 1);
      // The oldest position the window covers: the newest event not in it.
      const edge = Number(all[all.length - REPLAY_EVENTS - 1]!.id);
      const loads = t.app.services.changes.stats().tail.loads;
      const resumed = await Promise.all(Array.from({ length: 5 }, () => openStream(`?since=${edge}`)));
      for (const { hello, sse } of resumed) {
        expect(hello).toMatchObject({ event: 'position', id: String(edge) });
        const replay = await sse.events(REPLAY_EVENTS);
        expect(replay.map((m) => m.id)).toEqual(all.slice(-REPLAY_EVENTS).map((e) => e.id));
        await sse.close();
      }
      // 100 events in pages of 500: one read (and at most one more started by the tail's own start).
      expect(t.app.services.changes.stats().tail.loads - loads).toBeLessThanOrEqual(1);

      for (const [query, headers] of [
        [`?since=${edge - 1}`, {}],
        ['', { 'last-event-id': '0' }],
      ] as const) {
        const newest = await newestId();
        const { hello, sse } = await openStream(query, headers);
        expect(hello.event).toBe('reset');
        expect(hello.id).toBe(String(newest));
        const data = JSON.parse(hello.data!) as { id: string; since: string; message: string };
        expect(data).toMatchObject({ id: String(newest), since: query ? String(edge - 1) : '0' });
        expect(data.message).toMatch(/read \/api\/changes again/);
        // Then live events, as from a fresh start.
        await ingest((offers) => setRate(offers[7]!, otherRate(offers[7]!, true)));
        const live = await eventsAfter(newest);
        expect((await sse.events(live.length)).map((m) => m.id)).toEqual(live.map((e) => e.id));
        await sse.close();
      }
      expect(t.app.services.changes.stats().resets.sse).toBeGreaterThanOrEqual(2);
    },
  );

  it('filters by kind, offerId, brand (id or name, any case) and type, like /api/changes', async () => {
    const catalog = t.app.services.store.current();
    const flexible = catalog.offers.find((o) => o.type === 'flexible')!;
    const deposit = catalog.offers.find((o) => o.type === 'deposit' && o.brand.id !== flexible.brand.id)!;
    const filters = [
      'kind=rate_down',
      `offerId=${flexible.id}`,
      `brand=${encodeURIComponent(deposit.brand.name.toUpperCase())}`,
      'type=deposit',
      'kind=rate_up,rate_down&type=flexible',
    ];
    const before = await newestId();
    const streams = await Promise.all(filters.map((f) => openStream(`?${f}`)));
    await ingest((offers) => {
      setRate(
        offers.find((o) => o.id === flexible.id)!,
        otherRate(
          offers.find((o) => o.id === flexible.id)!,
          false,
        ),
      );
      setRate(
        offers.find((o) => o.id === deposit.id)!,
        otherRate(
          offers.find((o) => o.id === deposit.id)!,
          true,
        ),
      );
    });
    const all = await eventsAfter(before);
    expect(new Set(all.map((e) => e.kind))).toEqual(
      new Set(['rate_down', 'rate_up', ...all.filter((e) => e.kind.startsWith('promotion')).map((e) => e.kind)]),
    );
    for (const [i, filter] of filters.entries()) {
      const expected = await eventsAfter(before, `&${filter}`);
      expect(expected.length, filter).toBeGreaterThan(0);
      expect(expected.length, filter).toBeLessThan(all.length);
      const got = await streams[i]!.sse.events(expected.length);
      expect(
        got.map((m) => m.id),
        filter,
      ).toEqual(expected.map((e) => e.id));
    }
    expect(all.filter((e) => e.kind === 'rate_down').map((e) => e.id)).toEqual(
      (await eventsAfter(before, '&kind=rate_down')).map((e) => e.id),
    );
    expect(all.filter((e) => e.offerId === deposit.id).map((e) => e.id)).toEqual(
      (await eventsAfter(before, `&brand=${deposit.brand.id}`)).map((e) => e.id),
    );
    // Nothing more arrives on a filtered stream: the next message, if any, is a heartbeat, not an event.
    for (const stream of streams) await stream.sse.close();
  });

  it('answers a bad filter with a 400 problem before the stream starts', async () => {
    const cases: [string, Record<string, string>, string[]][] = [
      ['?kind=rate_sideways', {}, ['kind']],
      ['?amount=-5&type=savings', {}, ['type', 'amount']],
      ['?since=12a', {}, ['since']],
      ['?since=99999999999', {}, ['since']], // beyond any event id
      [`?offerId=${'x'.repeat(300)}`, {}, ['offerId']],
      ['', { 'last-event-id': 'abc' }, ['Last-Event-ID']],
    ];
    // An id no event has yet: the stream would wait for ever (and a client would never know why).
    const beyond = String((await newestId()) + 1);
    cases.push([`?since=${beyond}`, {}, ['since']], ['?since=0', { 'last-event-id': beyond }, ['Last-Event-ID']]);
    await until(() => t.app.services.changes.stats().open.sse === 0); // the earlier tests' streams
    for (const [query, headers, parameters] of cases) {
      const res = await fetch(`${base}/api/changes/stream${query}`, { headers });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await res.json()) as { errors: { parameter: string }[] };
      expect(problem.errors.map((e) => e.parameter).sort()).toEqual([...parameters].sort());
    }
    expect(t.app.services.changes.stats().open.sse).toBe(0);
  });

  it('answers HEAD with the headers and no stream left open', async () => {
    const res = await fetch(`${base}/api/changes/stream`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await until(() => t.app.services.changes.stats().open.sse === 0);
  });

  it('counts open streams and events sent in /metrics, and shows them in /api/metrics', async () => {
    const { sse } = await openStream();
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^savings_streams_open\{transport="sse"\} 1$/m);
    expect(metrics).toMatch(/^savings_streams_open\{transport="graphql"\} 0$/m);
    const sent = Number(/^savings_stream_events_sent_total\{transport="sse"\} (\d+)$/m.exec(metrics)![1]);
    expect(sent).toBeGreaterThan(0);
    expect(metrics).toMatch(/^savings_streams_cut_total\{transport="sse"\} 0$/m);
    const json = (await (await fetch(`${base}/api/metrics`)).json()) as { streams: { open: { sse: number } } };
    expect(json.streams.open.sse).toBe(1);
    await sse.close();
  });
});

describe('the filter', () => {
  it('selects the same events in SQL (a request, a backlog) as in memory (the feed), for any filter', async () => {
    const all = await changesAfter(t.db.prisma, 0, ANY_CHANGE, 100_000);
    const catalog = t.app.services.store.current();
    const offers = [...new Set(all.map((e) => e.offerId))].slice(0, 10);
    const brands = catalog.institutions.flatMap((i) => i.brands);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          kind: fc.option(fc.subarray([...EVENT_KINDS], { minLength: 1 }), { nil: null }),
          offerId: fc.option(fc.constantFrom(...offers, 'no-such-offer'), { nil: null }),
          brand: fc.option(
            fc.constantFrom(...brands.map((b) => b.id), ...brands.map((b) => b.name.toUpperCase()), 'nobody'),
            { nil: null },
          ),
          type: fc.constantFrom('all', 'flexible', 'notice', 'deposit') as fc.Arbitrary<
            'all' | 'flexible' | 'notice' | 'deposit'
          >,
        }),
        async (args) => {
          const filter = changeFilter(args, catalog);
          const inSql = await newestChanges(t.db.prisma, filter, 100_000, 2 ** 31 - 1);
          const inMemory = all.filter((e) => matchesChange(filter, e)).reverse();
          expect(inSql.map((e) => e.id)).toEqual(inMemory.map((e) => e.id));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('the GraphQL subscription', () => {
  it('takes the same filters and resumes with since', async () => {
    const before = await newestId();
    await ingest((offers) => {
      for (const o of offers.slice(0, 3)) setRate(o, otherRate(o, true));
    });
    const expected = await eventsAfter(before, '&kind=rate_up');
    const client = createClient({ url: `${base}/graphql` });
    const subscription = client.iterate<{ changes: { id: string; kind: string } }>({
      query: 'subscription($since: ID) { changes(kind: [RATE_UP], since: $since) { id kind } }',
      variables: { since: String(before) },
    });
    const got = [];
    for (let i = 0; i < expected.length; i++) got.push((await subscription.next()).value!.data!.changes);
    expect(got).toEqual(expected.map((e) => ({ id: e.id, kind: 'RATE_UP' })));
    await subscription.return?.();
    client.dispose();
  });

  it('answers invalid subscriptions with errors, never a 5xx, whatever the client accepts', async () => {
    for (const query of [
      'subscription { nope }',
      'subscription { changes { id } again: changes { id } }',
      'subscription { changes(kind: [SIDEWAYS]) { id } }',
      'mutation { changes { id } }',
    ]) {
      for (const accept of ['text/event-stream', 'application/json', 'application/graphql-response+json']) {
        const res = await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify({ query }),
        });
        expect(res.status, `${query} ${accept}`).toBeLessThan(500);
        await res.text();
      }
    }
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { changes(amount: "-3", since: "x") { id } }' }),
    });
    const first = (await readSse(res.body!).until((m) => m.event === 'next'))!.at(-1)!;
    const errors = (
      JSON.parse(first.data!) as { errors: { extensions: { code: string; errors: { parameter: string }[] } }[] }
    ).errors;
    expect(errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
    expect(errors[0]!.extensions.errors.map((e) => e.parameter).sort()).toEqual(['amount', 'since']);
  });
});

describe('the GraphQL subscription, refused', () => {
  const subscribe = (body: unknown) =>
    fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
  type Errors = { errors?: { message: string; extensions: { code: string; errors?: { parameter: string }[] } }[] };
  const firstResult = async (res: Response) =>
    JSON.parse((await readSse(res.body!).until((m) => m.event === 'next')).at(-1)!.data!) as Errors | Errors[];

  it('names since when it is beyond the newest event, or older than the replay window', async () => {
    const newest = await newestId();
    for (const [since, pattern] of [
      [String(newest + 1), /the newest is \d+/],
      ['0', new RegExp(`older than the newest ${REPLAY_EVENTS} events`)],
    ] as const) {
      const res = await subscribe({ query: `subscription { changes(since: "${since}") { id } }` });
      const result = (await firstResult(res)) as Errors;
      expect(result.errors![0]!.extensions.code).toBe('BAD_USER_INPUT');
      expect(result.errors![0]!.extensions.errors!.map((e) => e.parameter)).toEqual(['since']);
      expect(result.errors![0]!.message).toMatch(pattern);
    }
    await until(() => t.app.services.changes.stats().open.graphql === 0);
  });

  it('refuses subscriptions in a batch, each with a reason, and holds no stream for them', async () => {
    const open = () => t.app.services.changes.stats().open.graphql;
    await until(() => open() === 0);
    // Before, each of these held a slot for ever: 60 of them and the address had none left.
    for (let i = 0; i < 60; i++) {
      const res = await subscribe([
        { query: 'subscription { changes { id } }' },
        { query: '{ changes(limit: 1) { items { id } } }' },
        { query: 'subscription { changes(kind: [RATE_UP]) { id kind } }' },
      ]);
      const results = (await firstResult(res)) as Errors[];
      expect(results).toHaveLength(3);
      for (const refused of [results[0]!, results[2]!]) {
        expect(refused.errors![0]!.extensions.code).toBe('BAD_REQUEST');
        expect(refused.errors![0]!.message).toMatch(/cannot be part of a batch/);
      }
      expect(results[1]).toMatchObject({ data: { changes: { items: [{ id: expect.any(String) }] } } });
      expect(open()).toBe(0);
    }
    const { sse } = await openStream();
    await sse.close();
  });
});

describe('GET /api/changes/feed', () => {
  it('is an Atom 1.0 feed of the newest 50 that a feed parser reads, with an ETag', async () => {
    const res = await fetch(`${base}/api/changes/feed`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const xml = await res.text();
    const feed = parseFeed(xml);
    expect(feed.meta.type).toBe('atom');
    expect(feed.title).toBe('Savings market: changes');
    const newest = (await changes()).slice(0, 50);
    expect(feed.items).toHaveLength(50);
    expect(feed.items.map((i) => i.id)).toEqual(newest.map((e) => `tag:savings-rate-api,2026:change/${e.id}`));
    expect(feed.items.map((i) => i.title)).toEqual(newest.map((e) => e.summary));
    expect(feed.items.map((i) => i.updated?.toISOString())).toEqual(newest.map((e) => e.at));
    expect(feed.updated?.toISOString()).toBe(newest[0]!.at);
    const offerEvent = newest.findIndex((e) => e.offerId);
    expect(feed.items[offerEvent]!.url).toMatch(new RegExp(`/api/products/${newest[offerEvent]!.offerId}$`));
    expect(feed.items[0]!.categories.map((c) => c.term)).toEqual([newest[0]!.kind]);

    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const again = await fetch(`${base}/api/changes/feed`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('takes the same filters, and the amount for the impact in each entry', async () => {
    const feed = parseFeed(await (await fetch(`${base}/api/changes/feed?kind=rate_up&amount=10000`)).text());
    const expected = (await changes('&kind=rate_up&amount=10000')).slice(0, 50);
    expect(feed.items.map((i) => i.id)).toEqual(expected.map((e) => `tag:savings-rate-api,2026:change/${e.id}`));
    const { impact } = expected[0]!;
    expect(feed.items[0]!.content).toContain(
      `return per year ${impact!.returnPerYearBefore} → ${impact!.returnPerYearAfter} EUR`,
    );
    expect((await fetch(`${base}/api/changes/feed?kind=nope`)).status).toBe(400);
  });
});

describe('the OpenAPI document', () => {
  it('describes the stream (text/event-stream, 429) and the feed (application/atom+xml)', async () => {
    const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as any;
    const stream = doc.paths['/api/changes/stream'].get;
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
    expect(stream.responses['200'].content['text/event-stream']['x-event-data']).toEqual({
      $ref: '#/components/schemas/ChangeEvent',
    });
    expect(stream.responses['429']).toBeDefined();
    expect(stream.responses['304']).toBeUndefined();
    expect(stream.parameters.map((p: { name: string }) => p.name)).toEqual([
      'kind',
      'offerId',
      'brand',
      'type',
      'amount',
      'since',
    ]);
    const feed = doc.paths['/api/changes/feed'].get;
    expect(Object.keys(feed.responses['200'].content)).toEqual(['application/atom+xml']);
    expect(feed.parameters.map((p: { name: string }) => p.name)).toEqual([
      'kind',
      'offerId',
      'brand',
      'type',
      'amount',
      'asOf',
    ]);
    expect(doc.paths['/api/changes'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'limit',
      'kind',
      'offerId',
      'brand',
      'type',
      'amount',
      'asOf',
    ]);
    expect(doc.components.schemas.ChangeEvent.properties.impact).toBeDefined();
  });
});

// A market of two offers whose every change is known, so the impact can be checked to the cent.
describe('impact for an amount', () => {
  let m: TestApp;
  let mBase: string;
  let closeM: () => Promise<void>;
  const day = (n: number) => `2026-11-0${n}T06:00:00.000Z`;

  beforeAll(async () => {
    m = await createTestApp({ seed: (prisma) => applySnapshot(prisma, baseSnapshot(day(1))) });
    const server = await serve(m.app);
    mBase = server.base;
    closeM = server.close;
    // Day 2: the flexible account's upper tier 2.35 → 2.50 (rate_up), the deposit 2.60 → 2.40 (rate_down).
    const two = baseSnapshot(day(2));
    two.offers[0]!.plan = {
      ...two.offers[0]!.plan,
      headlineRate: '2.50',
      tiers: [
        { from: '0.00', to: '25000.00', rate: '2.10' },
        { from: '25000.00', to: null, rate: '2.50' },
      ],
    };
    two.offers[1]!.plan = {
      ...two.offers[1]!.plan,
      headlineRate: '2.40',
      tiers: [{ from: '0.00', to: null, rate: '2.40' }],
    };
    await applySnapshot(m.db.prisma, two);
    // Day 3: a promotion on the flexible account (+0.75 for 6 months on the first 5,000).
    const three = clone(two);
    three.observedAt = day(3);
    three.offers[0]!.plan = {
      ...three.offers[0]!.plan,
      promotion: { kind: 'bonus', rate: '0.75', months: 6, maxBalance: '5000.00' },
    };
    await applySnapshot(m.db.prisma, three);
    // Day 4: the deposit is withdrawn (its events keep their impact).
    const four = clone(three);
    four.observedAt = day(4);
    four.offers = [four.offers[0]!];
    await applySnapshot(m.db.prisma, four);
    await until(async () =>
      ((await (await fetch(`${mBase}/api/changes`)).json()) as { items: Item[] }).items.some(
        (e) => e.kind === 'removed_offer',
      ),
    );
  });
  afterAll(async () => {
    await closeM?.();
    await m?.close();
  });

  const list = async (query: string) =>
    ((await (await fetch(`${mBase}/api/changes?${query}`)).json()) as { items: Item[] }).items;
  const impactOf = (items: Item[], kind: string) => items.find((e) => e.kind === kind)!.impact;

  // Worked by hand (a month-by-month loop in Python's decimal module, 60 digits): 30,000 at 2.35 % credited
  // monthly, compounding: 30,000 × ((1 + 0.0235/12)^12 − 1) = 712.643…; at 2.50 %: 758.653…; the deposit
  // pays at maturity after 12 months: simply amount × rate.
  it.each([
    [
      '30000',
      'rate_up',
      { amount: '30000.00', returnPerYearBefore: '712.64', returnPerYearAfter: '758.65', delta: '46.01' },
    ],
    [
      '10000',
      'rate_up',
      { amount: '10000.00', returnPerYearBefore: '212.03', returnPerYearAfter: '212.03', delta: '0.00' },
    ], // its tier did not change
    [
      '25000',
      'rate_down',
      { amount: '25000.00', returnPerYearBefore: '650.00', returnPerYearAfter: '600.00', delta: '-50.00' },
    ],
    [
      '30000',
      'rate_down',
      { amount: '30000.00', returnPerYearBefore: '780.00', returnPerYearAfter: '720.00', delta: '-60.00' },
    ],
    [
      '30000',
      'promotion_start',
      { amount: '30000.00', returnPerYearBefore: '758.65', returnPerYearAfter: '777.74', delta: '19.09' },
    ],
  ])('amount %s, %s: %j', async (amount, kind, impact) => {
    expect(impactOf(await list(`amount=${amount}`), kind)).toEqual(impact);
  });

  it('is null without an amount and for events that are no rate change; present as a key always', async () => {
    for (const item of await list('')) expect(item.impact).toBeNull();
    const withAmount = await list('amount=30000');
    for (const item of withAmount.filter((e) => ['new_offer', 'removed_offer', 'dgs_change'].includes(e.kind)))
      expect(item.impact).toBeNull();
    for (const item of withAmount) expect(Object.keys(item)).toContain('impact');
  });

  it('is the same on the stream and on the subscription', async () => {
    const expected = (await list('amount=30000')).reverse();
    const { sse } = await (async () => {
      const res = await fetch(`${mBase}/api/changes/stream?since=0&amount=30000`);
      const reader = readSse(res.body!);
      await reader.next();
      return { sse: reader };
    })();
    expect((await sse.events(expected.length)).map(asItem)).toEqual(expected);
    await sse.close();

    const client = createClient({ url: `${mBase}/graphql` });
    const subscription = client.iterate<{ changes: { id: string; impact: Item['impact'] } }>({
      query:
        'subscription { changes(since: "0", amount: "30000") { id impact { amount returnPerYearBefore ' +
        'returnPerYearAfter delta } } }',
    });
    for (const e of expected)
      expect((await subscription.next()).value!.data!.changes).toEqual({ id: e.id, impact: e.impact });
    await subscription.return?.();
    client.dispose();
  });

  it("appears in an offer's detail for its amount and horizon", async () => {
    const detail = async (query: string) =>
      ((await (await fetch(`${mBase}/api/products/zeeland-direct-flex?${query}`)).json()) as { events: Item[] }).events;
    expect(impactOf(await detail('amount=30000'), 'rate_up')).toEqual(impactOf(await list('amount=30000'), 'rate_up'));
    // Over 24 months the same rates give the same yearly return for a compounding account without promotion,
    // but not the promotion, which runs for 6 of them.
    expect(impactOf(await detail('amount=30000&horizon=24'), 'rate_up')).toEqual(
      impactOf(await list('amount=30000'), 'rate_up'),
    );
    expect(impactOf(await detail('amount=30000&horizon=24'), 'promotion_start')!.delta).not.toBe(
      impactOf(await list('amount=30000'), 'promotion_start')!.delta,
    );
  });
});

/**
 * Days of the market the limits are tried on: 40 make a replay of ≈900 KB at an amount, of which a client
 * that never reads got ≈280 KB before its cut (what its kernel, the service's and its own HTTP client
 * held). With 20 days the replay was ≈580 KB, and the bound of half of it was a few KB away.
 */
const LIMITS_DAYS = 40;

describe('limits and shutdown', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await createTestApp({
      days: LIMITS_DAYS,
      env: { STREAMS_PER_IP: '2', STREAM_BUFFER_MAX_KB: '1', STREAM_HEARTBEAT_MS: '200', STREAM_REPLAY_EVENTS: '5000' },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  const open = async (query = '') => {
    const res = await s.get(`/api/changes/stream${query}`);
    return res;
  };

  let sLast: Snapshot | undefined;
  /** The sample's last day again, an hour after the previous ingest, with some offers' rates changed. */
  async function ingestS(offers: [number, number], up: boolean): Promise<void> {
    if (!sLast) for (const snapshot of generateSnapshots({ ...SAMPLE, days: LIMITS_DAYS })) sLast = snapshot;
    const next = clone(sLast!);
    next.observedAt = new Date(Date.parse(next.observedAt) + 3_600_000).toISOString();
    for (const o of next.offers.slice(...offers)) setRate(o, otherRate(o, up));
    await applied(s, await applySnapshot(s.db.prisma, next));
    sLast = next;
  }

  it('sends a heartbeat comment at the configured interval', async () => {
    const res = await open();
    const sse = readSse(res.body!);
    await sse.next();
    expect((await sse.next(2_000))!.comments).toEqual(['keep-alive']);
    await sse.close();
  });

  it('tells a filtered stream its new position at the heartbeat when events it leaves out went by', async () => {
    const sse = readSse((await open('?kind=dgs_change')).body!);
    const opening = (await sse.next())!;
    await ingestS([8, 10], false);
    const newest = ((await (await s.get('/api/changes?limit=1')).json()) as { items: Item[] }).items[0]!.id;
    expect(Number(newest)).toBeGreaterThan(Number(opening.id));
    const told = (await sse.until((m) => m.event === 'position', 5_000)).at(-1)!;
    expect(told).toMatchObject({ id: newest, data: JSON.stringify({ id: newest }) });
    // Nothing more to tell until more events go by: keep-alive comments again.
    expect((await sse.next(2_000))!.comments).toEqual(['keep-alive']);
    await sse.close();
  });

  it(
    'refuses a client more streams than STREAMS_PER_IP, ' + 'SSE and subscriptions together, until one closes',
    async () => {
      const a = await open();
      const b = await open();
      const refused = await open();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const sub = await s.app.fetch(
        new Request('http://test.local/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ query: 'subscription { changes { id } }' }),
        }),
      );
      expect(sub.status).toBe(429);
      expect(await sub.text()).toMatch(/TOO_MANY_REQUESTS/);
      await a.body!.cancel();
      await until(() => s.app.services.changes.stats().open.sse === 1);
      const c = await open();
      expect(c.status).toBe(200);
      await b.body!.cancel();
      await c.body!.cancel();
    },
  );

  it(
    'gives a client that leaves what it was sent unread nothing more once its connection (the service and the ' +
      'kernel) holds more than the bound, then cuts it with a reset, without affecting the others',
    async () => {
      const served = await serve(s.app);
      try {
        // The slow one resumes from the first event with an amount (hundreds of KB: far more than its own
        // kernel takes in for it, ≈100 KB on loopback) and never reads.
        const slow = await fetch(`${served.base}/api/changes/stream?since=0&amount=10000`);
        expect(slow.status).toBe(200);
        const fast = readSse((await fetch(`${served.base}/api/changes/stream`)).body!);
        await fast.next();
        const fastEvents: SseMessage[] = [];
        const reading = (async () => {
          for (let m = await fast.next(60_000); m; m = await fast.next(60_000))
            if (m.data !== undefined && m.event !== 'position') fastEvents.push(m);
        })().catch(() => {});
        // Over 1 KB unread for a heartbeat interval (200 ms): cut.
        await until(() => s.app.services.changes.stats().cut.sse === 1);
        expect(s.app.services.changes.stats().open.sse).toBe(1);
        // Reset, not closed: reading on ends in an error, after at most what had reached the client.
        let received = 0;
        const ending = await (async () => {
          const reader = slow.body!.getReader();
          try {
            for (let r = await reader.read(); !r.done; r = await reader.read()) received += r.value.byteLength;
            return 'end';
          } catch {
            return 'reset';
          }
        })();
        expect(ending).toBe('reset');

        // The fast one goes on getting what is ingested.
        const before = Number(((await (await s.get('/api/changes?limit=1')).json()) as { items: Item[] }).items[0]!.id);
        await ingestS([0, 4], true);
        const expected = ((await (await s.get('/api/changes?limit=100')).json()) as { items: Item[] }).items.filter(
          (e) => Number(e.id) > before,
        );
        expect(expected.length).toBeGreaterThanOrEqual(4);
        await until(() => fastEvents.length >= expected.length);
        expect(fastEvents.map((m) => m.id)).toEqual(expected.map((e) => e.id).reverse());

        // What the slow one would have had: the whole replay, read by a client that reads.
        const whole = await fetch(`${served.base}/api/changes/stream?since=0&amount=10000`);
        const replay = readSse(whole.body!);
        let bytes = 0;
        for (let m = await replay.next(); m && m.id !== expected[0]!.id; m = await replay.next())
          bytes += (m.data ?? '').length;
        await replay.close();
        expect(bytes).toBeGreaterThan(200_000);
        expect(received).toBeLessThan(bytes / 2);
        await fast.close();
        await reading;
      } finally {
        await served.close();
      }
    },
  );

  it(
    'ends every stream on shutdown (a goodbye comment, the ' + 'subscription completes) and refuses new ones with 503',
    async () => {
      const sse = readSse((await open()).body!);
      await sse.next();
      const sub = await s.app.fetch(
        new Request('http://test.local/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ query: 'subscription { changes { id } }' }),
        }),
      );
      const subSse = readSse(sub.body!);
      await until(() => s.app.services.changes.stats().open.graphql === 1);
      s.app.closeStreams();
      const rest = await sse.until((m) => m.comments.some((c) => /shutting down/.test(c)));
      expect(rest.every((m) => m.data === undefined)).toBe(true);
      expect(await sse.next()).toBeNull();
      expect((await subSse.until((m) => m.event === 'complete')).at(-1)!.event).toBe('complete');
      const refused = await open();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
    },
  );
});
