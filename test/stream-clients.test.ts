// The change stream driven by real EventSource clients across a restart of the service, with an
// ingest while it is away: the npm `eventsource` client (version 5, and version 4, whose parser keeps
// an id only from an event with data) and Chromium's EventSource. A client that connected, saw no event
// yet and reconnected must resume from where it was, not from whatever is newest when it comes back:
// the stream opens with an `event: position` that carries its id with data, which every one keeps.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventSource as EventSourceV5 } from 'eventsource';
import { EventSource as EventSourceV4 } from 'eventsource-v4';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySnapshot } from '../src/ingest/apply.js';
import { EVENT_KINDS } from '../src/ingest/diff.js';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { createTestApp, SAMPLE, type TestApp } from './support/app.js';
import { browserSkip, launchChromium } from './support/browser.js';
import { clone } from './support/snapshots.js';

const DAYS = 3;
let t: TestApp;
let port = 0;
let server: http.Server | undefined;
let browser: Browser | undefined;

async function listen(): Promise<void> {
  server = http.createServer(t.app.listener);
  await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}

/** The service goes away: every connection is dropped, and nothing listens on its port. */
async function stop(): Promise<void> {
  const s = server!;
  server = undefined;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
}

beforeAll(async () => {
  t = await createTestApp({ days: DAYS });
  await listen();
  if (!browserSkip) browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  if (server) await stop();
  await t?.close();
});

const until = async (check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** What a client has seen: whether it is connected, and the ids of the change events it got. */
interface Client {
  name: string;
  opened(): Promise<boolean>;
  ids(): Promise<string[]>;
  close(): Promise<void>;
}

function nodeClient(name: string, EventSourceClass: typeof EventSourceV5 | typeof EventSourceV4): Client {
  const source = new EventSourceClass(`http://127.0.0.1:${port}/api/changes/stream`);
  const ids: string[] = [];
  let opened = false;
  source.addEventListener('open', () => (opened = true));
  for (const kind of EVENT_KINDS) source.addEventListener(kind, (e) => ids.push((e as MessageEvent).lastEventId));
  return {
    name,
    opened: async () => opened,
    ids: async () => ids,
    close: async () => source.close(),
  };
}

async function chromiumClient(): Promise<Client> {
  const page = await browser!.newPage();
  await page.goto(`http://127.0.0.1:${port}/api/health`);
  await page.evaluate((kinds) => {
    const w = window as unknown as { seen: { opened: boolean; ids: string[] }; source: EventSource };
    w.seen = { opened: false, ids: [] };
    w.source = new EventSource('/api/changes/stream');
    w.source.addEventListener('open', () => (w.seen.opened = true));
    for (const kind of kinds) w.source.addEventListener(kind, (e) => w.seen.ids.push((e as MessageEvent).lastEventId));
  }, EVENT_KINDS);
  const seen = () => page.evaluate(() => (window as unknown as { seen: { opened: boolean; ids: string[] } }).seen);
  return {
    name: 'Chromium',
    opened: async () => (await seen()).opened,
    ids: async () => (await seen()).ids,
    close: () => page.close(),
  };
}

/** The sample's last day an hour later, with two offers' rates changed: a few change events. */
function rateChange(): Snapshot {
  let last: Snapshot | undefined;
  for (const s of generateSnapshots({ ...SAMPLE, days: DAYS })) last = s;
  const next = clone(last!);
  next.observedAt = new Date(Date.parse(next.observedAt) + 3_600_000).toISOString();
  for (const offer of next.offers.slice(0, 2)) {
    const rate = (Number(offer.plan.headlineRate) + 0.29).toFixed(2);
    offer.plan = { ...offer.plan, headlineRate: rate, tierMode: 'whole', tiers: [{ from: '0.00', to: null, rate }] };
  }
  return next;
}

describe('EventSource clients that saw no event yet, across a restart with an ingest in between', () => {
  it('get what was ingested while the service was away: npm eventsource 5 and 4, and Chromium', async () => {
    const clients = [nodeClient('eventsource 5', EventSourceV5), nodeClient('eventsource 4', EventSourceV4)];
    if (browser) clients.push(await chromiumClient());
    else console.warn(`Chromium's EventSource not tested: ${browserSkip}`);
    for (const c of clients) await until(c.opened, 10_000, `${c.name} to open`);
    await new Promise((r) => setTimeout(r, 500)); // and to read what the stream opens with
    const before = t.app.services.changes.position();

    await stop();
    const { dataVersion } = await applySnapshot(t.db.prisma, rateChange());
    await until(() => t.app.services.store.current().version >= dataVersion, 10_000, 'the ingest to load');
    const expected = (await (await t.get('/api/changes?limit=100')).json()) as { items: { id: string }[] };
    const missed = expected.items
      .map((e) => e.id)
      .filter((id) => Number(id) > before)
      .reverse();
    expect(missed.length).toBeGreaterThanOrEqual(2);
    await listen();

    // EventSource waits `retry: 5000` before it reconnects, with the last id it kept as Last-Event-ID.
    for (const c of clients) {
      await until(async () => (await c.ids()).length >= missed.length, 20_000, `${c.name} to get the events`);
      expect(await c.ids(), c.name).toEqual(missed);
    }
    for (const c of clients) await c.close();
  }, 60_000);
});
