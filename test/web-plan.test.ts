// The savings plan on the comparison page, in Chromium against the whole service: an amount too large for
// one deposit guarantee spread over offers, each part fully covered, the numbers the API's (GET /api/plan
// and the best single offer of GET /api/products for the same question), in one request per
// interaction, the URL holding the plan's parameters; on a phone and by keyboard; axe clean.
import { Decimal } from 'decimal.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkip } from './support/browser.js';
import {
  clippedSelects,
  euros,
  expectAccessible,
  interact,
  ownQueries,
  poll,
  settled,
  shoot,
  sidewaysScrollers,
  startPageHarness,
  WIDTHS,
  type PageHarness,
} from './support/page.js';

const AMOUNT = '350000';

let h: PageHarness;

interface ShownPart {
  id: string;
  amount: string;
  returnPerYear: string;
  covered: string;
}

async function parts(page: Page): Promise<ShownPart[]> {
  await page.locator('table.parts tbody tr').first().waitFor();
  return page.$$eval('table.parts tbody tr', (trs) =>
    trs.map((tr) => {
      const value = (label: string) =>
        (tr.querySelector(`td[data-label="${label}"] data`) as HTMLDataElement | null)?.value ?? '';
      return {
        id: (tr as HTMLElement).dataset.part!,
        amount: value('Amount'),
        returnPerYear: value('Return per year'),
        covered: tr.querySelector('td[data-label="Deposit guarantee"] .badge')?.textContent ?? '',
      };
    }),
  );
}

const totalValue = (page: Page, label: string) =>
  page.locator(`table.parts tfoot td[data-label="${label}"] data`).getAttribute('value');

/** The page shows the API's plan for the query, part for part, with its totals and optimality. */
async function expectApiPlan(page: Page, query: string): Promise<any> {
  const plan = await h.api(`/api/plan?${query}`);
  const shown = await parts(page);
  expect(shown).toEqual(
    plan.allocations.map((a: any) => ({
      id: a.offer.id,
      amount: a.amount,
      returnPerYear: a.offer.calc.returnPerYear,
      covered: 'Fully covered',
    })),
  );
  // Every part fully covered, by the API's own split of it.
  for (const a of plan.allocations) expect(a.offer.dgs).toMatchObject({ fullyCovered: true, covered: a.amount });
  expect(await totalValue(page, 'Placed')).toBe(plan.totals.placed);
  expect(await totalValue(page, 'Return per year')).toBe(plan.totals.returnPerYear);
  expect(await totalValue(page, 'Comparable yield')).toBe(plan.totals.comparableYield);
  expect(await page.locator('.optimal').getAttribute('data-optimal')).toBe(String(plan.optimal));
  return plan;
}

describe.skipIf(browserSkip !== null)('the savings plan on the page, in Chromium', () => {
  beforeAll(async () => {
    h = await startPageHarness();
  }, 240_000); // seeding the sample market, on a busy machine

  afterAll(async () => {
    await h?.close();
  });

  it('too large for one guarantee: the parts, each fully covered, totals, optimality; a request each', async () => {
    // The list has no offer for the whole amount under one guarantee, and points to the plan.
    const s = await h.open(`/?amount=${AMOUNT}`);
    const empty = s.page.locator('.results .empty');
    await poll(() => empty.textContent()).toMatch(/^No offer holds all of €350,000\.00 under its deposit guarantee/);
    expect(await interact(s, () => empty.locator('a:has-text("savings plan")').click())).toBe(1);
    expect(ownQueries(s).at(-1)).toBe('SavingsPlan');
    expect(new URL(s.page.url()).search).toBe(`?amount=${AMOUNT}&view=plan`);
    const plan = await expectApiPlan(s.page, `amount=${AMOUNT}`);
    expect(plan.allocations.length).toBeGreaterThan(1); // more than one guarantee needed
    expect(plan.optimal).toBe(true);
    expect(await s.page.textContent('.optimal')).toMatch(/proved/);
    expect(await s.page.textContent('.plan .summary')).toContain(
      `${euros(plan.totals.amount)} in ${plan.allocations.length} parts, each fully covered`,
    );

    // Fewer offers than it takes: the plan places less and says why, with the API's amounts.
    expect(await interact(s, () => s.page.selectOption('#maxOffers', '2'))).toBe(1);
    expect(new URL(s.page.url()).search).toBe(`?amount=${AMOUNT}&view=plan&maxOffers=2`);
    const two = await expectApiPlan(s.page, `amount=${AMOUNT}&maxOffers=2`);
    expect(two.unplacedReason.code).toBe('max_offers');
    const summary = (await s.page.textContent('.plan .summary'))!;
    expect(summary).toContain(`${euros(two.totals.unplaced)} not placed`);
    expect(summary).toContain(euros(two.totals.placed)); // from the API's reason, in the page's format

    // A share kept at hand in flexible accounts, and the plan's objective: the URL keeps both.
    expect(await interact(s, () => s.page.selectOption('#flexibleShare', '20'))).toBe(1);
    expect(await interact(s, () => s.page.selectOption('#objective', 'effective'))).toBe(1);
    const query = `amount=${AMOUNT}&sort=effective&view=plan&maxOffers=2&flexibleShare=20`;
    expect(new URL(s.page.url()).search).toBe(`?${query}`);
    const shaped = await expectApiPlan(s.page, query);
    await s.page.reload();
    expect((await parts(s.page)).map((p) => p.id)).toEqual(shaped.allocations.map((a: any) => a.offer.id));
    expect(await s.page.inputValue('#flexibleShare')).toBe('20');
    await s.page.goBack();
    await poll(() => s.page.inputValue('#objective')).toBe('return');
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);

  it('what the plan earns against all in the best single offer, and what that one leaves uncovered', async () => {
    const s = await h.open(`/?amount=${AMOUNT}&view=plan`);
    await parts(s.page);
    const plan = await h.api(`/api/plan?amount=${AMOUNT}`);
    const [single] = (await h.api(`/api/products?amount=${AMOUNT}&type=all&fullDgs=false&pageSize=1`)).items;
    const compare = s.page.locator('.compare');
    const difference = new Decimal(plan.totals.returnPerYear).minus(single.calc.returnPerYear);
    expect(await compare.locator('.compare-line').getAttribute('data-difference')).toBe(difference.toFixed(2));
    const line = (await compare.locator('.compare-line').textContent())!;
    expect(line).toContain(`${single.brand.name} ${single.name}`);
    expect(line).toContain(`${euros(difference.abs().toFixed(2))} more a year`);
    expect(line.startsWith('The plan earns')).toBe(difference.isPositive() && !difference.isZero());
    if (!new Decimal(single.dgs.uncovered).isZero()) expect(line).toContain(euros(single.dgs.uncovered));
    const table = await compare
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector('th')!.textContent,
          ...[...tr.querySelectorAll('td data')].map((d) => (d as HTMLDataElement).value),
        ]),
      );
    expect(table).toEqual([
      ['Placed', plan.totals.placed, single.calc.amount],
      ['Covered by a guarantee', plan.totals.placed, single.dgs.covered],
      ['Not covered', '0.00', single.dgs.uncovered],
      ['Return per year', plan.totals.returnPerYear, single.calc.returnPerYear],
      ['Comparable yield', plan.totals.comparableYield, single.calc.comparableYield],
      ['Net effective rate', plan.totals.effectiveRate, single.calc.effectiveRate],
    ]);
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);

  it('a part opens for its own amount; a refused amount keeps the last plan and says why', async () => {
    const s = await h.open(`/?amount=${AMOUNT}&view=plan`);
    const [first] = await parts(s.page);
    expect(await interact(s, () => s.page.click(`table.parts button[data-offer="${first!.id}"]`))).toBe(1);
    const dialog = s.page.locator('dialog.detail[open]');
    await dialog.locator('table.steps').waitFor();
    expect(await dialog.locator('#figures-title data').getAttribute('value')).toBe(first!.amount);
    const detail = await h.api(`/api/products/${first!.id}?amount=${first!.amount}`);
    expect(await dialog.locator('table.steps tbody tr').last().locator('td data').last().getAttribute('value')).toBe(
      detail.offer.calc.steps.at(-1).closingBalance,
    );
    await s.page.keyboard.press('Escape');
    await poll(() => s.page.locator('dialog.detail').count()).toBe(0);

    await interact(s, async () => {
      await s.page.fill('#amount', 'lots');
      await s.page.press('#amount', 'Enter');
    });
    await poll(() => s.page.textContent('#amount-help')).toMatch(/^“lots” is not an amount/);
    expect(await s.page.textContent('.plan .summary')).toMatch(/^Still the plan for the last amount/);
    expect((await parts(s.page))[0]!.id).toBe(first!.id);
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);

  it('the plan’s rules by keyboard alone', async () => {
    const s = await h.open(`/?amount=${AMOUNT}&view=plan`);
    await parts(s.page);
    for (let i = 0; i < 100; i++) {
      await s.page.keyboard.press('Tab');
      if (await s.page.evaluate(() => document.activeElement?.id === 'maxOffers')) break;
    }
    expect(await s.page.evaluate(() => document.activeElement?.id)).toBe('maxOffers');
    expect(await interact(s, () => s.page.keyboard.press('ArrowUp'))).toBe(1);
    expect(new URL(s.page.url()).searchParams.get('maxOffers')).toBe('4');
    await s.close();
  }, 180_000);

  it('screenshots at 1,440 and 390 px: accessible, no select cut, nothing scrolling sideways', async () => {
    for (const width of WIDTHS) {
      const s = await h.open(`/?amount=${AMOUNT}&view=plan&maxOffers=3`, { width, height: width === 390 ? 844 : 900 });
      await parts(s.page);
      await s.page.locator('.changes ol.events li').first().waitFor();
      await settled(s.page);
      await expectAccessible(s.page, `plan at ${width}`);
      expect(await clippedSelects(s.page)).toEqual([]);
      expect(await sidewaysScrollers(s.page)).toEqual([]);
      await shoot(s.page, `plan-${width}`, true);
      expect(s.problems).toEqual([]);
      await s.close();
    }
  }, 180_000);
});
