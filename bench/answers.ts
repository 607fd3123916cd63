// npm run bench:answers [-- --against REF --count 2000 --days 60 --seed 1 --keep-data]
// The answers themselves, this build against commit REF (default HEAD: the working tree against its last
// commit): both serve the same sample market (one database, seeded by REF's build and copied for this
// one), and are asked the same `count` requests, drawn at random from every kind a client sends (lists over
// every parameter, details, plans, exports, history, changes, the ledger, GraphQL, and bad requests). Each
// answer is compared byte for byte, its status and headers too (but those that differ between any two
// requests: Date, X-Request-Id). A change that means to leave every answer as it was (a faster path, a
// refactoring) shows it here; one that differs prints where. Exit code 1 when any answer differs.
// Writes bench/results/answers-<time>.json: every request and its answer's SHA-256, the recorded set.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { baseline, shortCommit } from './baseline.js';
import { root, startService, type RunningService } from './service.js';
import { arg } from './support.js';
import { seeded } from './seeded.js';

const against = arg('against', 'HEAD');
const count = Number(arg('count', '2000'));
const days = Number(arg('days', '60'));
const seed = Number(arg('seed', '1'));
/** The baseline runs on the same node as this build: the answers, not the runtimes, are compared. */
const node = arg('node', process.execPath);
/** Keep the database both served (its folder is printed), to ask them again by hand. */
const keepData = process.argv.includes('--keep-data');

/** Headers that differ between any two requests, whatever the build. */
const PER_REQUEST = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

interface Asked {
  kind: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

interface Answer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

interface Market {
  ids: string[];
  brands: string[];
  countries: string[];
}

function draw(market: Market, n: number, rnd: () => number): Asked[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const maybe = (p: number) => rnd() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  // Amounts where the default list has rows, and beyond (large amounts are the plan's purpose).
  const amount = () =>
    maybe(0.7) ? `${int(1, 99_999)}.${String(int(0, 99)).padStart(2, '0')}` : `${int(1, 1_500_000)}`;
  const some = <T>(xs: readonly T[], k: number) => [...new Set(Array.from({ length: k }, () => pick(xs)))];
  const query = (params: Record<string, string | number | undefined>) =>
    Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
      .join('&');
  const listParams = () => ({
    amount: maybe(0.9) ? amount() : undefined,
    type: pick(['all', 'flexible', 'notice', 'deposit', undefined]),
    horizon: maybe(0.3) ? int(1, 120) : undefined,
    sort: maybe(0.5)
      ? pick(['return', 'effective', 'headline', 'term', 'bank', 'country', 'verified', 'min'])
      : undefined,
    order: maybe(0.2) ? pick(['asc', 'desc']) : undefined,
    terms: maybe(0.1) ? some([3, 6, 12, 24, 36, 60], 2).join(',') : undefined,
    termMin: maybe(0.05) ? int(1, 24) : undefined,
    termMax: maybe(0.05) ? int(12, 120) : undefined,
    channel: maybe(0.1) ? pick(['all', 'direct', 'aggregator', 'platform']) : undefined,
    country: maybe(0.1) ? some(market.countries, 2).join(',') : undefined,
    dgsCountry: maybe(0.05) ? some(market.countries, 2).join(',') : undefined,
    fullDgs: maybe(0.15) ? pick(['true', 'false']) : undefined,
    withholding: maybe(0.05) ? pick(['all', 'none', 'reducible', 'applicable']) : undefined,
    promotions: maybe(0.15) ? pick(['include', 'exclude', 'only']) : undefined,
    newCustomers: maybe(0.05) ? pick(['all', 'yes', 'no']) : undefined,
    payout: maybe(0.05) ? some(['MONTHLY', 'QUARTERLY', 'ANNUALLY', 'AT_MATURITY', 'OTHER'], 2).join(',') : undefined,
    currentAccount: maybe(0.05) ? pick(['all', 'no']) : undefined,
    fees: maybe(0.05) ? pick(['all', 'none']) : undefined,
    earlyWithdrawal: maybe(0.05) ? pick(['all', 'allowed']) : undefined,
    noticeMax: maybe(0.05) ? int(1, 180) : undefined,
    freshness: maybe(0.05) ? pick(['all', 'official', 'confirmed']) : undefined,
    includeIneligible: maybe(0.1) ? pick(['true', 'false']) : undefined,
    brand: maybe(0.05) ? pick(market.brands) : undefined,
    zoek: maybe(0.03) ? pick(['bank', 'spar', 'depo', 'direct']) : undefined,
  });
  const kinds: [number, () => Asked][] = [
    [
      40,
      () => ({
        kind: 'list',
        method: 'GET',
        path: `/api/products?${query({
          ...listParams(),
          page: maybe(0.2) ? int(1, 4) : undefined,
          pageSize: maybe(0.3) ? pick([1, 10, 25, 100, 500]) : undefined,
        })}`,
      }),
    ],
    [
      20,
      () => ({
        kind: 'detail',
        method: 'GET',
        path: `/api/products/${encodeURIComponent(pick(market.ids))}?${query({
          amount: maybe(0.9) ? amount() : undefined,
          horizon: maybe(0.3) ? int(1, 120) : undefined,
        })}`,
      }),
    ],
    [
      8,
      () => ({
        kind: 'plan',
        method: 'GET',
        path: `/api/plan?${query({
          amount: amount(),
          maxOffers: maybe(0.4) ? int(1, 6) : undefined,
          flexibleShare: maybe(0.3) ? int(0, 100) : undefined,
          sort: maybe(0.2) ? pick(['return', 'effective']) : undefined,
          type: maybe(0.2) ? pick(['all', 'deposit', 'flexible']) : undefined,
        })}`,
      }),
    ],
    [2, () => ({ kind: 'export', method: 'GET', path: `/api/products/export?${query(listParams())}` })],
    [
      6,
      () => ({
        kind: 'history',
        method: 'GET',
        path: `/api/rates/history?${pick([
          () => query({ offerId: pick(market.ids), limit: maybe(0.5) ? int(1, 50) : undefined }),
          () =>
            query({
              brand: maybe(0.5) ? pick(market.brands) : undefined,
              type: pick(['all', 'deposit', 'flexible']),
              page: int(1, 3),
              pageSize: pick([10, 100]),
            }),
          () => query({ view: 'market', days: int(1, 60) }),
        ])()}`,
      }),
    ],
    [
      4,
      // Not /api/meta/last-updated: it states the moment it was made (generatedAt), kept for a minute.
      () =>
        pick<Asked>([
          { kind: 'other', method: 'GET', path: `/api/changes?limit=${int(1, 200)}` },
          { kind: 'other', method: 'GET', path: '/api/institutions' },
          { kind: 'other', method: 'GET', path: `/api/ledger?page=${int(1, 3)}` },
          { kind: 'other', method: 'GET', path: '/api/openapi.json' },
        ]),
    ],
    [
      12,
      () => {
        const a = amount();
        const body = pick([
          () => ({
            query:
              `{ products(type: ${pick(['ALL', 'DEPOSIT', 'FLEXIBLE'])}, amount: "${a}"` +
              `${maybe(0.3) ? `, sort: ${pick(['RETURN', 'EFFECTIVE', 'TERM'])}` : ''}) { total hiddenByDgs ` +
              'items { id name headlineRate institution { id name } dgs { covered uncovered fullyCovered } ' +
              'calc { comparableYield returnPerYear netInterest } } facets { country { value count } } ' +
              'termCurve { term rate offerId } } }',
          }),
          () => ({
            query:
              'query($id: ID!, $amount: Decimal!) { product(id: $id, amount: $amount) { offer { id calc { ' +
              'netInterest endBalance steps { month interest closingBalance } } } ' +
              'sameLicence { id calc { returnPerYear } } } }',
            variables: { id: pick(market.ids), amount: a },
          }),
          () => ({
            query:
              `{ plan(amount: "${a}", maxOffers: ${int(1, 5)}) { ` +
              'allocations { offer { id calc { netInterest } } amount } totals { placed } optimal } }',
          }),
          () => ({
            query:
              `{ offers(ids: ${JSON.stringify(some(market.ids, 3))}, amount: "${a}") ` +
              '{ offer { id calc { effectiveRate } } } }',
          }),
          () => ({ query: `{ products(amount: "-5") { total } }` }),
          () => ({ query: `{ nothingHere }` }),
        ])();
        return { kind: 'graphql', method: 'POST', path: '/graphql', body: JSON.stringify(body) };
      },
    ],
    [
      8,
      () => ({
        kind: 'bad',
        method: 'GET',
        path: pick([
          () => `/api/products?amount=${pick(['-1', 'abc', '1e999', '0', '12.345'])}&type=${pick(['all', 'savings'])}`,
          () =>
            `/api/products?pageSize=${pick(['0', '501', 'x'])}&sort=${pick(['return', 'best'])}` +
            `&page=${pick(['0', '-2', '1'])}`,
          () =>
            `/api/products/${pick(['no-such-offer', '%E0%A4%A', encodeURIComponent(pick(market.ids))])}` +
            `?amount=${pick(['1', '-3', 'x'])}`,
          () => `/api/rates/history?view=${pick(['market', 'nope'])}&days=${pick(['0', '9999', '7'])}`,
          () => `/api/plan?amount=${pick(['', '0', '2e6'])}&maxOffers=${pick(['0', '99', '3'])}`,
          () => `/api/nowhere?x=${int(1, 9)}`,
        ])(),
      }),
    ],
  ];
  const total = kinds.reduce((s, [w]) => s + w, 0);
  return Array.from({ length: n }, () => {
    let r = rnd() * total;
    for (const [w, make] of kinds) if ((r -= w) < 0) return make();
    return kinds[0]![1]();
  });
}

async function ask(svc: RunningService, a: Asked): Promise<Answer> {
  const res = await fetch(`${svc.base}${a.path}`, {
    method: a.method,
    // identity: compressed bytes would differ with the compressor's settings, not with the answer
    headers: { 'accept-encoding': 'identity', ...(a.body ? { 'content-type': 'application/json' } : {}) },
    ...(a.body ? { body: a.body } : {}),
  });
  return {
    status: res.status,
    headers: [...res.headers].filter(([name]) => !PER_REQUEST.has(name)),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

/** Each part where two answers differ: the status, a header, the body (where its JSON first differs). */
function differences(base: Answer, head: Answer): string[] {
  const found: string[] = [];
  if (base.status !== head.status) found.push(`status: ${base.status} → ${head.status}`);
  const b = new Map(base.headers);
  const h = new Map(head.headers);
  for (const name of new Set([...b.keys(), ...h.keys()]))
    if (b.get(name) !== h.get(name))
      found.push(`header ${name}: ${b.get(name) ?? '(none)'} → ${h.get(name) ?? '(none)'}`);
  if (base.body.equals(head.body)) return found;
  try {
    found.push(
      `body ${
        firstDifference(JSON.parse(base.body.toString('utf8')), JSON.parse(head.body.toString('utf8')), '$') ||
        '$: the same JSON in other bytes'
      }`,
    );
  } catch {
    let i = 0;
    while (i < base.body.length && base.body[i] === head.body[i]) i++;
    const at = (x: Buffer) => JSON.stringify(x.subarray(i, i + 40).toString());
    found.push(`body from byte ${i}: ${at(base.body)} → ${at(head.body)}`);
  }
  return found;
}

/** What a difference is about, to count them: "status", "header NAME", "body $.path" (array indexes as []). */
const topic = (d: string) => d.slice(0, d.indexOf(':')).replace(/\.\d+(?=\.|$)/g, '[]');

function firstDifference(a: unknown, b: unknown, at: string): string {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    const ka = Object.keys(a).join(',');
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
    if (ka !== Object.keys(b).join(',')) return `${at}: keys in another order`;
    return '';
  }
  return a === b ? '' : `${at}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`;
}

async function main() {
  const sha = shortCommit(against);
  const checkout = baseline(against, node);
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'answers-'));
  const end = new Date().toISOString().slice(0, 10);
  const started = (dir: string, at?: string) =>
    startService({ scale: 1, days, end, dataDir: path.join(scratch, dir), node, ...(at ? { checkout: at } : {}) });
  // One database for both, seeded by the baseline and copied: a seeding's ledger chains its entries' hashes
  // with the moment of the ingest, so two seedings differ in Data-Chain. This build migrates it forward.
  await (await started('base', checkout)).stop();
  await cp(path.join(scratch, 'base'), path.join(scratch, 'head'), { recursive: true });
  const services = { base: await started('base', checkout), head: await started('head') };
  try {
    const all = (await (
      await fetch(`${services.head.base}/api/products?type=all&fullDgs=false&includeIneligible=true&pageSize=500`)
    ).json()) as { items: { id: string; brand: { id: string; country: string } }[] };
    const market: Market = {
      ids: all.items.map((i) => i.id),
      brands: [...new Set(all.items.map((i) => i.brand.id))],
      countries: [...new Set(all.items.map((i) => i.brand.country))],
    };
    const asked = draw(market, count, seeded(seed));
    const recorded: { kind: string; method: string; path: string; body?: string; status: number; sha256: string }[] =
      [];
    const differing: { asked: Asked; where: string[] }[] = [];
    let next = 0;
    // Four at a time, each asked of both at once: the two services see the same order and the same moment.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < asked.length) {
          const i = next++;
          const a = asked[i]!;
          const [base, head] = await Promise.all([ask(services.base, a), ask(services.head, a)]);
          const where = differences(base, head);
          if (where.length > 0) differing.push({ asked: a, where });
          const hash = createHash('sha256').update(String(head.status));
          for (const [name, value] of head.headers) hash.update(`\n${name}: ${value}`);
          recorded[i] = { ...a, status: head.status, sha256: hash.update('\n\n').update(head.body).digest('hex') };
        }
      }),
    );
    const byKind = new Map<string, { asked: number; differing: number; statuses: Record<number, number> }>();
    for (const r of recorded) {
      const k = byKind.get(r.kind) ?? { asked: 0, differing: 0, statuses: {} };
      k.asked++;
      k.statuses[r.status] = (k.statuses[r.status] ?? 0) + 1;
      byKind.set(r.kind, k);
    }
    for (const d of differing) byKind.get(d.asked.kind)!.differing++;
    console.error(`${count} requests, this build against ${sha} (seed ${seed}, ${days} days of the sample market):`);
    for (const [kind, k] of byKind)
      console.error(
        `  ${kind.padEnd(8)} ${String(k.asked).padStart(5)} asked, ${k.differing} differ; ` +
          `statuses ${JSON.stringify(k.statuses)}`,
      );
    for (const d of differing.slice(0, 20))
      console.error(`  differs: ${d.asked.method} ${d.asked.path}\n    ${d.where.join('\n    ')}`);
    const topics = new Map<string, number>();
    for (const d of differing) for (const w of d.where) topics.set(topic(w), (topics.get(topic(w)) ?? 0) + 1);
    for (const [t, n] of [...topics].sort((x, y) => y[1] - x[1])) console.error(`  ${n} answers differ in ${t}`);
    console.error(
      differing.length === 0
        ? `every answer byte for byte the same (status, headers, body)`
        : `${differing.length} of ${count} answers differ`,
    );
    const at = new Date().toISOString();
    const file = path.join(root, 'bench', 'results', `answers-${at.replace(/[:.]/g, '-')}.json`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ at, against: sha, seed, days, end, differing, recorded }, null, 1));
    console.error(`written to ${path.relative(root, file)}`);
    process.exitCode = differing.length === 0 ? 0 : 1;
  } finally {
    await services.base.stop();
    await services.head.stop();
    if (keepData) console.error(`the database both served: ${path.join(scratch, 'head')} (this build's copy)`);
    else await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
