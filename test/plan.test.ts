// The savings plan through the API (GET /api/plan and Query.plan), black-box through app.fetch over the
// sample market: the rules every plan keeps, REST = GraphQL, the catalogue's own plan, caching, every bad
// parameter at once, and the GraphQL cost limit. The optimizer's own tests (hand-checked plans, every
// plan of small random markets) are beside it: src/domain/plan.test.ts, src/catalog/plan.test.ts.
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planAllocation, planQuery } from '../src/catalog/plan.js';
import { Decimal } from '../src/domain/decimal.js';
import { presentCalc } from '../src/domain/present.js';
import { FIELD_COST } from '../src/graphql/cost.js';
import { OPERATION_LIMITS } from '../src/graphql/limits.js';
import { schema } from '../src/graphql/schema/index.js';
import { sofaProjection } from '../src/rest/projection.js';
import { respellObject } from '../src/rest/spelling.js';
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

/** Everything GET /api/plan answers, asked through GraphQL: the REST route's own selection. */
const PLAN_SELECTION = (() => {
  const printed = print(sofaProjection(schema)('plan'));
  return printed.slice(printed.indexOf('{', printed.indexOf('plan(')), printed.lastIndexOf('}'));
})();

async function viaGraphql(args: string): Promise<any> {
  const { status, body } = await t.graphql<{ plan: Record<string, unknown> }>(`{ plan(${args}) ${PLAN_SELECTION} }`);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return respellObject(body.data as Record<string, unknown>, schema.getQueryType()!).plan;
}

const MONEY = /^-?\d+\.\d{2}$/;
const cents = (text: string) => Math.round(Number(text) * 100);

/** The rules of docs/calculation.md, "The savings plan", checked on an answer in REST spelling. */
function expectKeepsTheRules(plan: any, amount: string, maxOffers: number, flexibleShare = 0) {
  const catalog = t.app.services.store.current();
  expect(plan.allocations.length).toBeLessThanOrEqual(maxOffers);
  expect(new Set(plan.allocations.map((a: any) => a.offer.id)).size).toBe(plan.allocations.length);
  const perInstitution = new Map<string, number>();
  let placed = 0;
  let flexible = 0;
  for (const { offer, amount: part } of plan.allocations) {
    expect(part).toMatch(MONEY);
    expect(offer.calc.amount).toBe(part);
    expect(offer.eligible).toBe(true);
    expect(offer.dgs).toMatchObject({ verified: true, fullyCovered: true, uncovered: '0.00' });
    expect(cents(part)).toBeGreaterThanOrEqual(cents(offer.minAmount));
    if (offer.maxAmount !== null) expect(cents(part)).toBeLessThanOrEqual(cents(offer.maxAmount));
    perInstitution.set(offer.institution.id, (perInstitution.get(offer.institution.id) ?? 0) + cents(part));
    placed += cents(part);
    if (offer.type === 'flexible') flexible += cents(part);
  }
  for (const [id, sum] of perInstitution) {
    const limit = catalog.institutions.find((i) => i.id === id)!.dgs.limit;
    expect(sum, id).toBeLessThanOrEqual(cents(limit.toFixed(2)));
  }
  expect(placed - flexible).toBeLessThanOrEqual(Math.floor(cents(amount) * (1 - flexibleShare / 100)));
  // the totals add up to the cent
  expect(cents(plan.totals.amount)).toBe(cents(amount));
  expect(cents(plan.totals.placed)).toBe(placed);
  expect(cents(plan.totals.unplaced)).toBe(cents(amount) - placed);
  for (const field of ['returnPerYear', 'grossInterest', 'netInterest'] as const) {
    expect(cents(plan.totals[field])).toBe(
      plan.allocations.reduce((s: number, a: any) => s + cents(a.offer.calc[field]), 0),
    );
  }
  expect(plan.unplacedReason === null).toBe(placed === cents(amount));
  expect(plan.optimal).toBe(true);
  expect(plan.optimalityGap).toBe('0.00');
}

describe('GET /api/plan', () => {
  it('answers the parts, each an offer calculated for its own amount, the totals and why a rest stays', async () => {
    const { status, headers, body } = await getJson('/api/plan?amount=350000&maxOffers=3');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=60');
    expect(Object.keys(body)).toEqual([
      'allocations',
      'totals',
      'unplacedReason',
      'optimal',
      'optimalityGap',
      'generatedAt',
      'method',
    ]);
    expect(Object.keys(body.totals)).toEqual([
      'amount',
      'placed',
      'unplaced',
      'returnPerYear',
      'grossInterest',
      'netInterest',
      'comparableYield',
      'effectiveRate',
    ]);
    expect(body.allocations).toHaveLength(3);
    expect(body.totals).toMatchObject({ amount: '350000.00', placed: '300000.00', unplaced: '50000.00' });
    expect(body.unplacedReason).toMatchObject({ code: 'max_offers', message: expect.stringMatching(/3 offers/) });
    expect(body.allocations[0].offer.calc.steps).toEqual([]);
    expectKeepsTheRules(body, '350000', 3);
  });

  it.each([
    ['250000', 5, 0, ''],
    ['1234567.89', 20, 0, ''],
    ['640000.50', 5, 40, '&flexibleShare=40'],
    ['99999.99', 2, 100, '&flexibleShare=100'],
    ['75000', 5, 0, '&type=deposit&terms=12,24,36'],
    ['180000', 4, 25, '&flexibleShare=25&sort=effective&withholding=none'],
    ['2500', 1, 0, '&horizon=6&promotions=exclude'],
  ])('keeps every rule: amount %s, maxOffers %i, flexibleShare %i%s', async (amount, maxOffers, share, extra) => {
    const { status, body } = await getJson(`/api/plan?amount=${amount}&maxOffers=${maxOffers}${extra}`);
    expect(status).toBe(200);
    expectKeepsTheRules(body, amount, maxOffers, share);
  });

  it('is the catalogue plan, part for part', async () => {
    const { body } = await getJson('/api/plan?amount=432109.87&flexibleShare=20&maxOffers=6');
    const services = t.app.services;
    const plan = planAllocation(
      { catalog: services.store.current(), calc: services.calc, now: services.clock() },
      planQuery({ amount: new Decimal('432109.87'), flexibleShare: new Decimal(20), maxOffers: 6 }),
    );
    expect(body.allocations.map((a: any) => [a.offer.id, a.amount, a.offer.calc])).toEqual(
      plan.allocations.map((a) => [a.offer.offer.id, a.amount.toFixed(2), presentCalc(a.offer.calc)]),
    );
  });

  it('takes only verified deposit guarantees, whatever the filters', async () => {
    const unverified = t.app.services.store.current().offers.filter((o) => !o.institution.dgs.verified);
    const { body } = await getJson('/api/plan?amount=2000000&maxOffers=20');
    for (const a of body.allocations) expect(unverified.map((o) => o.id)).not.toContain(a.offer.id);
  });

  // Each parameter, in the spec's spelling, means what the GraphQL argument means.
  const cases: [string, string][] = [
    ['amount=250000', 'amount: "250000"'],
    ['amount=350000&maxOffers=3', 'amount: "350000", maxOffers: 3'],
    ['amount=300000.55&flexibleShare=33.5', 'amount: "300000.55", flexibleShare: "33.5"'],
    ['amount=150000&type=deposit&terms=12,24', 'amount: "150000", type: DEPOSIT, terms: [12, 24]'],
    ['amount=150000&type=deposit&termMin=12&termMax=36', 'amount: "150000", type: DEPOSIT, termMin: 12, termMax: 36'],
    [
      'amount=200000&sort=effective&withholding=applicable',
      'amount: "200000", sort: EFFECTIVE, withholding: APPLICABLE',
    ],
    ['amount=200000&horizon=24&promotions=exclude', 'amount: "200000", horizon: 24, promotions: EXCLUDE'],
    ['amount=200000&country=nl,DE&channel=direct', 'amount: "200000", country: ["NL", "DE"], channel: DIRECT'],
    ['amount=200000&dgsCountry=LT&fees=none', 'amount: "200000", dgsCountry: ["LT"], fees: NONE'],
    [
      'amount=90000&newCustomers=yes&currentAccount=no&payout=MONTHLY,at_maturity',
      'amount: "90000", newCustomers: YES, currentAccount: NO, payout: [MONTHLY, AT_MATURITY]',
    ],
    ['amount=90000&type=notice&noticeMax=60', 'amount: "90000", type: NOTICE, noticeMax: 60'],
    ['amount=90000&type=deposit&earlyWithdrawal=allowed', 'amount: "90000", type: DEPOSIT, earlyWithdrawal: ALLOWED'],
    ['amount=90000&freshness=official&promotions=only', 'amount: "90000", freshness: OFFICIAL, promotions: ONLY'],
    ['amount=90000&zoek=bank', 'amount: "90000", zoek: "bank"'],
  ];
  it.each(cases)('?%s is plan(%s)', async (query, args) => {
    const rest = await getJson(`/api/plan?${query}`);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual(await viaGraphql(args));
  });

  it('reads list parameters in every form clients send (contract §11.1)', async () => {
    const comma = await t.get('/api/plan?amount=120000&type=deposit&terms=12,24');
    for (const form of [
      'terms=12&terms=24',
      'terms[]=12&terms[]=24',
      'terms%5B%5D=12&terms%5B%5D=24',
      'terms[0]=12&terms[1]=24',
    ]) {
      const other = await t.get(`/api/plan?amount=120000&type=deposit&${form}`);
      expect(await other.text(), form).toBe(await comma.clone().text());
    }
  });

  it('answers 304 for its ETag, and HEAD without a body', async () => {
    const first = await t.get('/api/plan?amount=333333');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    const again = await t.get('/api/plan?amount=333333', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    // the same request with the defaults spelled out is the same answer
    const spelled = await t.get('/api/plan?amount=333333&maxOffers=5&flexibleShare=0&type=all&sort=return', {
      headers: { 'if-none-match': etag! },
    });
    expect(spelled.status).toBe(304);
    const head = await t.get('/api/plan?amount=333333', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it(
    'ignores the list parameters that do not narrow the candidates ' + '(fullDgs, page…) like any unknown one',
    async () => {
      const plain = await t.get('/api/plan?amount=210000');
      const other = await t.get(
        '/api/plan?amount=210000&fullDgs=false&page=3&pageSize=9&includeIneligible=true&utm_source=x',
      );
      expect(await other.text()).toBe(await plain.text());
    },
  );

  it.each([
    ['', ['amount']],
    ['amount=', ['amount']],
    ['amount=0', ['amount']],
    ['amount=-5', ['amount']],
    ['amount=12.345', ['amount']],
    ['amount=1000000001', ['amount']],
    ['amount=lots', ['amount']],
    ['amount=1000&amount=2000', ['amount']],
    ['amount=1000&maxOffers=0', ['maxOffers']],
    ['amount=1000&maxOffers=21', ['maxOffers']],
    ['amount=1000&maxOffers=2.5', ['maxOffers']],
    ['amount=1000&flexibleShare=-1', ['flexibleShare']],
    ['amount=1000&flexibleShare=100.01', ['flexibleShare']],
    ['amount=1000&flexibleShare=12.345', ['flexibleShare']],
    ['amount=1000&flexibleShare=half', ['flexibleShare']],
    ['amount=1000&sort=headline', ['sort']],
    ['amount=1000&type=savings', ['type']],
    ['amount=1000&horizon=0', ['horizon']],
    ['amount=1000&terms=0', ['terms']],
    ['amount=1000&terms[a]=12', ['terms']],
    ['amount=1000&termMin=36&termMax=12', ['termMin']],
    ['amount=1000&country=NLD', ['country']],
    ['amount=1000&channel=bank', ['channel']],
    ['amount=1000&noticeMax=-1', ['noticeMax']],
    [`amount=1000&zoek=${'z'.repeat(101)}`, ['zoek']],
    [
      'maxOffers=99&flexibleShare=200&sort=rate&horizon=601&termMin=9&termMax=3',
      ['amount', 'maxOffers', 'flexibleShare', 'sort', 'horizon', 'termMin'],
    ],
  ])('?%s is a 400 naming %j', async (query, parameters) => {
    const { status, headers, body } = await getJson(`/api/plan?${query}`);
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

describe('Query.plan', () => {
  it.each([
    ['amount: "0", maxOffers: 21, flexibleShare: "101"', ['amount', 'maxOffers', 'flexibleShare']],
    ['amount: "1000", flexibleShare: "12.345", termMin: 30, termMax: 12', ['flexibleShare', 'termMin']],
    ['amount: "1000", country: ["NLD"], horizon: 0', ['country', 'horizon']],
  ])('plan(%s) names %j', async (args, parameters) => {
    const { body } = await t.graphql(`{ plan(${args}) { totals { placed } } }`);
    expect(body.data).toBeNull();
    expect(body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const named = (body.errors![0]!.extensions!.errors as { parameter: string }[]).map((e) => e.parameter);
    expect(named.sort()).toEqual([...parameters].sort());
  });

  it('requires the amount (GraphQL validation)', async () => {
    const { status, body } = await t.graphql('{ plan { totals { placed } } }');
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/amount/);
  });

  it('costs a fifth of the budget: four plans in one request pass, five do not', async () => {
    const plans = (n: number) =>
      `{ ${Array.from(
        { length: n },
        (_, i) => `p${i}: plan(amount: "${100000 + i}") { totals { placed } allocations { amount offer { id } } }`,
      ).join(' ')} }`;
    expect(FIELD_COST.plan).toBe(OPERATION_LIMITS.cost / 5);
    const four = await t.graphql(plans(4));
    expect(four.body.errors).toBeUndefined();
    const five = await t.graphql(plans(5));
    expect(five.status).toBe(400);
    expect(five.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'cost' });
  });
});
