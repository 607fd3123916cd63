// The ranking method cannot drift silently: a fixed set of answers over a fixed market is hashed (the
// order of what they show and every number that decides it), and the hash is recorded per method
// version in test/method-golden.json. A change that moves any of them fails here until the method gets a
// new version (src/domain/method.ts), an entry in its changelog (docs/calculation.md) and its hash here.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_VERSION } from '../src/domain/method.js';
import { createTestApp, type TestApp } from './support/app.js';

const root = path.resolve(import.meta.dirname, '..');
const golden = JSON.parse(readFileSync(path.join(root, 'test/method-golden.json'), 'utf8')) as Record<string, string>;

interface ListItem {
  id: string;
  eligible: boolean;
  calc: Record<string, string>;
  dgs: { covered: string; uncovered: string };
}

/** What the method decides of a list: the order, and the numbers it is ordered by and shows. */
const list = (body: { total: number; items: ListItem[]; termCurve: unknown; typeMax: unknown }) => ({
  total: body.total,
  items: body.items.map((i) => [
    i.id,
    i.eligible,
    i.calc.returnPerYear,
    i.calc.comparableYield,
    i.calc.effectiveRate,
    i.calc.netInterest,
    i.calc.endBalance,
    i.dgs.covered,
  ]),
  termCurve: body.termCurve,
  typeMax: body.typeMax,
});

const LISTS = [
  'amount=1000',
  'amount=25000&type=all',
  'amount=50000&type=deposit&sort=effective',
  'amount=100000&type=all&fullDgs=true',
  'amount=250000&type=notice&horizon=36',
  'amount=7500.55&type=all&sort=headline&includeIneligible=true',
  'amount=1500000&type=flexible&sort=min',
  'amount=30000&type=deposit&terms=12,24&sort=term',
];
const PLANS = ['amount=150000', 'amount=400000&maxOffers=3&flexibleShare=25', 'amount=80000&sort=effective'];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ days: 8 });
});
afterAll(async () => {
  await t?.close();
});

describe('the ranking method', () => {
  it(`gives the answers recorded for version ${METHOD_VERSION} on its fixed market`, async () => {
    const answers: unknown[] = [];
    for (const query of LISTS) {
      const res = await t.get(`/api/products?${query}&pageSize=100`);
      expect(res.status, query).toBe(200);
      answers.push(list((await res.json()) as never));
    }
    for (const query of PLANS) {
      const res = await t.get(`/api/plan?${query}`);
      expect(res.status, query).toBe(200);
      const plan = (await res.json()) as { allocations: { amount: string; offer: { id: string } }[]; totals: unknown };
      answers.push({ parts: plan.allocations.map((a) => [a.offer.id, a.amount]), totals: plan.totals });
    }
    const ids = t.app.services.store.current().offers.filter((_, i) => i % 97 === 0);
    for (const offer of ids) {
      const res = await t.get(`/api/products/${offer.id}?amount=42000&horizon=18`);
      const detail = (await res.json()) as { offer: { calc: Record<string, unknown> } };
      answers.push(detail.offer.calc);
    }
    const hash = createHash('sha256').update(JSON.stringify(answers)).digest('hex');
    expect(
      golden[METHOD_VERSION],
      `no hash recorded for method ${METHOD_VERSION} in test/method-golden.json (this one gives ${hash})`,
    ).toBeDefined();
    expect(
      hash,
      `the answers moved while the method's version stayed ${METHOD_VERSION}: give the method a new version ` +
        '(src/domain/method.ts), say what changed in the changelog of docs/calculation.md, and record its hash in ' +
        'test/method-golden.json',
    ).toBe(golden[METHOD_VERSION]);
  });

  it('is stated by every data answer and listed, with its date, in the changelog', async () => {
    for (const path of ['/api/products', '/api/plan?amount=1000', '/api/institutions', '/api/meta/last-updated']) {
      const res = await t.get(path);
      expect(((await res.json()) as { method: string }).method, path).toBe(METHOD_VERSION);
      expect(res.headers.get('method-version')).toBe(METHOD_VERSION);
    }
    const csv = await t.get('/api/products/export');
    expect(csv.headers.get('method-version')).toBe(METHOD_VERSION);
    const doc = readFileSync(path.join(root, 'docs/calculation.md'), 'utf8');
    const changelog = /## Method versions\n([\s\S]*?)(\n## |$)/.exec(doc)?.[1] ?? '';
    expect(changelog).toMatch(
      new RegExp(`\\*\\*${METHOD_VERSION.replace('.', '\\.')}\\*\\* \\(\\d{4}-\\d{2}-\\d{2}\\)`),
    );
  });
});
