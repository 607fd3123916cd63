// The soak's traffic, shared by npm run soak (closed loop) and npm run bench:overload (open loop): lists
// with random filters and amounts, details, exports, GraphQL, conditional requests and the database-backed
// endpoints, all valid, so that every answer is 200 or 304 (or 503 when the service refuses for load).
import type { Rng } from '../src/sample/random.js';

export interface Market {
  offerIds: string[];
  countries: string[];
  brandWords: string[];
  brandIds: string[];
  /** Popular URLs with their ETags, for conditional requests. */
  tagged: { path: string; etag: string }[];
}

export async function json<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

export async function survey(base: string): Promise<Market> {
  const offerIds: string[] = [];
  for (let page = 1; ; page++) {
    const list = await json<{ items: { id: string }[]; total: number }>(
      `${base}/api/products?type=all&fullDgs=false&includeIneligible=true&pageSize=500&page=${page}`,
    );
    offerIds.push(...list.items.map((i) => i.id));
    if (offerIds.length >= list.total || list.items.length === 0) break;
  }
  const institutions = await json<{
    items: { country: string; brands: { id: string; name: string }[] }[];
  }>(`${base}/api/institutions`);
  const brands = institutions.items.flatMap((i) => i.brands);
  const popular = [
    '/api/products',
    '/api/products?type=all',
    '/api/products?type=deposit&sort=effective',
    '/api/institutions',
    '/api/meta/last-updated',
    `/api/products/${offerIds[0]}`,
  ];
  const tagged = await Promise.all(
    popular.map(async (p) => ({
      path: p,
      etag: (await fetch(`${base}${p}`)).headers.get('etag') ?? '',
    })),
  );
  return {
    offerIds,
    countries: [...new Set(institutions.items.map((i) => i.country))],
    brandWords: [...new Set(brands.flatMap((b) => b.name.split(/\s+/)).filter((w) => w.length >= 3))],
    brandIds: brands.map((b) => b.id),
    tagged,
  };
}

export type Kind = 'list' | 'detail' | 'export' | 'graphql' | 'conditional' | 'history' | 'other';
const MIX: [Kind, number][] = [
  ['list', 40],
  ['detail', 20],
  ['export', 3],
  ['graphql', 12],
  ['conditional', 15],
  ['history', 5],
  ['other', 5],
];

const amountOf = (rng: Rng) =>
  rng.chance(0.3)
    ? String(rng.pick([1000, 5000, 10000, 25000, 50000, 100000, 250000]))
    : (rng.int(100, 100_000_000) / 100).toFixed(2);

function listQuery(rng: Rng, m: Market): string {
  const q = new URLSearchParams({
    amount: amountOf(rng),
    type: rng.pick(['flexible', 'notice', 'deposit', 'all']),
  });
  const maybe = (p: number, name: string, value: () => string) => rng.chance(p) && q.set(name, value());
  maybe(0.3, 'horizon', () => String(rng.int(1, 120)));
  maybe(0.3, 'sort', () => rng.pick(['return', 'effective', 'headline', 'term', 'bank', 'country', 'verified', 'min']));
  maybe(0.2, 'order', () => rng.pick(['asc', 'desc']));
  maybe(0.2, 'channel', () => rng.pick(['all', 'direct', 'aggregator', 'platform']));
  maybe(0.2, 'country', () => Array.from({ length: rng.int(1, 3) }, () => rng.pick(m.countries)).join(','));
  maybe(0.1, 'dgsCountry', () => rng.pick(m.countries));
  maybe(0.2, 'fullDgs', () => rng.pick(['true', 'false']));
  maybe(0.1, 'withholding', () => rng.pick(['all', 'none', 'reducible', 'applicable']));
  maybe(0.15, 'promotions', () => rng.pick(['include', 'exclude', 'only']));
  maybe(0.1, 'newCustomers', () => rng.pick(['all', 'yes', 'no']));
  maybe(0.1, 'payout', () => rng.pick(['MONTHLY', 'QUARTERLY', 'ANNUALLY', 'AT_MATURITY', 'MONTHLY,ANNUALLY']));
  maybe(0.05, 'currentAccount', () => rng.pick(['all', 'no']));
  maybe(0.05, 'fees', () => rng.pick(['all', 'none']));
  maybe(0.05, 'earlyWithdrawal', () => rng.pick(['all', 'allowed']));
  maybe(0.1, 'freshness', () => rng.pick(['all', '24h', 'official', 'confirmed']));
  maybe(0.1, 'includeIneligible', () => rng.pick(['true', 'false']));
  maybe(0.1, 'zoek', () => rng.pick(m.brandWords));
  maybe(0.05, 'brand', () => rng.pick(m.brandIds));
  if (q.get('type') === 'deposit' || q.get('type') === 'all') {
    maybe(0.15, 'terms', () => rng.pick(['12', '6,12,24', '60']));
    maybe(0.1, 'termMin', () => String(rng.pick([1, 3, 12])));
    maybe(0.1, 'termMax', () => String(rng.pick([12, 24, 120])));
  }
  maybe(0.05, 'noticeMax', () => String(rng.pick([30, 90, 365])));
  maybe(0.2, 'page', () => String(rng.int(1, 3)));
  maybe(0.3, 'pageSize', () => String(rng.pick([10, 20, 50, 100, 500])));
  return q.toString();
}

export function nextRequest(
  rng: Rng,
  m: Market,
): {
  kind: Kind;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
} {
  const kind = rng.weighted(MIX);
  switch (kind) {
    case 'list':
      return {
        kind,
        method: 'GET',
        path: `/api/products?${listQuery(rng, m)}`,
      };
    case 'detail':
      return {
        kind,
        method: 'GET',
        path:
          `/api/products/${encodeURIComponent(rng.pick(m.offerIds))}?amount=${amountOf(rng)}` +
          `${rng.chance(0.3) ? `&horizon=${rng.int(1, 60)}` : ''}`,
      };
    case 'export':
      return {
        kind,
        method: 'GET',
        path: `/api/products/export?${listQuery(rng, m)}`,
      };
    case 'graphql': {
      const query = rng.chance(0.5)
        ? 'query($a: Decimal!, $t: TypeFilter!) { products(amount: $a, type: $t, pageSize: 20) { total items { ' +
          'id name headlineRate dgs { covered uncovered } calc { comparableYield returnPerYear netInterest } ' +
          '} } }'
        : 'query($id: ID!, $a: Decimal!) { product(id: $id, amount: $a) { offer { id calc { netInterest steps { ' +
          'month interest closingBalance } } } history { validFrom headlineRate } events { kind at } } }';
      const variables = query.includes('products')
        ? {
            a: amountOf(rng),
            t: rng.pick(['FLEXIBLE', 'NOTICE', 'DEPOSIT', 'ALL']),
          }
        : { id: rng.pick(m.offerIds), a: amountOf(rng) };
      return {
        kind,
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      };
    }
    case 'conditional': {
      const t = rng.pick(m.tagged);
      return {
        kind,
        method: 'GET',
        path: t.path,
        headers: { 'if-none-match': t.etag },
      };
    }
    case 'history':
      return rng.weighted<{ kind: Kind; method: 'GET'; path: string }>([
        [
          {
            kind,
            method: 'GET',
            path: `/api/rates/history?offerId=${encodeURIComponent(rng.pick(m.offerIds))}&limit=${rng.int(1, 100)}`,
          },
          4,
        ],
        [
          {
            kind,
            method: 'GET',
            path:
              `/api/rates/history?type=${rng.pick(['all', 'flexible', 'deposit'])}&page=${rng.int(1, 20)}` +
              `&pageSize=${rng.pick([20, 100])}`,
          },
          4,
        ],
        [
          {
            kind,
            method: 'GET',
            path: `/api/rates/history?view=market&days=${rng.pick([30, 90, 365])}`,
          },
          1,
        ],
      ]);
    default:
      return {
        kind,
        method: 'GET',
        path: rng.pick([
          '/api/institutions',
          `/api/changes?limit=${rng.int(1, 200)}`,
          '/api/meta/last-updated',
          '/api/health',
          '/api/openapi.json',
        ]),
      };
  }
}
