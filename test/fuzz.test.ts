// Bad input, tried at random: every parameter of every REST endpoint and every GraphQL argument gets
// garbage, huge and tiny numbers, NaN and Infinity, unicode, very long values, SQL and formula payloads,
// repeated and empty values. The answer is a 200 or a 4xx problem that names a parameter — never a 5xx.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.js';

let t: TestApp;
let offerId: string;
beforeAll(async () => {
  // Streams opened by the fuzzing are cancelled at once, but close a moment later: no per-client limit here.
  t = await createTestApp({ days: 5, env: { STREAMS_PER_IP: '1000000' } });
  offerId = t.app.services.store.current().offers[0]!.id;
});
afterAll(async () => {
  await t?.close();
});

const NASTY = [
  '',
  ' ',
  '0',
  '-0',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e6',
  '0x10',
  '1_000',
  '１２３',
  '9'.repeat(400),
  '1.005',
  '12,5',
  '50000.0000001',
  '\'; DROP TABLE "Offer"; --',
  '" OR 1=1 --',
  '=HYPERLINK("http://x")',
  '+cmd',
  '@SUM(1)',
  '%00',
  '%',
  '%%',
  '\u0000',
  '\uFFFF',
  '\uD800',
  '🙂🙂',
  'ümlaut',
  'Ω'.repeat(200),
  'x'.repeat(5000),
  'true',
  'TRUE',
  'null',
  'undefined',
  '[]',
  '{}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'deposit',
  'DEPOSIT',
  'all',
  'monthly',
  '24h',
  'asc',
  'market',
  '12,24,,36',
  ',,,',
  'NL,BE',
  'nl',
  'ZZ,1',
];

const valueArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: false })).map(String) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: -5, max: 700 }), { maxLength: 150 }).map((a) => a.join(',')) },
);

const CHANGE_FILTERS = ['kind', 'offerId', 'brand', 'type', 'amount'];

/** `required`: parameters a 400 may name although they were not sent (they have no default). */
const ROUTES: { path: () => string; params: string[]; headers?: string[]; required?: string[] }[] = [
  {
    path: () => '/api/products',
    params: [
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
  },
  {
    path: () => '/api/products/export',
    params: ['amount', 'horizon', 'type', 'terms', 'termMin', 'termMax', 'country', 'sort', 'zoek', 'pageSize'],
  },
  { path: () => `/api/products/${encodeURIComponent(offerId)}`, params: ['amount', 'horizon'] },
  {
    path: () => '/api/plan',
    params: [
      'amount',
      'amount',
      'maxOffers',
      'flexibleShare',
      'sort',
      'type',
      'horizon',
      'terms',
      'termMin',
      'termMax',
      'country',
      'promotions',
      'withholding',
      'zoek',
    ],
    required: ['amount'],
  },
  {
    path: () => '/api/rates/history',
    params: ['offerId', 'limit', 'brand', 'type', 'page', 'pageSize', 'view', 'days'],
  },
  { path: () => '/api/changes', params: ['limit', ...CHANGE_FILTERS] },
  { path: () => '/api/changes/stream', params: [...CHANGE_FILTERS, 'since'], headers: ['last-event-id'] },
  { path: () => '/api/changes/feed', params: CHANGE_FILTERS },
  { path: () => '/api/institutions', params: ['x'] },
  { path: () => '/api/meta/last-updated', params: ['x'] },
];

// Every form a client may send a parameter in (contract §11.1): plain, bracketed, indexed, odd.
const formArb = fc.constantFrom(
  (n: string) => n,
  (n: string) => `${n}[]`,
  (n: string) => `${n}[0]`,
  (n: string) => `${n}[1]`,
  (n: string) => `${n}[x]`,
);

const queryArb = (params: string[]) =>
  fc
    .array(fc.tuple(fc.constantFrom(...params, 'unknownParam'), valueArb, fc.boolean(), formArb, formArb), {
      maxLength: 6,
    })
    .map((pairs) => {
      const query = new URLSearchParams();
      for (const [name, value, repeat, form, again] of pairs) {
        query.append(form(name), value);
        if (repeat) query.append(again(name), value);
      }
      return query;
    });

/** The parameter a query key stands for: `terms[]` and `terms[0]` are forms of `terms`. */
const baseName = (key: string) => key.replace(/\[[^\]]*\]$/, '');

/** What a stream says first (it never ends by itself), then it is closed. */
async function opening(res: Response, ms = 150): Promise<string> {
  const reader = res.body!.getReader();
  let text = '';
  const deadline = Date.now() + ms;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const chunk = await Promise.race([
      reader.read(),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(1, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
    if (!chunk || chunk.done) break;
    text += new TextDecoder().decode(chunk.value);
  }
  await reader.cancel().catch(() => {});
  return text;
}

const isEventStream = (res: Response) => /text\/event-stream/.test(res.headers.get('content-type') ?? '');

async function expectSane(res: Response, sent: URLSearchParams | null, header?: string, required: string[] = []) {
  if (res.status === 200 && isEventStream(res)) {
    // the ledger's head rides along as a comment line (docs/ledger.md)
    const head = /^retry: 5000\n: ledger version=\d+ chainHash=[0-9a-f]{64} observedAt=\S+\n/;
    const text = await opening(res);
    expect(text).toMatch(head);
    expect(text.replace(head, '')).toMatch(/^id: (\d+)\nevent: position\ndata: {"id":"\1"}\n\n/);
    return;
  }
  expect(
    res.status,
    await res
      .clone()
      .text()
      .then((b) => b.slice(0, 300)),
  ).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as { status: number; title: string; errors?: { parameter: string }[] };
    expect(problem.status).toBe(res.status);
    if (res.status === 400 && sent) {
      expect(problem.errors?.length).toBeGreaterThan(0);
      for (const e of problem.errors!)
        expect([...sent.keys()].map(baseName).concat(header ? [header] : [], required)).toContain(e.parameter);
    }
  } else {
    await res.arrayBuffer();
  }
}

describe('REST fuzzing', () => {
  it.each(ROUTES.map((r) => [r.path(), r] as const))('%s never answers 5xx', async (_name, route) => {
    await fc.assert(
      fc.asyncProperty(queryArb(route.params), fc.option(valueArb, { nil: undefined }), async (query, headerValue) => {
        // Headers a route reads (Last-Event-ID) get the same garbage; a value fetch cannot send is left out.
        const headers = new Headers();
        if (route.headers && headerValue !== undefined) {
          try {
            headers.set(route.headers[0]!, headerValue);
          } catch {
            // not a valid header value
          }
        }
        const res = await t.get(`${route.path()}?${query.toString()}`, { headers });
        await expectSane(res, query, headers.has('last-event-id') ? 'Last-Event-ID' : undefined, route.required);
      }),
      { numRuns: 120 },
    );
  });

  it('survives strange paths and ids', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom(...NASTY)), async (id) => {
        let encoded: string;
        try {
          encoded = encodeURIComponent(id);
        } catch {
          encoded = id; // a lone surrogate cannot be encoded: send it raw
        }
        const res = await t.get(`/api/products/${encoded}?amount=100`);
        expect([200, 400, 404]).toContain(res.status);
        await expectSane(res, null);
      }),
      { numRuns: 150 },
    );
    for (const path of [
      '/api/products/%E0%A4%A',
      '/api/%',
      '/api/products/..%2F..%2Fetc',
      '/api//products',
      `/api/products/${'a'.repeat(3000)}`,
    ]) {
      await expectSane(await t.get(path), null);
    }
  });

  it.each([
    '/api/changes/feed?offerId=%00',
    '/api/changes?offerId=a%00b',
    '/api/rates/history?offerId=%1F',
    '/api/products/x%00y?amount=100',
  ])('refuses an offer id with a control character (%s) as a 400 naming it, not a database failure', async (path) => {
    const res = await t.get(path);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { parameter: string; message: string }[] };
    expect(body.errors[0]!.message).toMatch(/control characters/);
  });

  it('rejects a very long zoek without scanning for it', async () => {
    const res = await t.get(`/api/products?type=all&zoek=${'ab'.repeat(2_000)}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { parameter: string }[] }).errors[0]!.parameter).toBe('zoek');
  });

  it('refuses an over-long URL with 414', async () => {
    const res = await t.get(`/api/products?zoek=${'z'.repeat(9000)}`);
    expect(res.status).toBe(414);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('GraphQL fuzzing', () => {
  const jsonArb = fc.oneof(
    valueArb,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(valueArb, fc.integer()), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 5 }), valueArb, { maxKeys: 3 }),
  );
  const FIELDS: [string, string[], string][] = [
    [
      'products',
      [
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
      '{ total items { id calc { netInterest } } }',
    ],
    ['product', ['id', 'amount', 'horizon'], '{ offer { id } }'],
    [
      'plan',
      ['amount', 'maxOffers', 'flexibleShare', 'sort', 'type', 'horizon', 'terms', 'termMin', 'termMax', 'zoek'],
      '{ totals { placed } allocations { amount } unplacedReason { code } optimal }',
    ],
    ['offers', ['ids', 'amount', 'horizon'], '{ offer { id } }'],
    ['rateHistory', ['offerId', 'limit', 'brand', 'type', 'page', 'pageSize'], '{ total }'],
    ['marketHistory', ['days'], '{ items { date } }'],
    ['changes', ['limit', ...CHANGE_FILTERS], '{ items { id impact { delta } } }'],
  ];
  const types = (field: string): Record<string, string> => {
    const args = t.app.yoga.getEnveloped().schema.getQueryType()!.getFields()[field]!.args as readonly {
      name: string;
      type: unknown;
    }[];
    return Object.fromEntries(args.map((a) => [a.name, String(a.type).replace(/!$/, '')]));
  };

  it.each(FIELDS)('%s never answers with an unexpected error', async (field, args, selection) => {
    const argTypes = types(field);
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(args, { minLength: 1 }),
        fc.array(jsonArb, { minLength: args.length, maxLength: args.length }),
        async (chosen, values) => {
          const variables = Object.fromEntries(chosen.map((name, i) => [name, values[i]]));
          const declared = chosen.map((name) => `$${name}: ${argTypes[name]}`).join(', ');
          const passed = chosen.map((name) => `${name}: $${name}`).join(', ');
          const { status, body } = await t.graphql(
            `query(${declared}) { ${field}(${passed}) ${selection} }`,
            variables,
          );
          expect(status).toBeLessThan(500);
          for (const error of body.errors ?? []) {
            expect(error.extensions?.code, JSON.stringify(error)).not.toBe('INTERNAL_SERVER_ERROR');
            expect(error.message).not.toMatch(/Unexpected error/);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  // A client's mistake is a 4xx on the event-stream transport too (issue 18: a subscription that failed
  // validation with Accept: text/event-stream was a 500), with graphql-sse's headers and methods.
  it('never answers a 5xx or an unexpected error over Server-Sent Events', async () => {
    const subscriptionArgs = ['kind', 'offerId', 'brand', 'type', 'amount', 'since'];
    const subscriptionTypes: Record<string, string> = {
      kind: '[EventKind!]',
      offerId: 'ID',
      brand: 'String',
      type: 'TypeFilter',
      amount: 'Decimal',
      since: 'ID',
    };
    const documentArb = fc.oneof(
      fc.constantFrom(
        'subscription { changes { id } }',
        'subscription { changes { id kind impact { delta } } }',
        'subscription { nope }',
        'subscription { changes { nope } }',
        'subscription { changes { id } other: changes { id } }',
        'subscription S { changes { id } } subscription T { changes { kind } }',
        'subscription { __typename }',
        'subscription { changes(kind: [SIDEWAYS]) { id } }',
        'subscription { changes(amount: "-1", since: "abc") { id } }',
        'subscription { changes(since: 99999999999) { id } }',
        'mutation { changes { id } }',
        'mutation { x }',
        '{ changes { items { id } } }',
        '{ nope }',
        'query { products { total } } subscription { changes { id } }',
        '{{',
        '',
        'subscription',
        `subscription { ${'changes { '.repeat(20)}`,
      ),
      fc.string({ maxLength: 60 }),
      fc.subarray(subscriptionArgs, { minLength: 1 }).map((chosen) => chosen),
    );
    await fc.assert(
      fc.asyncProperty(
        documentArb,
        fc.array(jsonArb, { minLength: subscriptionArgs.length, maxLength: subscriptionArgs.length }),
        fc.constantFrom('POST', 'GET', 'PUT', 'DELETE'),
        fc.constantFrom<Record<string, string>>(
          { accept: 'text/event-stream' },
          { accept: 'text/event-stream', 'x-graphql-event-stream-token': 'abc' },
          { accept: 'text/event-stream, application/json' },
          { accept: 'text/event-stream;q=0.9, application/graphql-response+json' },
        ),
        async (doc, values, method, headers) => {
          let query: string;
          let variables: Record<string, unknown> | undefined;
          if (Array.isArray(doc)) {
            variables = Object.fromEntries(doc.map((name, i) => [name, values[i]]));
            query =
              `subscription(${doc.map((n) => `$${n}: ${subscriptionTypes[n]}`).join(', ')}) { changes(` +
              `${doc.map((n) => `${n}: $${n}`).join(', ')}) { id impact { delta } } }`;
          } else query = doc;
          const params = new URLSearchParams({ query, ...(variables ? { variables: JSON.stringify(variables) } : {}) });
          const init: RequestInit =
            method === 'GET' || method === 'DELETE'
              ? { method, headers }
              : {
                  method,
                  headers: { ...headers, 'content-type': 'application/json' },
                  body: JSON.stringify({ query, variables }),
                };
          const res = await t.app.fetch(
            new Request(
              `http://test.local/graphql${method === 'GET' || method === 'DELETE' ? `?${params}` : ''}`,
              init,
            ),
          );
          expect(res.status, `${method} ${query.slice(0, 80)}`).toBeLessThan(500);
          const text = res.body ? (isEventStream(res) ? await opening(res) : await res.text()) : '';
          expect(text, query.slice(0, 80)).not.toMatch(/INTERNAL_SERVER_ERROR|Unexpected error/);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers garbage documents and bodies with a 4xx (GraphQL over HTTP)', async () => {
    for (const body of [
      '{',
      '{"query": 1}',
      '{"query": "{ products { nope } }"}',
      '{"query": "{{{{"}',
      '[]',
      'null',
      `{"query": "${'{'.repeat(5000)}"}`,
    ]) {
      const res = await t.app.fetch(
        new Request('http://test.local/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
          body,
        }),
      );
      expect(res.status, body.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(res.status, body.slice(0, 40)).toBeLessThan(500);
    }
  });
});

describe('after all that', () => {
  it('still answers', async () => {
    expect((await t.get('/api/health')).status).toBe(200);
    expect((await t.get('/api/products')).status).toBe(200);
  });
});
