// The GraphQL API through app.fetch, against a generated market in a real database.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_LIMITS } from '../src/graphql/limits.js';
import { sofaProjection } from '../src/rest/projection.js';
import { schema } from '../src/graphql/schema/index.js';
import { getNamedType, isObjectType, print } from 'graphql';
import { UNIT } from '../src/graphql/scalars.js';
import { listProducts } from '../src/catalog/pipeline.js';
import { productQuery } from '../src/catalog/query.js';
import { Decimal } from '../src/domain/decimal.js';
import { presentCalc } from '../src/domain/present.js';
import { HistoryCache } from '../src/graphql/loaders.js';
import { printedSchema, SCHEMA_FILE } from '../src/graphql/print-schema.js';
import { createTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const OFFER_FIELDS =
  `id name type brand { id name country } institution { id name country } channel platform termMonths noticeDays payout
  minAmount maxAmount rateType headlineRate tierMode tiers { from to rate } promotion { kind rate months maxBalance }
  openToNewCustomers currentAccountRequired annualFee earlyWithdrawal interestCompounds withholding { kind ` +
  `rate reducedRate }
  freshness { checkedAt official confirmed } sourceUrl eligible ineligibleReason
  calc { amount months promotionApplied nominalRate grossInterest withholdingTax fees netInterest endBalance ` +
  `comparableYield effectiveRate returnPerYear steps { month } }
  dgs { scheme country limit verified covered uncovered coveredPercent fullyCovered sharedWith }`;

async function data<T = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const { status, body } = await t.graphql<T>(query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data as T;
}

describe('root fields', () => {
  it('products: the list with counts, facets, term curve, type maxima and market', async () => {
    const { products } = await data(
      `{ products(type: ALL, pageSize: 3) { total hiddenByDgs hiddenIneligible items { ${OFFER_FIELDS} }
      facets { type { value count } channel { value count } country { value count } dgsCountry { value ` +
        `count } payout { value count } term { value count } withholding { value count } }
      termCurve { term rate offerId } typeMax { flexible { rate offerId } notice { rate offerId } ` +
        `deposit { rate offerId } }
      market { offers institutions verifiedDgs best { flexible notice deposit12 deposit60 } } generatedAt } }`,
    );
    expect(products.total).toBeGreaterThan(500);
    expect(products.items).toHaveLength(3);
    expect(products.items[0].calc.steps).toEqual([]);
    expect(products.items[0].type).toMatch(/^(FLEXIBLE|NOTICE|DEPOSIT)$/);
    expect(products.facets.type.map((f: { value: string }) => f.value)).toEqual(['DEPOSIT', 'FLEXIBLE', 'NOTICE']);
    expect(products.facets.term.map((f: { value: number }) => f.value)).toEqual(
      products.termCurve.map((p: { term: number }) => p.term),
    );
    expect(products.termCurve.map((p: { term: number }) => p.term)).toEqual([
      1, 3, 6, 9, 12, 18, 24, 36, 48, 60, 84, 120,
    ]);
    expect(products.generatedAt).toBe('2026-11-20T06:00:00.000Z');
    expect(products.market.best.flexible).toMatch(/^\d+\.\d{2}$/);
  });

  it('product: one offer with monthly steps, history, sources, events and the same-licence offers', async () => {
    const shared = t.app.services.store.current().offers.find((o) => o.sharedWith.length > 0 && o.type === 'deposit')!;
    const { product } = await data(
      `query($id: ID!) { product(id: $id, amount: "12345.67", horizon: 24) { offer { ${OFFER_FIELDS} calc { ` +
        `steps { month openingBalance rate interest credited withholding closingBalance } } }
        history { id offerId offer { id name brand { id name country } } validFrom validTo observedAt ` +
        `headlineRate rateType tierMode tiers { from to rate } promotion { kind } sourceId }
        sources { id name kind url status lastCheckedAt lastSuccessAt lastError }
        events { id kind at offerId brandId institutionId summary from to }
        sameLicence { id institution { id } calc { steps { month } } } } }`,
      { id: shared.id },
    );
    expect(product.offer.id).toBe(shared.id);
    expect(product.offer.calc.amount).toBe('12345.67');
    expect(product.offer.calc.steps).toHaveLength(shared.termMonths!);
    expect(product.history.length).toBeGreaterThan(0);
    expect(product.history[0].validTo).toBeNull();
    expect(product.sources.map((s: { id: string }) => s.id)).toContain(shared.sourceId);
    expect(
      product.events.some((e: { kind: string; offerId: string }) => e.kind === 'NEW_OFFER' && e.offerId === shared.id),
    ).toBe(true);
    expect(product.sameLicence.length).toBeGreaterThan(0);
    for (const o of product.sameLicence) expect(o.institution.id).toBe(shared.institution.id);
  });

  it('product: null with a NOT_FOUND error for an unknown id', async () => {
    const { body } = await t.graphql(`{ product(id: "no-such-offer") { offer { id } } }`);
    expect(body.data).toEqual({ product: null });
    expect(body.errors).toMatchObject([{ path: ['product'], extensions: { code: 'NOT_FOUND' } }]);
  });

  it('offers: a batch of details, null with NOT_FOUND where an id is unknown', async () => {
    const ids = t.app.services.store
      .current()
      .offers.slice(0, 3)
      .map((o) => o.id);
    const { body } = await t.graphql(`query($ids: [ID!]!) { offers(ids: $ids) { offer { id } } }`, {
      ids: [ids[0], 'unknown-offer', ids[1], ids[2]],
    });
    expect(body.data).toEqual({
      offers: [{ offer: { id: ids[0] } }, null, { offer: { id: ids[1] } }, { offer: { id: ids[2] } }],
    });
    expect(body.errors).toMatchObject([{ path: ['offers', 1], extensions: { code: 'NOT_FOUND' } }]);
  });

  it('institutions: every institution with its DGS and brands', async () => {
    const { institutions } = await data(
      `{ institutions { items { id name country lei dgs { scheme country limit verified source verifiedAt } ` +
        `brands { id name country website } } } }`,
    );
    expect(institutions.items.length).toBe(t.app.services.store.current().institutions.length);
    expect(institutions.items.some((i: { dgs: { verified: boolean } }) => !i.dgs.verified)).toBe(true);
    expect(institutions.items.some((i: { brands: unknown[] }) => i.brands.length >= 2)).toBe(true);
  });

  it('rateHistory: one offer newest first, or every plan paged and filtered', async () => {
    const offer = t.app.services.store.current().offers[0]!;
    const { one, page, flexible } = await data(
      `query($id: ID!, $brand: ID!) {
        one: rateHistory(offerId: $id, limit: 2) { items { offerId validFrom } total page pageSize }
        page: rateHistory(page: 2, pageSize: 7) { items { id validFrom } total page pageSize }
        flexible: rateHistory(type: FLEXIBLE, brand: $brand, pageSize: 500) { items { offer { brand { ` +
        `id } } } total } }`,
      { id: offer.id, brand: offer.brand.id },
    );
    expect(one.items.length).toBeLessThanOrEqual(2);
    expect(one.items.every((p: { offerId: string }) => p.offerId === offer.id)).toBe(true);
    expect(one.pageSize).toBe(2);
    expect(page).toMatchObject({ page: 2, pageSize: 7 });
    expect(page.items).toHaveLength(7);
    const times = page.items.map((p: { validFrom: string }) => p.validFrom);
    expect(times).toEqual([...times].sort().reverse());
    expect(flexible.items.every((p: { offer: { brand: { id: string } } }) => p.offer.brand.id === offer.brand.id)).toBe(
      true,
    );
  });

  it('marketHistory: per day, oldest first, ending with the day of the newest data', async () => {
    const { marketHistory } = await data(
      `{ marketHistory(days: 5) { items { date flexible notice deposit12 deposit60 } } }`,
    );
    expect(marketHistory.items.map((d: { date: string }) => d.date)).toEqual([
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
    ]);
    expect(marketHistory.items[4].flexible).toMatch(/^\d+\.\d{2}$/);
  });

  it('changes: the most recent events, newest first', async () => {
    const { changes } = await data(`{ changes(limit: 5) { items { id kind at summary from to } } }`);
    expect(changes.items).toHaveLength(5);
    const times = changes.items.map((e: { at: string }) => e.at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('meta and health', async () => {
    const { meta, health } = await data(
      `{ meta { generatedAt lastIngestAt dataVersion stale offers { active removed checked24h official ` +
        `confirmed } sources { total ok failing items { id status } } }
      health { status checks { database data } dataAgeSeconds } }`,
    );
    // the summary reads the clock (stale, checked24h): it stands for the instant it was made at
    expect(meta).toMatchObject({ generatedAt: t.clock.now.toISOString(), dataVersion: 20, stale: false });
    expect(meta.lastIngestAt).not.toBeNull();
    expect(meta.offers.active).toBe(t.app.services.store.current().offers.length);
    expect(meta.sources.total).toBe(meta.sources.ok + meta.sources.failing);
    expect(health).toEqual({ status: 'OK', checks: { database: 'ok', data: 'ok' }, dataAgeSeconds: 6 * 3600 });
  });
});

describe('the same numbers as the catalogue pipeline', () => {
  it.each([
    [
      { type: 'ALL', pageSize: 500 },
      { type: 'all', pageSize: 500 },
    ],
    [
      { amount: '123456.78', type: 'DEPOSIT', sort: 'EFFECTIVE', order: 'ASC', pageSize: 40, page: 2 },
      { amount: new Decimal('123456.78'), type: 'deposit', sort: 'effective', order: 'asc', pageSize: 40, page: 2 },
    ],
    [
      { amount: '999', horizon: 36, promotions: 'EXCLUDE', fullDgs: false, includeIneligible: true, sort: 'BANK' },
      {
        amount: new Decimal('999'),
        horizon: 36,
        promotions: 'exclude',
        fullDgs: false,
        includeIneligible: true,
        sort: 'bank',
      },
    ],
  ] as const)('products(%j) equals the pipeline', async (args: Record<string, unknown>, query) => {
    const { products } = await data(
      `query($a: Decimal, $type: TypeFilter, $sort: SortKey, $order: SortOrder, $pageSize: Int, $page: Int, ` +
        `$horizon: Int, $promotions: PromotionsMode, $fullDgs: Boolean, $inc: Boolean) {
        products(amount: $a, type: $type, sort: $sort, order: $order, pageSize: $pageSize, page: $page, ` +
        `horizon: $horizon, promotions: $promotions, fullDgs: $fullDgs, includeIneligible: $inc) {
          total hiddenByDgs hiddenIneligible items { id calc { amount months promotionApplied ` +
        `nominalRate grossInterest withholdingTax fees netInterest endBalance comparableYield effectiveRate ` +
        `returnPerYear steps { month } } } } }`,
      {
        a: args.amount,
        type: args.type,
        sort: args.sort,
        order: args.order,
        pageSize: args.pageSize,
        page: args.page,
        horizon: args.horizon,
        promotions: args.promotions,
        fullDgs: args.fullDgs,
        inc: args.includeIneligible,
      },
    );
    const services = t.app.services;
    const catalog = services.store.current();
    const expected = listProducts(
      { catalog, calc: services.calc, marketBest: await services.market.best(catalog), now: services.clock() },
      productQuery(query as never),
    );
    expect({
      total: products.total,
      hiddenByDgs: products.hiddenByDgs,
      hiddenIneligible: products.hiddenIneligible,
    }).toEqual({
      total: expected.total,
      hiddenByDgs: expected.hiddenByDgs,
      hiddenIneligible: expected.hiddenIneligible,
    });
    expect(products.items).toEqual(expected.items.map((r) => ({ id: r.offer.id, calc: presentCalc(r.calc) })));
  });
});

describe('invalid arguments', () => {
  it.each([
    ['amount: "0"', ['amount']],
    ['amount: "12.345"', ['amount']],
    ['amount: "2000000000"', ['amount']],
    ['horizon: 601', ['horizon']],
    ['terms: [0, 12]', ['terms']],
    ['termMin: 30, termMax: 12', ['termMin']],
    ['country: ["NLD"]', ['country']],
    ['noticeMax: -1', ['noticeMax']],
    ['page: 0, pageSize: 501', ['page', 'pageSize']],
    [`zoek: "${'x'.repeat(101)}"`, ['zoek']],
    [
      `amount: "-1", horizon: 0, termMin: 9, termMax: 3, brand: "${'b'.repeat(101)}"`,
      ['amount', 'horizon', 'brand', 'termMin'],
    ],
  ])('products(%s) names %j', async (args, parameters) => {
    const { body } = await t.graphql(`{ products(${args}) { total } }`);
    expect(body.data).toBeNull();
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const named = (body.errors![0]!.extensions!.errors as { parameter: string }[]).map((e) => e.parameter);
    expect(named.sort()).toEqual([...parameters].sort());
  });

  it.each([
    ['{ changes(limit: 0) { items { id } } }', 'limit'],
    ['{ changes(limit: 501) { items { id } } }', 'limit'],
    ['{ marketHistory(days: 3651) { items { date } } }', 'days'],
    ['{ rateHistory(pageSize: 0) { total } }', 'pageSize'],
    ['{ product(id: "x", horizon: 0) { offer { id } } }', 'horizon'],
  ])('%s names %s', async (query, parameter) => {
    const { body } = await t.graphql(query);
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ parameter }] });
  });

  it('rejects a type error before execution (GraphQL validation)', async () => {
    const { status, body } = await t.graphql(`{ products(type: SAVINGS) { total } }`);
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/SAVINGS/);
  });

  it('caps the batch of detail ids at 100', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `id-${i}`);
    const { body } = await t.graphql(`query($ids: [ID!]!) { offers(ids: $ids) { offer { id } } }`, { ids });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ parameter: 'ids' }] });
  });
});

describe('protection', () => {
  /** POST with the Accept header a client sends: the status must not depend on it. */
  async function post(body: unknown, accept: string) {
    const res = await t.app.fetch(
      new Request('http://test.local/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as any };
  }
  const ACCEPTS = [
    'application/json',
    'application/graphql-response+json',
    'application/graphql-response+json, application/json;q=0.9',
    '*/*',
  ];

  const deep = () => {
    let selection = 'id';
    for (let i = 0; i < OPERATION_LIMITS.depth; i++) selection = `sameLicence { ${selection} }`;
    return `{ product(id: "x") { offer { id } ${selection} } }`;
  };
  const aliased = () => {
    const fields = Array.from(
      { length: OPERATION_LIMITS.aliases + 1 },
      (_, i) => `a${i}: changes(limit: 1) { items { id } }`,
    );
    return `{ ${fields.join(' ')} }`;
  };
  /** offers with `n` ids and the whole detail selection: what GET /api/products/{id} answers, `n` times. */
  const details = (n: number, alias = 'offers') => {
    const printed = print(sofaProjection(schema)('product'));
    const selection = printed.slice(printed.indexOf('{', printed.indexOf('product(')), printed.lastIndexOf('}'));
    const offers = t.app.services.store.current().offers;
    const ids = Array.from({ length: n }, (_, i) => JSON.stringify(offers[(i * 7) % offers.length]!.id)).join(', ');
    return `${alias}: offers(ids: [${ids}]) ${selection}`;
  };
  const costly = () => `{ ${details(100, 'a')} ${details(100, 'b')} }`;

  it.each([
    ['depth', () => ({ query: deep() }), /depth/i],
    ['aliases', () => ({ query: aliased() }), /alias/i],
    ['cost', () => ({ query: costly() }), /cost/i],
    [
      'batch',
      () => Array.from({ length: OPERATION_LIMITS.batch + 1 }, () => ({ query: '{ meta { dataVersion } }' })),
      /batch/i,
    ],
  ] as const)(
    'answers an operation over the %s limit 400, whatever the client accepts',
    async (limit, body, message) => {
      for (const accept of ACCEPTS) {
        const { status, body: answer } = await post(body(), accept);
        expect(status, `${limit}, Accept: ${accept}`).toBe(400);
        const error = (Array.isArray(answer) ? answer[0] : answer).errors[0];
        expect(error.message).toMatch(message);
        expect(error.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit, max: OPERATION_LIMITS[limit] });
      }
    },
  );

  it('lets offers take its 100 ids with the whole detail selection (what GET /api/products/{id} answers)', async () => {
    const { status, body } = await post({ query: `{ ${details(100)} }` }, 'application/graphql-response+json');
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    expect(body.data.offers).toHaveLength(100);
    expect(body.data.offers[99].offer.calc.steps.length).toBeGreaterThan(0);
  });

  it('answers a batch of operations in order, and the batch shares one cost budget', async () => {
    const batch = [
      { query: '{ meta { dataVersion } }' },
      { query: 'query($n: Int!) { changes(limit: $n) { items { id } } }', variables: { n: 3 } },
      { query: '{ nope }' },
    ];
    const { status, body } = await post(batch, 'application/json');
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(3);
    expect(body[0].data.meta.dataVersion).toBeGreaterThan(0);
    expect(body[1].data.changes.items).toHaveLength(3);
    expect(body[2].errors[0].message).toMatch(/nope/);
    expect(status).toBe(200);
    // Each of these fits the budget alone; together they do not.
    const heavy = { query: `{ ${details(100)} }` };
    expect((await post(heavy, 'application/json')).status).toBe(200);
    const two = await post([heavy, heavy], 'application/json');
    const errors = two.body.flatMap((r: any) => r.errors ?? []);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'cost' } });
    expect(errors[0].message).toMatch(/batch/);
  });

  it('states every limit in the schema', () => {
    const query = schema.getQueryType()!;
    for (const [name, max] of Object.entries(OPERATION_LIMITS)) expect(query.description, name).toContain(String(max));
    expect(query.getFields().offers!.description).toMatch(/100 ids/);
    expect(query.getFields().products!.args.find((a) => a.name === 'pageSize')!.description).toMatch(/500/);
  });

  it('masks unexpected errors: no internal message, a stable code', async () => {
    const calc = t.app.services.calc;
    t.app.services.calc = {
      ...calc,
      rank: () => {
        throw new Error('pointer 0x7f3a at 10.0.0.7 (secret detail)');
      },
    };
    try {
      const { body } = await t.graphql(`{ products(amount: "4321") { total } }`);
      expect(body.errors).toMatchObject([
        { message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      ]);
      expect(JSON.stringify(body)).not.toMatch(/secret|10\.0\.0\.7|stack|0x7f3a/);
      const rest = await t.get('/api/products?amount=4322');
      expect(rest.status).toBe(500);
      expect(rest.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await rest.text()).not.toMatch(/secret|10\.0\.0\.7|0x7f3a/);
    } finally {
      t.app.services.calc = calc;
    }
  });
});

describe('pages of one list', () => {
  it('share its ranking: pages after the first rank no offer again, each the page of the whole order', async () => {
    const calc = t.app.services.calc;
    let ranked = 0;
    t.app.services.calc = {
      ...calc,
      rank: (...args) => {
        ranked++;
        return calc.rank(...args);
      },
    };
    try {
      const page = async (n: number) =>
        (
          await data<{ products: { total: number; items: { id: string }[] } }>(
            `{ products(amount: "31415.92", type: ALL, page: ${n}, pageSize: 100) { total items { id } } }`,
          )
        ).products;
      const first = await page(1);
      expect(ranked).toBeGreaterThan(100);
      ranked = 0;
      const later = [await page(2), await page(3), await page(Math.ceil(first.total / 100))];
      expect(ranked).toBe(0);
      const services = t.app.services;
      const catalog = services.store.current();
      const whole = listProducts(
        { catalog, calc, marketBest: await services.market.best(catalog), now: services.clock() },
        productQuery({ amount: new Decimal('31415.92'), type: 'all', pageSize: 500 }),
      ).rows.map((r) => r.offer.id);
      expect([first, ...later].map((p) => p.items.map((i) => i.id))).toEqual(
        [0, 1, 2, Math.ceil(first.total / 100) - 1].map((k) => whole.slice(k * 100, k * 100 + 100)),
      );
    } finally {
      t.app.services.calc = calc;
    }
  });
});

describe('database access', () => {
  it('loads the details of 50 offers with a constant number of queries', async () => {
    const prisma = t.app.services.prisma;
    let queries = 0;
    const counting = prisma.$extends({
      query: {
        $allModels: {
          $allOperations: ({ args, query }) => {
            queries++;
            return query(args);
          },
        },
      },
    });
    t.app.services.prisma = counting as unknown as typeof prisma;
    const query =
      'query($ids: [ID!]!) { offers(ids: $ids) { offer { id } history { id } events { id } sources { id } } }';
    const ids = t.app.services.store.current().offers.map((o) => o.id);
    try {
      const counts: number[] = [];
      for (const n of [1, 5, 50]) {
        t.app.services.history = new HistoryCache(); // measure the loaders, not the cache below them
        queries = 0;
        const { body } = await t.graphql(query, { ids: ids.slice(0, n) });
        expect(body.errors).toBeUndefined();
        expect((body.data as { offers: unknown[] }).offers).toHaveLength(n);
        counts.push(queries);
      }
      expect(counts[0]).toBeGreaterThan(0);
      expect(new Set(counts).size).toBe(1); // 1, 5 or 50 offers: the same few queries
      // plans, events and sources (the events' impacts are calculated from the same plans)
      expect(counts[0]).toBeLessThanOrEqual(3);
      // Asked again (another amount, same data version): answered from the history cache.
      queries = 0;
      const { body } = await t.graphql(query.replace('offers(ids: $ids)', 'offers(ids: $ids, amount: "777")'), {
        ids: ids.slice(0, 50),
      });
      expect(body.errors).toBeUndefined();
      expect(queries).toBe(0);
    } finally {
      t.app.services.prisma = prisma;
    }
  });
});

describe('GraphQL over GET', () => {
  it(
    'answers with the media type the client accepts, ' + 'first time and from the cache, and 304 for its ETag',
    async () => {
      const url = `/graphql?query=${encodeURIComponent('{ meta { dataVersion } }')}`;
      for (const [accept, type] of [
        ['application/json', 'application/json; charset=utf-8'],
        ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
      ] as const) {
        const first = await t.get(url, { headers: { accept } });
        const again = await t.get(url, { headers: { accept } });
        expect(first.headers.get('content-type'), accept).toBe(type);
        expect(again.headers.get('content-type'), `${accept}, cached`).toBe(type);
        expect(first.headers.get('vary')).toMatch(/Accept\b/);
        const etag = again.headers.get('etag')!;
        expect((await t.get(url, { headers: { accept, 'if-none-match': etag } })).status).toBe(304);
      }
    },
  );
});

describe('GraphiQL and persisted queries', () => {
  it('serves GraphiQL to a browser with assets from this server only', async () => {
    const page = await t.get('/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<script src="\/graphiql\/yoga-graphiql\.umd\.js"><\/script>/);
    expect(html).not.toMatch(/unpkg|cdn|https?:\/\//i);
    const assets = [...html.matchAll(/(\/graphiql\/[\w./-]+\.(?:js|css))/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of new Set(assets)) {
      const res = await t.get(asset);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(20);
    }
  });

  it('answers automatic persisted queries by hash over GET', async () => {
    const query = '{ changes(limit: 2) { items { id kind } } }';
    const hash = createHash('sha256').update(query).digest('hex');
    const extensions = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }));
    const first = await t.get(`/graphql?extensions=${extensions}`);
    expect(((await first.json()) as { errors: { message: string }[] }).errors[0]!.message).toBe(
      'PersistedQueryNotFound',
    );
    const register = await t.get(`/graphql?query=${encodeURIComponent(query)}&extensions=${extensions}`);
    expect(register.status).toBe(200);
    const byHash = await t.get(`/graphql?extensions=${extensions}`);
    expect(byHash.status).toBe(200);
    expect(((await byHash.json()) as { data: { changes: { items: unknown[] } } }).data.changes.items).toHaveLength(2);
  });
});

describe('decimals', () => {
  it('says what every Decimal field is measured in: euros, percent per year, or percent of something', () => {
    const units = Object.values(UNIT);
    let checked = 0;
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (getNamedType(field.type).name !== 'Decimal') continue;
        expect(
          units.some((u) => field.description?.endsWith(u)),
          `${type.name}.${field.name}: ${field.description}`,
        ).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});

describe('schema.graphql', () => {
  it('is the printed schema (run `npm run schema` after changing the schema)', async () => {
    expect(await readFile(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
  });
});

describe('facets (contract §11.6)', () => {
  // Every bucket's value goes straight back into the filter of the same name, and the list it gives
  // has exactly the bucket's count: one spelling for answers and arguments.
  it('round-trips every facet value into its filter', async () => {
    const base = 'amount: "25000", type: ALL, fullDgs: false';
    const { products } = await data(
      `{ products(${base}) { total facets { type { value count } channel { value count } country { value count }
      dgsCountry { value count } payout { value count } term { value count } withholding { value count } } } }`,
    );
    const filterOf: Record<string, string> = {
      type: 'TypeFilter!',
      channel: 'ChannelFilter!',
      country: '[String!]',
      dgsCountry: '[String!]',
      payout: '[Payout!]',
      term: '[Int!]',
      withholding: 'WithholdingFilter!',
    };
    let checked = 0;
    for (const [facet, buckets] of Object.entries(
      products.facets as Record<string, { value: unknown; count: number }[]>,
    )) {
      expect(buckets.length, facet).toBeGreaterThan(0);
      const argument = facet === 'term' ? 'terms' : facet;
      const list = filterOf[facet]!.startsWith('[');
      for (const { value, count } of buckets) {
        // Passed as a variable of the argument's own type: what a typed client does with the value.
        const query =
          `query($v: ${filterOf[facet]}) { products(${base.replace(facet === 'type' ? 'type: ALL, ' : '@', '')}, ` +
          `${argument}: $v, pageSize: 500) { total items { type } } }`;
        const result = await data(query, { v: list ? [value] : value });
        const total =
          facet === 'term'
            ? result.products.items.filter((i: { type: string }) => i.type === 'DEPOSIT').length
            : result.products.total;
        expect(total, `${facet}=${JSON.stringify(value)}`).toBe(count);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});

describe('variables a scalar refuses', () => {
  it(
    "are answered with the scalar's own message, naming " + 'the variable, not graphql-jit\'s "Expected type"',
    async () => {
      const { status, body } = await t.graphql(
        'query($amount: Decimal!, $h: Int) { products(amount: $amount, horizon: $h) { total } }',
        { amount: 'abc', h: 'twelve' },
      );
      expect(status).toBe(400);
      const messages = body.errors!.map((e) => e.message);
      expect(messages.some((m) => /Decimal must be a decimal number such as "1234\.56"/.test(m))).toBe(true);
      expect(
        body
          .errors!.flatMap((e) => ((e.extensions?.errors ?? []) as { parameter: string }[]).map((p) => p.parameter))
          .sort(),
      ).toEqual(['amount', 'h']);
      expect(body.errors!.every((e) => e.extensions?.code === 'BAD_USER_INPUT')).toBe(true);
    },
  );
});
