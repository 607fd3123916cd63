// asOf: every data answer as it stood at a past instant. Answers recorded live across ingests, with a
// clock that moves, are given again byte for byte (ETag included) by the same request with
// asOf=generatedAt; the past is cached for ever; bad instants are refused like every other bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySnapshot } from '../src/ingest/apply.js';
import { readLedger, type LedgerEntry } from '../src/ingest/ledger.js';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { Rng } from '../src/sample/random.js';
import { createTestApp, type TestApp } from './support/app.js';

const DAYS = 40;
const FIRST = 10; // seeded before the service starts; the other 30 are ingested while it answers
const ANSWERS = 1_000;

const snapshots: Snapshot[] = [...generateSnapshots({ seed: 5, days: DAYS, end: '2026-11-20', scale: 1 })];

interface Recorded {
  url: string;
  status: number;
  body: string;
  etag: string | null;
  instant: string;
}

let t: TestApp;
const recorded: Recorded[] = [];
let ledger: LedgerEntry[] = [];

/** A request a client might make, with random parameters. */
function randomRequest(rng: Rng, active: string[], known: string[]): string {
  const amount = String(rng.int(1, 2_000_000) / (rng.int(0, 1) ? 1 : 100));
  const pick = <T>(xs: readonly T[]) => xs[rng.int(0, xs.length - 1)]!;
  switch (rng.int(0, 11)) {
    case 0:
    case 1:
      return `/api/products?amount=${amount}&type=${pick(['all', 'flexible', 'deposit', 'notice'])}&sort=${pick([
        'return',
        'effective',
        'verified',
        'bank',
      ])}&freshness=${pick(['all', '24h', 'official'])}&pageSize=${rng.int(1, 30)}`;
    case 2:
      return `/api/products/export?amount=${amount}&type=deposit&freshness=${pick(['all', '24h'])}`;
    case 3:
      return `/api/products/${pick(active)}?amount=${amount}&horizon=${rng.int(1, 60)}`;
    case 4:
      return `/api/plan?amount=${rng.int(5_000, 400_000)}&maxOffers=${rng.int(1, 3)}`;
    case 5:
      return '/api/institutions';
    case 6:
      return `/api/rates/history?offerId=${pick(known)}`;
    case 7:
      return `/api/rates/history?type=${pick(['all', 'deposit'])}&page=${rng.int(1, 3)}&pageSize=${rng.int(5, 50)}`;
    case 8:
      return `/api/rates/history?view=market&days=${rng.int(1, 60)}`;
    case 9:
      return `/api/changes?limit=${rng.int(1, 80)}${rng.int(0, 1) ? `&amount=${amount}` : ''}`;
    case 10:
      return `/api/changes/feed?type=${pick(['all', 'deposit'])}`;
    default:
      return '/api/meta/last-updated';
  }
}

/** The instant an answer stands for: its generatedAt, or (no such field) its data version's. */
function instantOf(body: string, version: number, generatedAt: string | null): string {
  if (generatedAt) return generatedAt; // the CSV export says it in a header
  if (body.startsWith('{')) {
    const generatedAt = (JSON.parse(body) as { generatedAt?: string }).generatedAt;
    if (generatedAt) return generatedAt;
  }
  const entry = ledger.find((e) => e.version === version);
  if (!entry) throw new Error(`no data version (${version}) for ${body.slice(0, 300)}`);
  return entry.observedAt;
}

beforeAll(async () => {
  t = await createTestApp({
    seed: async (prisma) => {
      for (const s of snapshots.slice(0, FIRST)) await applySnapshot(prisma, s, { now: () => new Date(s.observedAt) });
    },
  });
  const rng = new Rng(99);
  const perIngest = Math.ceil(ANSWERS / (DAYS - FIRST));
  for (const snapshot of snapshots.slice(FIRST)) {
    // the clock an hour or up to a day after the snapshot, as a live service sees it
    const observed = Date.parse(snapshot.observedAt);
    t.clock.now = new Date(observed + 60_000);
    await applySnapshot(t.db.prisma, snapshot, { now: () => t.clock.now });
    await t.app.services.store.refresh();
    ledger = await readLedger(t.db.prisma);
    const catalog = t.app.services.store.current();
    const active = [...catalog.byId.keys()];
    const known = [...active, ...catalog.removed.keys()];
    for (let i = 0; i < perIngest && recorded.length < ANSWERS; i++) {
      t.clock.now = new Date(observed + rng.int(60, 23 * 3600) * 1000 + rng.int(0, 999));
      const url = randomRequest(rng, active, known);
      const res = await t.get(url);
      const body = await res.text();
      const version = Number(res.headers.get('data-version'));
      recorded.push({
        url,
        status: res.status,
        body,
        etag: res.headers.get('etag'),
        instant: instantOf(body, version, res.headers.get('generated-at')),
      });
    }
  }
  // a day after the last snapshot, with every answer above in the past
  t.clock.now = new Date(Date.parse(snapshots.at(-1)!.observedAt) + 86_400_000);
}, 600_000);

afterAll(async () => {
  await t?.close();
});

describe('answers recorded live, across 30 ingests, asked again with asOf=generatedAt', () => {
  it('are byte for byte the same, ETag included', async () => {
    expect(recorded).toHaveLength(ANSWERS);
    expect(recorded.every((r) => r.status === 200)).toBe(true);
    const differ: string[] = [];
    for (const r of recorded) {
      const url = `${r.url}${r.url.includes('?') ? '&' : '?'}asOf=${encodeURIComponent(r.instant)}`;
      const res = await t.get(url);
      const body = await res.text();
      if (res.status !== 200 || body !== r.body || res.headers.get('etag') !== r.etag) differ.push(url);
    }
    expect(differ).toEqual([]);
    // every kind of answer was among them, and many versions
    const paths = new Set(
      recorded.map((r) => r.url.split('?')[0]!.replace(/^\/api\/products\/(?!export).+/, '/api/products/{id}')),
    );
    expect([...paths].sort()).toEqual([
      '/api/changes',
      '/api/changes/feed',
      '/api/institutions',
      '/api/meta/last-updated',
      '/api/plan',
      '/api/products',
      '/api/products/export',
      '/api/products/{id}',
      '/api/rates/history',
    ]);
    expect(new Set(recorded.map((r) => r.instant)).size).toBeGreaterThan(100);
  });

  it('say which version they are of, and the past is cached for ever', async () => {
    const head = ledger.at(-1)!;
    const past = ledger[FIRST + 3]!;
    const now = await t.get('/api/products?amount=5000');
    expect(now.headers.get('data-version')).toBe(String(head.version));
    expect(now.headers.get('data-chain')).toBe(head.chainHash);
    expect(now.headers.get('memento-datetime')).toBeNull();
    expect(now.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=60');

    const then = await t.get(`/api/products?amount=5000&asOf=${past.observedAt}`);
    expect(then.headers.get('data-version')).toBe(String(past.version));
    expect(then.headers.get('data-chain')).toBe(past.chainHash);
    expect(then.headers.get('memento-datetime')).toBe(new Date(past.observedAt).toUTCString());
    expect(then.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(then.headers.get('vary')).toContain('Accept-Datetime');
    const etag = then.headers.get('etag')!;
    expect(
      (await t.get(`/api/products?amount=5000&asOf=${past.observedAt}`, { headers: { 'if-none-match': etag } })).status,
    ).toBe(304);

    // within the newest version: the present, not yet immutable
    const latest = await t.get(`/api/products?amount=5000&asOf=${head.observedAt}`);
    expect(latest.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=60');
    expect(latest.headers.get('memento-datetime')).toBe(new Date(head.observedAt).toUTCString());
  });

  it("takes RFC 7089's Accept-Datetime, and asOf wins over it", async () => {
    const past = ledger[FIRST + 5]!;
    const other = ledger[FIRST + 8]!;
    const header = new Date(Date.parse(past.observedAt) + 1000).toUTCString();
    const byHeader = await t.get('/api/institutions', { headers: { 'accept-datetime': header } });
    expect(byHeader.headers.get('data-version')).toBe(String(past.version));
    const both = await t.get(`/api/institutions?asOf=${other.observedAt}`, { headers: { 'accept-datetime': header } });
    expect(both.headers.get('data-version')).toBe(String(other.version));
    // the header's answer is not the cached answer of the URL alone (and the other way round)
    expect((await t.get('/api/institutions')).headers.get('data-version')).toBe(String(ledger.at(-1)!.version));
    const bad = await t.get('/api/institutions', { headers: { 'accept-datetime': 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { parameter: string }[] }).errors[0]!.parameter).toBe('Accept-Datetime');
  });

  it.each([
    ['unparseable', 'asOf=last-tuesday', 400],
    ['a day without a time', 'asOf=2026-11-01', 400],
    ['no offset', 'asOf=2026-11-01T06:00:00', 400],
    ['in the future', 'asOf=2030-01-01T00:00:00Z', 400],
    ['before the first data', 'asOf=2020-01-01T00:00:00Z', 404],
  ])('refuses an instant %s, naming asOf', async (_what, query, status) => {
    for (const path of ['/api/products', '/api/meta/last-updated', '/api/changes', '/api/rates/history']) {
      const res = await t.get(`${path}?${query}`);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(((await res.json()) as { errors: { parameter: string }[] }).errors.map((e) => e.parameter)).toEqual([
        'asOf',
      ]);
    }
  });

  it('reads an offset and an unescaped "+" as the same instant', async () => {
    const past = ledger[FIRST + 2]!;
    const at = new Date(Date.parse(past.observedAt) + 3_600_000);
    // the same instant an hour ahead, at +01:00 (the sample's snapshots are at 06:00 UTC: no change of day)
    const iso = at.toISOString();
    const local = `${iso.slice(0, 11)}${String(at.getUTCHours() + 1).padStart(2, '0')}${iso.slice(13, 19)}+01:00`;
    const plus = await t.get(`/api/institutions?asOf=${local}`);
    expect(plus.status).toBe(200);
    expect(plus.headers.get('data-version')).toBe(String(past.version));
  });

  it('answers asOf on every GraphQL root field that reads data, and names each version in the extensions', async () => {
    const past = ledger[FIRST + 4]!;
    const { body } = await t.graphql<Record<string, unknown>>(
      `query($at: DateTime) {
        then: meta(asOf: $at) { dataVersion generatedAt }
        now: meta { dataVersion }
        products(asOf: $at, amount: "1000") { total generatedAt }
        institutions(asOf: $at) { items { id } }
        changes(asOf: $at, limit: 1) { items { id } }
        rateHistory(asOf: $at, pageSize: 1) { total }
        marketHistory(asOf: $at, days: 2) { items { date } }
        plan(asOf: $at, amount: "20000") { optimal }
      }`,
      { at: past.observedAt },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data!.then).toEqual({ dataVersion: past.version, generatedAt: past.observedAt });
    expect(body.data!.now).toEqual({ dataVersion: ledger.at(-1)!.version });
    const versions = (body as { extensions: { dataVersions: Record<string, { version: number; chainHash: string }> } })
      .extensions.dataVersions;
    expect(versions.then).toMatchObject({ version: past.version, chainHash: past.chainHash, asOf: past.observedAt });
    expect(versions.now).toEqual({ version: ledger.at(-1)!.version, chainHash: ledger.at(-1)!.chainHash });
    expect(Object.keys(versions).sort()).toEqual(
      ['changes', 'institutions', 'marketHistory', 'now', 'plan', 'products', 'rateHistory', 'then'].sort(),
    );
  });
});
