// The REST facade as clients of the spec use it: black-box through app.fetch.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { validate } from '@readme/openapi-parser';
import axios from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvRow, type ExportItem } from '../src/rest/csv.js';
import { Decimal } from '../src/domain/decimal.js';
import { respellObject } from '../src/rest/spelling.js';
import { schema } from '../src/graphql/schema/index.js';
import { createTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function getJson<T = any>(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; headers: Headers; body: T }> {
  const res = await t.get(path, init);
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

/** The GraphQL answer in REST spelling (enum values as the contract spells them). */
async function viaGraphql(query: string, variables?: Record<string, unknown>): Promise<any> {
  const { body } = await t.graphql(query, variables);
  expect(body.errors).toBeUndefined();
  return respellObject(body.data as Record<string, unknown>, schema.getQueryType()!);
}

const OFFER_KEYS = [
  'id',
  'name',
  'type',
  'brand',
  'institution',
  'channel',
  'platform',
  'termMonths',
  'noticeDays',
  'payout',
  'minAmount',
  'maxAmount',
  'rateType',
  'headlineRate',
  'tierMode',
  'tiers',
  'promotion',
  'openToNewCustomers',
  'currentAccountRequired',
  'annualFee',
  'earlyWithdrawal',
  'interestCompounds',
  'withholding',
  'freshness',
  'sourceUrl',
  'eligible',
  'ineligibleReason',
  'calc',
  'dgs',
];
const CALC_KEYS = [
  'amount',
  'months',
  'promotionApplied',
  'nominalRate',
  'grossInterest',
  'withholdingTax',
  'fees',
  'netInterest',
  'endBalance',
  'comparableYield',
  'effectiveRate',
  'returnPerYear',
  'steps',
];
const DGS_KEYS = [
  'scheme',
  'country',
  'limit',
  'verified',
  'covered',
  'uncovered',
  'coveredPercent',
  'fullyCovered',
  'sharedWith',
];
const MONEY = /^-?\d+\.\d{2}$/;

describe('GET /api/products', () => {
  it('answers the spec defaults: flexible, 50000, 12 months, full DGS cover, 50 per page', async () => {
    const { status, headers, body } = await getJson('/api/products');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(body)).toEqual([
      'items',
      'total',
      'hiddenByDgs',
      'hiddenIneligible',
      'facets',
      'termCurve',
      'typeMax',
      'market',
      'generatedAt',
      'page',
      'pageSize',
      'pages',
      'method',
    ]);
    expect(body).toMatchObject({ page: 1, pageSize: 50, pages: Math.max(1, Math.ceil(body.total / 50)) });
    expect(body.items).toHaveLength(Math.min(50, body.total));
    for (const item of body.items) {
      expect(Object.keys(item)).toEqual(OFFER_KEYS);
      expect(Object.keys(item.calc)).toEqual(CALC_KEYS);
      expect(Object.keys(item.dgs)).toEqual(DGS_KEYS);
      expect(item.type).toBe('flexible');
      expect(item.calc).toMatchObject({ amount: '50000.00', months: 12, steps: [] });
      expect(item.dgs.fullyCovered).toBe(true);
      for (const key of ['grossInterest', 'netInterest', 'comparableYield', 'returnPerYear'])
        expect(item.calc[key]).toMatch(MONEY);
    }
    const returns = body.items.map((i: any) => Number(i.calc.returnPerYear));
    expect(returns).toEqual([...returns].sort((a, b) => b - a));
    expect(Object.keys(body.facets)).toEqual([
      'type',
      'channel',
      'country',
      'dgsCountry',
      'payout',
      'term',
      'withholding',
    ]);
    expect(Object.keys(body.typeMax)).toEqual(['flexible', 'notice', 'deposit']);
    expect(Object.keys(body.market)).toEqual(['offers', 'institutions', 'verifiedDgs', 'best']);
    expect(Object.keys(body.market.best)).toEqual(['flexible', 'notice', 'deposit12', 'deposit60']);
  });

  // Each parameter, in the spec's spelling, must mean what the GraphQL argument means.
  const cases: [string, string][] = [
    ['amount=12345.67', 'amount: "12345.67"'],
    ['horizon=36', 'horizon: 36'],
    ['type=deposit', 'type: DEPOSIT'],
    ['type=all&terms=12,24', 'type: ALL, terms: [12, 24]'],
    ['type=deposit&termMin=12&termMax=36', 'type: DEPOSIT, termMin: 12, termMax: 36'],
    ['type=all&channel=aggregator', 'type: ALL, channel: AGGREGATOR'],
    ['type=all&country=nl,DE', 'type: ALL, country: ["NL", "DE"]'],
    ['type=all&dgsCountry=LT', 'type: ALL, dgsCountry: ["LT"]'],
    ['type=all&fullDgs=false&amount=250000', 'type: ALL, fullDgs: false, amount: "250000"'],
    ['type=all&withholding=reducible', 'type: ALL, withholding: REDUCIBLE'],
    ['type=all&promotions=exclude', 'type: ALL, promotions: EXCLUDE'],
    ['type=all&promotions=only', 'type: ALL, promotions: ONLY'],
    ['type=all&newCustomers=no', 'type: ALL, newCustomers: NO'],
    ['type=all&payout=MONTHLY,at_maturity', 'type: ALL, payout: [MONTHLY, AT_MATURITY]'],
    ['type=all&currentAccount=no', 'type: ALL, currentAccount: NO'],
    ['type=all&fees=none', 'type: ALL, fees: NONE'],
    ['type=deposit&earlyWithdrawal=allowed', 'type: DEPOSIT, earlyWithdrawal: ALLOWED'],
    ['type=notice&noticeMax=60', 'type: NOTICE, noticeMax: 60'],
    ['type=all&freshness=24h', 'type: ALL, freshness: LAST_24H'],
    ['type=all&freshness=official', 'type: ALL, freshness: OFFICIAL'],
    ['type=all&includeIneligible=true&amount=200', 'type: ALL, includeIneligible: true, amount: "200"'],
    ['type=all&sort=effective', 'type: ALL, sort: EFFECTIVE'],
    ['type=all&sort=term&order=desc', 'type: ALL, sort: TERM, order: DESC'],
    ['type=all&sort=bank', 'type: ALL, sort: BANK'],
    ['type=all&sort=verified&order=asc', 'type: ALL, sort: VERIFIED, order: ASC'],
    ['type=all&zoek=bank', 'type: ALL, zoek: "bank"'],
    ['type=all&page=3&pageSize=7', 'type: ALL, page: 3, pageSize: 7'],
  ];
  it.each(cases)('?%s is products(%s)', async (query, args) => {
    const rest = await getJson(`/api/products?${query}`);
    expect(rest.status).toBe(200);
    const graphql = await viaGraphql(
      `{ products(${args}) { total hiddenByDgs hiddenIneligible items { id calc { amount months netInterest ` +
        `returnPerYear } eligible } } }`,
    );
    expect({
      total: rest.body.total,
      hiddenByDgs: rest.body.hiddenByDgs,
      hiddenIneligible: rest.body.hiddenIneligible,
    }).toEqual({
      total: graphql.products.total,
      hiddenByDgs: graphql.products.hiddenByDgs,
      hiddenIneligible: graphql.products.hiddenIneligible,
    });
    expect(
      rest.body.items.map((i: any) => ({
        id: i.id,
        calc: {
          amount: i.calc.amount,
          months: i.calc.months,
          netInterest: i.calc.netInterest,
          returnPerYear: i.calc.returnPerYear,
        },
        eligible: i.eligible,
      })),
    ).toEqual(graphql.products.items);
  });

  it('finds a brand by id or by name', async () => {
    const offer = t.app.services.store.current().offers[0]!;
    const byId = await getJson(`/api/products?type=all&brand=${offer.brand.id}&fullDgs=false`);
    const byName = await getJson(
      `/api/products?type=all&brand=${encodeURIComponent(offer.brand.name.toUpperCase())}&fullDgs=false`,
    );
    expect(byId.body.total).toBeGreaterThan(0);
    expect(byName.body.items.map((i: any) => i.id)).toEqual(byId.body.items.map((i: any) => i.id));
    for (const item of byId.body.items) expect(item.brand.id).toBe(offer.brand.id);
  });

  it('treats an empty value as absent and ignores unknown parameters', async () => {
    const plain = await getJson('/api/products?type=all');
    const empty = await getJson('/api/products?type=all&country=&terms=&amount=&sort=&utm_source=newsletter');
    expect(empty.body).toEqual(plain.body);
  });

  it.each([
    ['amount=0', ['amount']],
    ['amount=-5', ['amount']],
    ['amount=1000000001', ['amount']],
    ['amount=12.345', ['amount']],
    ['amount=twelve', ['amount']],
    ['amount=NaN', ['amount']],
    ['amount=Infinity', ['amount']],
    ['amount=1e6', ['amount']],
    ['horizon=0', ['horizon']],
    ['horizon=601', ['horizon']],
    ['horizon=1.5', ['horizon']],
    ['type=savings', ['type']],
    ['terms=0', ['terms']],
    ['terms=12,x', ['terms']],
    ['termMin=601', ['termMin']],
    ['termMax=0', ['termMax']],
    ['termMin=36&termMax=12', ['termMin']],
    ['channel=bank', ['channel']],
    ['country=NLD', ['country']],
    ['dgsCountry=1', ['dgsCountry']],
    ['fullDgs=yes', ['fullDgs']],
    ['withholding=some', ['withholding']],
    ['promotions=all', ['promotions']],
    ['newCustomers=maybe', ['newCustomers']],
    ['payout=WEEKLY', ['payout']],
    ['currentAccount=yes', ['currentAccount']],
    ['fees=low', ['fees']],
    ['earlyWithdrawal=never', ['earlyWithdrawal']],
    ['noticeMax=-1', ['noticeMax']],
    ['freshness=12h', ['freshness']],
    ['includeIneligible=1', ['includeIneligible']],
    ['sort=rate', ['sort']],
    ['order=up', ['order']],
    [`brand=${'b'.repeat(101)}`, ['brand']],
    [`zoek=${'z'.repeat(101)}`, ['zoek']],
    ['page=0', ['page']],
    ['pageSize=501', ['pageSize']],
    ['pageSize=0', ['pageSize']],
    ['amount=1&amount=2', ['amount']],
    [
      'amount=-1&horizon=0&type=x&page=0&pageSize=9999&termMin=9&termMax=3',
      ['amount', 'horizon', 'type', 'page', 'pageSize', 'termMin'],
    ],
  ])('?%s is a 400 naming %j', async (query, parameters) => {
    const { status, headers, body } = await getJson(`/api/products?${query}`);
    expect(status).toBe(400);
    expect(headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({
      type: expect.any(String),
      title: expect.any(String),
      status: 400,
      detail: expect.any(String),
    });
    expect(body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual([...parameters].sort());
    for (const e of body.errors) expect(e.message.length).toBeGreaterThan(5);
  });
});

describe('paging (contract §11.3)', () => {
  /** rel → the URL's query, from an RFC 8288 Link header. */
  function links(header: string | null): Record<string, URLSearchParams> {
    const out: Record<string, URLSearchParams> = {};
    for (const part of (header ?? '').split(/,\s*(?=<)/)) {
      const m = /^<([^>]*)>;\s*rel="(\w+)"$/.exec(part.trim());
      if (m) out[m[2]!] = new URL(m[1]!, 'http://test.local').searchParams;
    }
    return out;
  }

  it("links first, prev, next and last from the request's own query, only those that exist", async () => {
    const query = 'type=all&terms[]=12&terms[]=24&fullDgs=false&pageSize=5&utm_source=feed';
    const first = await getJson(`/api/products?${query}`);
    const { pages, total } = first.body;
    expect(pages).toBe(Math.ceil(total / 5));
    expect(pages).toBeGreaterThan(3);
    const l1 = links(first.headers.get('link'));
    expect(Object.keys(l1)).toEqual(['first', 'next', 'last']);
    expect(l1.next!.get('page')).toBe('2');
    expect(l1.last!.get('page')).toBe(String(pages));
    // The rest of the query is the client's own: its list form and even parameters we ignore.
    expect(l1.next!.getAll('terms[]')).toEqual(['12', '24']);
    expect(l1.next!.get('utm_source')).toBe('feed');

    const middle = await getJson(`/api/products?${query}&page=2`);
    expect(Object.keys(links(middle.headers.get('link')))).toEqual(['first', 'prev', 'next', 'last']);
    expect(links(middle.headers.get('link')).prev!.get('page')).toBe('1');
    const last = await getJson(`/api/products?${query}&page=${pages}`);
    expect(Object.keys(links(last.headers.get('link')))).toEqual(['first', 'prev', 'last']);
    // Following next from page 1 to the end visits every item once.
    const seen: string[] = [];
    let next: string | null = `/api/products?${query}`;
    while (next) {
      const res: { headers: Headers; body: any } = await getJson(next);
      seen.push(...res.body.items.map((i: any) => i.id));
      const n: URLSearchParams | undefined = links(res.headers.get('link')).next;
      next = n ? `/api/products?${n}` : null;
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });

  it('gives an empty list one page, and a page past the end links back into the list', async () => {
    const empty = await getJson('/api/products?zoek=nothing-matches-this');
    expect(empty.body).toMatchObject({ total: 0, page: 1, pages: 1 });
    expect(Object.keys(links(empty.headers.get('link')))).toEqual(['first', 'last']);
    const beyond = await getJson('/api/products?type=all&pageSize=500&page=99');
    expect(beyond.body.items).toEqual([]);
    const l = links(beyond.headers.get('link'));
    expect(Object.keys(l)).toEqual(['first', 'prev', 'last']);
    expect(l.prev!.get('page')).toBe(String(beyond.body.pages));
  });

  it('leaves ignored parameters out of links they would make longer than 8 KB (an 8 KB URL made 32 KB)', async () => {
    const head = '/api/products?type=all&terms[]=12&terms[]=24&pageSize=5&page=2&utm=';
    for (const path of [head + 'x'.repeat(8192 - head.length), `${head}feed`]) {
      const res = await t.get(path);
      expect(res.status).toBe(200);
      const header = res.headers.get('link')!;
      expect(header.length).toBeLessThanOrEqual(8 * 1024);
      const l = links(header);
      expect(Object.keys(l)).toEqual(['first', 'prev', 'next', 'last']);
      expect(l.next!.getAll('terms[]')).toEqual(['12', '24']);
      expect(l.next!.get('pageSize')).toBe('5');
      expect(l.next!.get('page')).toBe('3');
      expect(l.next!.get('utm')).toBe(path.endsWith('feed') ? 'feed' : null);
    }
  });

  it("links the rate-plan listing, but not one offer's plans", async () => {
    const listing = await getJson('/api/rates/history?pageSize=10&page=3');
    expect(listing.body).toMatchObject({ page: 3, pageSize: 10, pages: Math.ceil(listing.body.total / 10) });
    expect(Object.keys(links(listing.headers.get('link')))).toEqual(['first', 'prev', 'next', 'last']);
    const offer = t.app.services.store.current().offers[0]!;
    expect((await t.get(`/api/rates/history?offerId=${offer.id}`)).headers.get('link')).toBeNull();
    expect((await t.get('/api/rates/history?view=market')).headers.get('link')).toBeNull();
  });
});

describe('multi-value parameters in the forms clients send (contract §11.1)', () => {
  // A list given in any client's form is the same list: the answer is byte for byte the comma form's.
  const LISTS: [string, string[]][] = [
    ['terms', ['12', '24']],
    ['country', ['NL', 'DE']],
    ['dgsCountry', ['LT', 'NL']],
    ['payout', ['MONTHLY', 'AT_MATURITY']],
  ];
  const FORMS: [string, (name: string, values: string[]) => string][] = [
    ['repeated', (n, v) => v.map((x) => `${n}=${x}`).join('&')],
    ['bracketed', (n, v) => v.map((x) => `${n}[]=${x}`).join('&')],
    ['bracketed and escaped', (n, v) => v.map((x) => `${n}%5B%5D=${x}`).join('&')],
    ['indexed', (n, v) => v.map((x, i) => `${n}[${i}]=${x}`).join('&')],
    ['mixed', (n, v) => `${n}=${v[0]}&${n}[]=${v.slice(1).join(',')}`],
    ['bracketed with commas', (n, v) => `${n}[]=${v.join(',')}`],
    ['as axios sends it', (n, v) => axios.getUri({ url: '', params: { [n]: v } }).replace(/^\?/, '')],
  ];
  const base = 'type=all&fullDgs=false&amount=20000';

  it.each(
    LISTS.flatMap(([name, values]) => FORMS.map(([form, write]) => [name, form, write(name, values), values] as const)),
  )('%s %s (%s) is the comma-separated list', async (name, _form, query, values) => {
    const comma = await t.get(`/api/products?${base}&${name}=${values.join(',')}`);
    const other = await t.get(`/api/products?${base}&${query}`);
    expect(other.status).toBe(200);
    const [a, b] = [await comma.text(), await other.text()];
    expect(b).toBe(a);
    const all = (await getJson(`/api/products?${base}`)).body.total;
    expect((JSON.parse(a) as { total: number }).total).toBeLessThan(all); // the filter did narrow the list
    const csvComma = await (await t.get(`/api/products/export?${base}&${name}=${values.join(',')}`)).text();
    const csvOther = await t.get(`/api/products/export?${base}&${query}`);
    expect(csvOther.status).toBe(200);
    expect(await csvOther.text()).toBe(csvComma);
  });

  it("narrows axios's default terms[]=12&terms[]=24 to 12- and 24-month deposits", async () => {
    const { body } = await getJson(
      axios.getUri({ url: '/api/products', params: { type: 'all', terms: [12, 24], pageSize: 500 } }),
    );
    const deposits = body.items.filter((i: any) => i.type === 'deposit');
    expect(deposits.length).toBeGreaterThan(0);
    expect(new Set(deposits.map((i: any) => i.termMonths))).toEqual(new Set([12, 24]));
  });

  it.each([
    ['amount[]=1000', 'amount=1000'],
    ['type[]=deposit', 'type=deposit'],
    ['amount=1000&foo[]=1&bar[0]=2', 'amount=1000'],
  ])('reads %s as %s', async (odd, plain) => {
    expect(await (await t.get(`/api/products?${odd}`)).text()).toBe(
      await (await t.get(`/api/products?${plain}`)).text(),
    );
  });

  it.each([
    ['amount=1000&amount[]=2000', ['amount']],
    ['type=all&type[]=deposit', ['type']],
    ['terms[a]=12', ['terms']],
    ['terms[]=12&terms[]=x', ['terms']],
    ['country[nl]=NL&amount=0', ['country', 'amount']],
  ])('answers ?%s with a 400 naming %j', async (query, parameters) => {
    const { status, body } = await getJson(`/api/products?${query}`);
    expect(status).toBe(400);
    expect(body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual([...parameters].sort());
  });
});

describe('GET /api/plan', () => {
  const PLAN_SELECTION =
    '{ allocations { amount offer { id institution { id } calc { amount returnPerYear } ' +
    'dgs { covered fullyCovered } } } ' +
    'totals { amount placed unplaced returnPerYear grossInterest netInterest comparableYield effectiveRate } ' +
    'unplacedReason { code message } generatedAt }';

  it('is the projection of Query.plan, the list forms included', async () => {
    const rest = await getJson('/api/plan?amount=250000&type=deposit&terms[]=12&terms[]=24&maxOffers=4');
    expect(rest.status).toBe(200);
    const graphql = await viaGraphql(
      `query { plan(amount: "250000", type: DEPOSIT, terms: [12, 24], maxOffers: 4) ${PLAN_SELECTION} }`,
    );
    expect(rest.body).toMatchObject(graphql.plan);
    const parts = rest.body.allocations as { amount: string; offer: { institution: { id: string } } }[];
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.length).toBeLessThanOrEqual(4);
    // Every part fully covered, at most one part's worth of each institution's limit in all, and the
    // parts add up to what the totals say was placed.
    const placed = parts.reduce((sum, a) => sum.plus(a.amount), new Decimal(0));
    expect(placed.toFixed(2)).toBe(rest.body.totals.placed);
    expect(new Decimal(rest.body.totals.placed).plus(rest.body.totals.unplaced).toFixed(2)).toBe('250000.00');
    for (const a of rest.body.allocations) expect(a.offer.dgs.fullyCovered).toBe(true);
  });

  it('says why part of the amount stays unplaced', async () => {
    const { status, body } = await getJson('/api/plan?amount=5000000&maxOffers=1');
    expect(status).toBe(200);
    expect(new Decimal(body.totals.unplaced).gt(0)).toBe(true);
    expect(body.unplacedReason.code).toBe('max_offers');
  });

  it('lists every bad parameter at once, as problem+json', async () => {
    const res = await t.get('/api/plan?amount=-5&maxOffers=50&flexibleShare=120&terms=x');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json();
    expect(body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(
      ['amount', 'flexibleShare', 'maxOffers', 'terms'].sort(),
    );
    expect((await t.get('/api/plan')).status).toBe(400); // amount is required
  });

  it('is cached and validated like the list', async () => {
    const first = await t.get('/api/plan?amount=123456');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(first.headers.get('cache-control')).toMatch(/max-age=300/);
    const again = await t.get('/api/plan?amount=123456', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });
});

describe('GET /api/products/{id}', () => {
  it('answers the detail with steps, defaulting to 50000 and 12 months', async () => {
    const offer = t.app.services.store.current().offers.find((o) => o.type === 'flexible')!;
    const { status, body } = await getJson(`/api/products/${offer.id}`);
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['offer', 'history', 'sources', 'events', 'sameLicence', 'method']);
    expect(body.offer.calc).toMatchObject({ amount: '50000.00', months: 12 });
    expect(body.offer.calc.steps).toHaveLength(12);
    expect(Object.keys(body.offer.calc.steps[0])).toEqual([
      'month',
      'openingBalance',
      'rate',
      'interest',
      'credited',
      'withholding',
      'closingBalance',
    ]);
    expect(Object.keys(body.history[0])).toEqual([
      'id',
      'offerId',
      'offer',
      'validFrom',
      'validTo',
      'observedAt',
      'headlineRate',
      'rateType',
      'tierMode',
      'tiers',
      'promotion',
      'sourceId',
    ]);
    expect(Object.keys(body.events[0])).toEqual([
      'id',
      'kind',
      'at',
      'offerId',
      'brandId',
      'institutionId',
      'summary',
      'from',
      'to',
      'impact',
    ]);
    expect(Object.keys(body.sources[0])).toEqual([
      'id',
      'name',
      'kind',
      'url',
      'status',
      'lastCheckedAt',
      'lastSuccessAt',
      'lastError',
    ]);
    const custom = await getJson(`/api/products/${offer.id}?amount=2500.5&horizon=3`);
    expect(custom.body.offer.calc).toMatchObject({ amount: '2500.50', months: 3 });
    const scalars = OFFER_KEYS.filter(
      (k) => !['brand', 'institution', 'tiers', 'promotion', 'withholding', 'freshness', 'calc', 'dgs'].includes(k),
    ).join(' ');
    const calcScalars = CALC_KEYS.filter((k) => k !== 'steps').join(' ');
    const nested =
      'brand { id name country } institution { id name country } tiers { from to rate } ' +
      'promotion { kind rate months maxBalance }';
    const steps = 'month openingBalance rate interest credited withholding closingBalance';
    const history =
      'id offerId offer { id name brand { id name country } } validFrom validTo observedAt headlineRate rateType ' +
      'tierMode tiers { from to rate } promotion { kind rate months maxBalance } sourceId';
    const impact = 'impact { amount returnPerYearBefore returnPerYearAfter delta }';
    expect(custom.body).toEqual(
      await viaGraphql(
        `query($id: ID!) { product(id: $id, amount: "2500.5", horizon: 3) {
      offer { ${scalars}
        ${nested}
        withholding { kind rate reducedRate } freshness { checkedAt official confirmed }
        calc { ${calcScalars} steps { ${steps} } }
        dgs { ${DGS_KEYS.join(' ')} } }
      history { ${history} }
      sources { id name kind url status lastCheckedAt lastSuccessAt lastError }
      events { id kind at offerId brandId institutionId summary from to ${impact} }
      sameLicence { ${scalars}
        ${nested}
        withholding { kind rate reducedRate } freshness { checkedAt official confirmed }
        calc { ${calcScalars} steps { month } } dgs { ${DGS_KEYS.join(' ')} } }
      method } }`,
        { id: offer.id },
      ).then((d) => d.product),
    );
  });

  it('is a 404 problem for an unknown offer, and a 400 for bad parameters', async () => {
    const unknown = await getJson('/api/products/no-such-offer');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(unknown.body).toMatchObject({ status: 404, title: 'Not found' });
    const bad = await getJson('/api/products/anything?amount=0&horizon=700');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.parameter).sort()).toEqual(['amount', 'horizon']);
  });
});

describe('the other endpoints', () => {
  it('GET /api/institutions', async () => {
    const { status, body } = await getJson('/api/institutions');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['items', 'method']);
    expect(Object.keys(body.items[0])).toEqual(['id', 'name', 'country', 'lei', 'dgs', 'brands']);
    expect(Object.keys(body.items[0].dgs)).toEqual(['scheme', 'country', 'limit', 'verified', 'source', 'verifiedAt']);
    expect(Object.keys(body.items[0].brands[0])).toEqual(['id', 'name', 'country', 'website']);
    expect(body).toEqual(
      await viaGraphql(
        '{ institutions { items { id name country lei dgs { scheme country limit verified source verifiedAt } ' +
          'brands { id name country website } } method } }',
      ).then((d) => d.institutions),
    );
  });

  it('GET /api/changes: 50 by default, limit otherwise', async () => {
    const { body } = await getJson('/api/changes');
    expect(body.items).toHaveLength(50);
    expect(body.items[0].kind).toMatch(
      /^(rate_up|rate_down|promotion_start|promotion_end|new_offer|removed_offer|dgs_change)$/,
    );
    expect((await getJson('/api/changes?limit=3')).body.items).toHaveLength(3);
    expect((await getJson('/api/changes?limit=0')).status).toBe(400);
    expect((await getJson('/api/changes?limit=501')).status).toBe(400);
  });

  it('GET /api/rates/history: listing (100 per page), one offer (limit 100), market view (90 days)', async () => {
    const listing = await getJson('/api/rates/history');
    expect(Object.keys(listing.body)).toEqual(['items', 'total', 'page', 'pageSize', 'pages', 'method']);
    expect(listing.body).toMatchObject({ page: 1, pageSize: 100 });
    expect(listing.body.items).toHaveLength(100);
    const offer = t.app.services.store.current().offers[0]!;
    const one = await getJson(`/api/rates/history?offerId=${offer.id}`);
    expect(one.body.pageSize).toBe(100);
    expect(one.body.items.every((p: any) => p.offerId === offer.id)).toBe(true);
    const market = await getJson('/api/rates/history?view=market');
    expect(market.body.items).toHaveLength(90);
    expect(Object.keys(market.body.items[0])).toEqual(['date', 'flexible', 'notice', 'deposit12', 'deposit60']);
    expect((await getJson('/api/rates/history?view=market&days=7')).body.items).toHaveLength(7);
    const filtered = await getJson(`/api/rates/history?type=deposit&brand=${offer.brand.id}&page=1&pageSize=5`);
    expect(filtered.body).toEqual(
      await viaGraphql(
        `{ rateHistory(type: DEPOSIT, brand: "${offer.brand.id}", page: 1, pageSize: 5) { items { id offerId ` +
          `offer { id name brand { id name country } } validFrom validTo observedAt headlineRate rateType ` +
          `tierMode tiers { from to rate } promotion { kind rate months maxBalance } sourceId } total page ` +
          `pageSize pages method } }`,
      ).then((d) => d.rateHistory),
    );
    expect((await getJson('/api/rates/history?offerId=nope')).status).toBe(404);
    const bad = await getJson('/api/rates/history?view=table&days=0&limit=501&pageSize=0&type=bond');
    expect(bad.body.errors.map((e: any) => e.parameter).sort()).toEqual(['days', 'limit', 'pageSize', 'type', 'view']);
  });

  it('GET /api/meta/last-updated', async () => {
    const { body } = await getJson('/api/meta/last-updated');
    expect(Object.keys(body)).toEqual([
      'generatedAt',
      'lastIngestAt',
      'dataVersion',
      'stale',
      'offers',
      'sources',
      'method',
    ]);
    expect(Object.keys(body.offers)).toEqual(['active', 'removed', 'checked24h', 'official', 'confirmed']);
    expect(Object.keys(body.sources)).toEqual(['total', 'ok', 'failing', 'items']);
    expect(body.sources.items[0].kind).toMatch(/^(official|aggregator|manual)$/);
  });

  it('GET /api/health: 200 ok, 503 degraded when the data is too old, never cached', async () => {
    const ok = await getJson('/api/health');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      status: 'ok',
      checks: { database: 'ok', data: 'ok', capacity: 'ok' },
      dataAgeSeconds: 21600,
    });
    expect(ok.headers.get('cache-control')).toBe('no-cache');
    const now = t.clock.now;
    t.clock.now = new Date(now.getTime() + 3 * 86_400_000);
    try {
      const stale = await getJson('/api/health');
      expect(stale.status).toBe(503);
      expect(stale.body).toMatchObject({ status: 'degraded', checks: { database: 'ok', data: 'stale' } });
      expect(stale.headers.get('cache-control')).toBe('no-cache');
    } finally {
      t.clock.now = now;
    }
  });
});

describe('the numbers agree (contract §11.2)', () => {
  // The meta summary's `stale` and health's `checks.data` are one rule: around the maximum age, to the
  // millisecond, they never disagree (they did for the second after it: one compared milliseconds, the
  // other whole seconds).
  it.each([-1_000, -1, 0, 1, 500, 999, 1_000, 1_001, 86_400_000])(
    'say the same of the data %i ms past its maximum age',
    async (past) => {
      const observed = t.app.services.store.current().lastObservedAt!;
      const now = t.clock.now;
      t.clock.now = new Date(observed.getTime() + t.config.maxDataAgeSeconds * 1000 + past);
      try {
        // POST: never a cached answer (a GET of the summary is reused within its minute)
        const meta = (await t.graphql<{ meta: { stale: boolean } }>('{ meta { stale } }')).body.data!.meta;
        const health = await getJson('/api/health');
        expect(meta.stale).toBe(health.body.checks.data !== 'ok');
        expect(meta.stale).toBe(past >= 1_000); // whole seconds: stale once a full second past the maximum
        expect(health.status).toBe(meta.stale ? 503 : 200);
      } finally {
        t.clock.now = now;
      }
    },
  );

  it(
    'shows, in every detail, the last balance as end balance + fees when interest compounds and the amount when ' +
      'it is paid out',
    async () => {
      const offers = t.app.services.store.current().offers;
      const chosen = offers.filter((_, i) => i % 23 === 0);
      expect(chosen.some((o) => o.interestCompounds)).toBe(true);
      expect(chosen.some((o) => !o.interestCompounds)).toBe(true);
      for (const offer of chosen) {
        for (const amount of ['1234.56', '25000', '99999.99']) {
          const { body } = await getJson(`/api/products/${offer.id}?amount=${amount}&horizon=24`);
          const c = body.offer.calc;
          const last = c.steps.at(-1);
          const expected = offer.interestCompounds ? new Decimal(c.endBalance).plus(c.fees) : new Decimal(c.amount);
          expect(last.closingBalance, `${offer.id} ${amount}`).toBe(expected.toFixed(2));
          expect(new Decimal(c.endBalance).eq(new Decimal(c.amount).plus(c.netInterest))).toBe(true);
        }
      }
    },
  );
});

describe('HTTP behaviour', () => {
  it('answers a matching If-None-Match with 304: weak comparison, lists and *', async () => {
    const first = await t.get('/api/products?type=all');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=60');
    for (const tag of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
      const res = await t.get('/api/products?type=all', { headers: { 'if-none-match': tag } });
      expect(res.status, tag).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=60');
      expect(res.headers.get('vary')).toBe('Accept-Encoding, Accept-Datetime');
      expect(res.headers.get('content-type')).toBeNull();
      expect(await res.text()).toBe('');
    }
    expect((await t.get('/api/products?type=all', { headers: { 'if-none-match': 'W/"stale"' } })).status).toBe(200);
    // Another request, another body, another tag.
    expect((await t.get('/api/products?type=notice')).headers.get('etag')).not.toBe(etag);
  });

  it('gives every 200 a weak ETag: JSON, CSV and the OpenAPI document', async () => {
    for (const path of [
      '/api/institutions',
      '/api/products/export',
      '/api/openapi.json',
      '/api/changes',
      '/api/meta/last-updated',
      '/api/rates/history?view=market',
    ]) {
      const res = await t.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('etag'), path).toMatch(/^W\/".+"$/);
      const again = await t.get(path, { headers: { 'if-none-match': res.headers.get('etag')! } });
      expect(again.status, path).toBe(304);
    }
  });

  it('answers HEAD like GET without a body', async () => {
    for (const path of ['/api/products', '/api/products/export', '/api/health', '/api/openapi.json']) {
      const get = await t.get(path);
      const head = await t.app.fetch(new Request(`http://test.local${path}`, { method: 'HEAD' }));
      expect(head.status, path).toBe(get.status);
      expect(head.headers.get('etag'), path).toBe(get.headers.get('etag'));
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(await head.text(), path).toBe('');
    }
  });

  it('answers a CORS preflight, so browsers may send If-None-Match', async () => {
    const res = await t.app.fetch(
      new Request('http://test.local/api/products', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://example.org',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'if-none-match',
        },
      }),
    );
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy();
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])(
    'answers %s on an API path with 405 and Allow: GET, HEAD',
    async (method) => {
      const res = await t.app.fetch(
        new Request('http://test.local/api/products', { method, body: method === 'POST' ? '{}' : undefined }),
      );
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    },
  );

  it('answers unknown paths with a 404 problem', async () => {
    for (const path of ['/api/nothing', '/api/products/abc/def', '/nothing', '/graphiql/evil.js']) {
      const res = await t.get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { status: number }).status).toBe(404);
    }
  });

  it('compresses with brotli or gzip when accepted, and says so in Vary', async () => {
    const plain = await (await t.get('/api/products?type=all')).text();
    const br = await t.get('/api/products?type=all', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding, Accept-Datetime');
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(plain);
    const gz = await t.get('/api/products?type=all', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(plain);
    const csv = await t.get('/api/products/export', { headers: { 'accept-encoding': 'gzip' } });
    expect(csv.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await csv.arrayBuffer())).toString()).toMatch(/^\uFEFFid;bank;/);
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    expect((await t.get('/api/health', { headers: { 'x-request-id': 'abc-123' } })).headers.get('x-request-id')).toBe(
      'abc-123',
    );
    expect(
      (await t.get('/api/health', { headers: { 'x-request-id': 'evil\u0001id' } })).headers.get('x-request-id'),
    ).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.get('/api/nothing')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('caches GraphQL GET requests the same way', async () => {
    const query = encodeURIComponent('{ changes(limit: 2) { items { id } } }');
    const first = await t.get(`/graphql?query=${query}`);
    expect(first.headers.get('etag')).toMatch(/^W\//);
    expect(
      (await t.get(`/graphql?query=${query}`, { headers: { 'if-none-match': first.headers.get('etag')! } })).status,
    ).toBe(304);
  });
});

describe('GET /api/products/export', () => {
  it('is every matching row as CSV: BOM, CRLF, `;`, decimal comma, the contract columns', async () => {
    const res = await t.get('/api/products/export?type=all&amount=25000&page=2&pageSize=3');
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="savings-offers.csv"');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // the BOM (Response.text() would drop it)
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const lines = text.slice(1).split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(text.slice(1).replace(/\r\n/g, '')).not.toMatch(/\n/);
    expect(lines[0]).toBe(CSV_COLUMNS.join(';'));
    const rows = lines.slice(1, -1).map((l) => l.split(';'));
    const { body } = await getJson('/api/products?type=all&amount=25000&pageSize=500');
    const second = await getJson('/api/products?type=all&amount=25000&pageSize=500&page=2');
    expect(body.total).toBeGreaterThan(500); // the export spans several internal pages
    expect(rows).toHaveLength(body.total); // page and pageSize are ignored
    expect(rows.map((r) => r[0])).toEqual([...body.items, ...second.body.items].map((i: any) => i.id));
    const [first] = body.items;
    const row = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, rows[0]![i]]));
    expect(row).toMatchObject({
      bank: first.brand.name,
      product: first.name,
      type: first.type,
      country: first.brand.country,
      dgsCountry: first.dgs.country,
      headlineRate: first.headlineRate.replace('.', ','),
      returnPerYear: first.calc.returnPerYear.replace('.', ','),
      endBalance: first.calc.endBalance.replace('.', ','),
      dgsCovered: first.dgs.covered.replace('.', ','),
      payout: first.payout,
      withholding: first.withholding.kind,
      checkedAt: first.freshness.checkedAt,
    });
    for (const r of rows) for (const i of [9, 10, 11, 12, 13]) expect(r[i]).toMatch(/^-?\d+,\d{2}$/);
  });

  it('validates like the list', async () => {
    const res = await getJson('/api/products/export?amount=0');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].parameter).toBe('amount');
  });

  it('guards text cells against formula injection', () => {
    const item: ExportItem = {
      id: 'x',
      name: '=HYPERLINK("http://evil")',
      type: 'flexible',
      brand: { name: '+cmd', country: 'NL' },
      termMonths: null,
      noticeDays: null,
      channel: 'direct',
      headlineRate: '-0.50',
      minAmount: '1.00',
      maxAmount: null,
      payout: 'MONTHLY',
      withholding: { kind: 'none' },
      freshness: { checkedAt: '2026-11-20T05:00:00.000Z' },
      calc: {
        comparableYield: '-0.50',
        effectiveRate: '-0.50',
        returnPerYear: '-250.00',
        grossInterest: '-250.00',
        netInterest: '-250.00',
        endBalance: '49750.00',
      },
      dgs: { country: 'NL', covered: '50000.00', uncovered: '0.00' },
    };
    const row = csvRow(item);
    expect(row[1]).toBe("'+cmd");
    expect(row[2]).toBe(`'=HYPERLINK("http://evil")`);
    expect(row[9]).toBe('-0,50'); // numbers stay numbers
    expect(row[19]).toBe('');
    for (const start of ['@', '\t', '\r', '-']) expect(csvRow({ ...item, name: `${start}x` })[2]).toBe(`'${start}x`);
  });
});

describe('GET /api/openapi.json and /api/docs', () => {
  it('is a valid OpenAPI 3.1 document, version 0.2.0, with every spec path and parameter', async () => {
    const { body } = await getJson('/api/openapi.json');
    expect(body.openapi).toBe('3.1.0');
    expect(body.info.version).toBe('0.2.0');
    const result = await validate(structuredClone(body));
    expect(result.valid, JSON.stringify(result)).toBe(true);
    const spec: Record<string, string[]> = {
      '/api/products': [
        'amount',
        'horizon',
        'type',
        'terms',
        'termMin',
        'termMax',
        'channel',
        'country',
        'dgsCountry',
        'fullDgs',
        'withholding',
        'promotions',
        'newCustomers',
        'payout',
        'currentAccount',
        'fees',
        'earlyWithdrawal',
        'noticeMax',
        'freshness',
        'includeIneligible',
        'sort',
        'brand',
        'zoek',
        'order',
        'page',
        'pageSize',
      ],
      '/api/products/{id}': ['id', 'amount', 'horizon'],
      '/api/products/export': ['amount', 'type', 'sort'],
      '/api/institutions': [],
      '/api/rates/history': ['offerId', 'limit', 'brand', 'type', 'page', 'pageSize', 'view', 'days'],
      '/api/changes': ['limit'],
      '/api/meta/last-updated': [],
      '/api/health': [],
      '/api/openapi.json': [],
    };
    for (const [path, names] of Object.entries(spec)) {
      const op = body.paths[path]?.get;
      expect(op, path).toBeDefined();
      const params = op.parameters.map((p: { name: string }) => p.name);
      for (const name of names) expect(params, `${path} ${name}`).toContain(name);
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(['200', '304', '405']));
      if (names.length > 0) {
        const bad = op.responses['400'].$ref
          ? body.components.responses[op.responses['400'].$ref.split('/').pop()]
          : op.responses['400'];
        expect(bad.content['application/problem+json'], path).toBeDefined();
      }
    }
    const products = Object.fromEntries(body.paths['/api/products'].get.parameters.map((p: any) => [p.name, p.schema]));
    expect(products.amount).toMatchObject({ type: 'number', default: 50000, exclusiveMinimum: 0, maximum: 1e9 });
    expect(products.horizon).toMatchObject({ type: 'integer', default: 12, minimum: 1, maximum: 600 });
    expect(products.type).toMatchObject({ enum: ['flexible', 'notice', 'deposit', 'all'], default: 'flexible' });
    expect(products.freshness.enum).toEqual(['all', '24h', 'official', 'confirmed']);
    expect(products.terms).toMatchObject({ type: 'array', items: { type: 'integer', minimum: 1, maximum: 600 } });
    expect(products.pageSize).toMatchObject({ default: 50, minimum: 1, maximum: 500 });
    expect(products.fullDgs).toMatchObject({ type: 'boolean', default: true });
    const history = Object.fromEntries(
      body.paths['/api/rates/history'].get.parameters.map((p: any) => [p.name, p.schema]),
    );
    expect(history).toMatchObject({
      limit: { default: 100, maximum: 500 },
      pageSize: { default: 100 },
      days: { default: 90, maximum: 3650 },
      view: { enum: ['plans', 'market'], default: 'plans' },
    });
    expect(body.paths['/api/products/export'].get.responses['200'].content['text/csv']).toBeDefined();
    expect(body.paths['/api/health'].get.responses['503']).toBeDefined();
    expect(body.paths['/api/products/{id}'].get.responses['404']).toBeDefined();
    expect(body.components.schemas.Offer.properties.type.enum).toEqual(['flexible', 'notice', 'deposit']);
  });

  it('renders a human-readable reference without assets from elsewhere', async () => {
    const res = await t.get('/api/docs');
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/GET \/api\/products\/export/);
    expect(html).toMatch(/id="problem-invalid-parameters"/);
    expect(html).not.toMatch(/<script|<link[^>]+href="https?:|src="https?:/);
  });
});

describe('the calculation guide', () => {
  it("is where the schema's Calc description says, as a page of the service", async () => {
    const calc = schema.getType('Calc')!.description!;
    const link = /(\/api\/docs\/[\w/-]+)/.exec(calc)?.[1];
    expect(link).toBeDefined();
    const res = await t.get(link!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<h1>How an offer is calculated</h1>');
    expect(html).toMatch(/<table>[\s\S]*comparableYield/); // the markdown's tables are rendered
  });
});
