// The comparison page in a real Chromium (Debian's, driven by playwright-core), against the whole service
// on a loopback port: the numbers it shows are the API's, every interaction is one GraphQL request, the
// URL holds the state, it works on a phone and by keyboard, axe finds nothing serious, it runs under the
// strict CSP without a console error, and the CSV link gives the same rows. Screenshots of each view at
// 1,440 and 390 px and the measured numbers go to test/artifacts/. The savings plan: web-plan.test.ts.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Decimal } from 'decimal.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySnapshot } from '../src/ingest/apply.js';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { SAMPLE } from './support/app.js';
import { browserSkip } from './support/browser.js';
import {
  ARTIFACTS,
  clippedSelects,
  euros,
  expectAccessible,
  interact,
  ownQueries,
  poll,
  rows,
  settled,
  shoot,
  sidewaysScrollers,
  startPageHarness,
  WIDTHS,
  type PageHarness,
  type Row,
} from './support/page.js';

const JS_BUDGET_BYTES = 150 * 1024;

let h: PageHarness;
const api = <T = any>(pathAndQuery: string) => h.api<T>(pathAndQuery);
const open = (pathAndQuery: string, viewport?: { width?: number; height?: number }) => h.open(pathAndQuery, viewport);
const perf: Record<string, unknown> = {};
const requestsPerInteraction: Record<string, number> = {};

/** The page's rows are the API's rows for the same query, value for value. */
async function expectApiRows(page: Page, query: string): Promise<Row[]> {
  const list = await api(`/api/products?pageSize=20&${query}`);
  const shown = await rows(page);
  expect(shown.map((r) => r.id)).toEqual(list.items.map((i: any) => i.id));
  list.items.forEach((item: any, i: number) => {
    const row = shown[i]!;
    expect(row).toMatchObject({
      headline: item.headlineRate,
      yield: item.calc.comparableYield,
      effective: item.calc.effectiveRate,
      returnPerYear: item.calc.returnPerYear,
    });
    expect(row.returnText).toBe(euros(item.calc.returnPerYear));
    expect(row.dgs).toEqual(
      item.dgs.fullyCovered
        ? 'Fully covered'
        : item.dgs.verified
          ? expect.stringMatching(/^Partly covered/)
          : 'No verified guarantee',
    );
  });
  return shown;
}

async function timings(page: Page): Promise<{ fcp: number; list: number }> {
  await page.waitForFunction(() => performance.getEntriesByName('list-shown').length > 0);
  return page.evaluate(() => ({
    fcp: Math.round(performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1),
    list: Math.round(performance.getEntriesByName('list-shown')[0]!.startTime),
  }));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A promoted offer's headline, as its cell shows it. */
async function headlineParts(page: Page, id: string) {
  return page.locator(`tr:has(button[data-offer="${id}"]) td[data-label="Headline rate"]`).evaluate((td) => {
    const value = (cls: string) => (td.querySelector(`data.${cls}`) as HTMLDataElement | null)?.value ?? null;
    return {
      base: value('base'),
      bonus: value('bonus'),
      promotional: value('promotional'),
      headline: value('headline'),
      labels: [...td.querySelectorAll('.what')].map((e) => e.textContent),
      text: td.textContent ?? '',
    };
  });
}

describe.skipIf(browserSkip !== null)('the comparison page in Chromium', () => {
  beforeAll(async () => {
    h = await startPageHarness();
  }, 240_000); // seeding the sample market, on a busy machine

  afterAll(async () => {
    await h?.close();
    if (Object.keys(perf).length) {
      const report = { ...perf, requestsPerInteraction };
      await writeFile(path.join(ARTIFACTS, 'perf.json'), `${JSON.stringify(report, null, 2)}\n`);
      console.log(`web page, measured in Chromium: ${JSON.stringify(report)}`);
    }
  });

  it(
    'first load: the list with the API’s numbers in one ' + 'request, fast, under the CSP and without console errors',
    async () => {
      // The very first load also meets a cold service (nothing compiled or cached yet).
      const cold = await open('/');
      perf.serviceColdLoad = await timings(cold.page);
      await cold.close();

      const loads: { fcp: number; list: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const s = await open('/');
        loads.push(await timings(s.page));
        expect(ownQueries(s)).toEqual(['Comparison']);
        await poll(() => s.graphql).toEqual(['Comparison', 'LatestChanges']);
        await s.page.locator('.changes ol.events li').first().waitFor();
        await expectApiRows(s.page, '');
        expect(s.problems).toEqual([]);
        await s.close();
      }
      perf.browserColdLoad = {
        fcpMs: median(loads.map((l) => l.fcp)),
        listShownMs: median(loads.map((l) => l.list)),
        runs: loads,
      };
      requestsPerInteraction.firstLoad = 1;
      // Generous against a busy two-core machine: the target (≤ 1 s) is reported in perf.json, not asserted.
      expect(median(loads.map((l) => l.list))).toBeLessThan(3000);
    },
  );

  it('the page is served with the strict CSP, immutable assets and revalidation', async () => {
    const page = await fetch(`${h.base}/`);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|style=/); // nothing inline
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)![1]!;
    const asset = await fetch(h.base + script, { headers: { 'accept-encoding': 'br' } });
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = page.headers.get('etag')!;
    expect((await fetch(`${h.base}/`, { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('a new amount, new numbers; one the API refuses said in the page’s words, the last list kept', async () => {
    const s = await open('/');
    await rows(s.page);
    requestsPerInteraction.amount = await interact(s, async () => {
      await s.page.fill('#amount', '25,000');
      await s.page.press('#amount', 'Enter');
    });
    expect(requestsPerInteraction.amount).toBe(1);
    expect(new URL(s.page.url()).searchParams.get('amount')).toBe('25000');
    const good = await expectApiRows(s.page, 'amount=25000');
    const summary = () => s.page.textContent('.results .summary');
    expect(await summary()).not.toMatch(/still/i);

    const amountProblem = async (amount: string) => {
      const res = await fetch(`${h.base}/api/products?amount=${encodeURIComponent(amount)}`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { errors: { parameter: string; message: string }[] };
      return body.errors.find((e) => e.parameter === 'amount')!.message;
    };
    const typeAmount = (text: string) =>
      interact(s, async () => {
        await s.page.fill('#amount', text);
        await s.page.press('#amount', 'Enter');
      });
    // A rule the amount breaks: the API's reason, in a sentence about the field.
    for (const typed of ['0', '12.345']) {
      await typeAmount(typed);
      await poll(() => s.page.textContent('#amount-help')).toBe(`The amount ${await amountProblem(typed)}.`);
      expect(await s.page.getAttribute('#amount', 'aria-invalid')).toBe('true');
      // The list for the last amount the API took stays, and says so.
      expect((await rows(s.page)).map((r) => r.id)).toEqual(good.map((r) => r.id));
      expect(await summary()).toMatch(/^Still showing/);
      expect(await s.page.textContent('.results .summary data')).toBe(euros('25000'));
    }
    // Not a number at all: not the scalar's message (`Decimal must be a decimal number … (got "abc")`) but
    // what was typed and what to type instead.
    await typeAmount('abc');
    await poll(() => s.page.textContent('#amount-help')).toMatch(/^“abc” is not an amount: type a number of euros/);
    expect(await s.page.textContent('#amount-help')).not.toMatch(/Decimal|got|"/);
    expect(await s.page.getAttribute('#amount-help', 'role')).toBe('alert');
    expect((await rows(s.page)).map((r) => r.id)).toEqual(good.map((r) => r.id));
    expect(await summary()).toMatch(/^Still showing/);
    await expectAccessible(s.page, 'refused amount');
    await shoot(s.page, 'refused-amount-1440');

    // A good amount again: its own list, nothing stale.
    await typeAmount('30000');
    await expectApiRows(s.page, 'amount=30000');
    expect(await summary()).not.toMatch(/still/i);
    expect(await s.page.textContent('#amount-help')).toBe('in euros');
    expect(s.problems).toEqual([]);
    await s.close();

    // A link with a bad amount has no last list: the page says why the list is empty.
    const linked = await open('/?amount=abc');
    await poll(() => linked.page.textContent('.results .summary')).toBe(
      'No offers shown: correct what is marked above.',
    );
    expect(await linked.page.textContent('#amount-help')).toMatch(/^“abc” is not an amount/);
    expect(linked.problems).toEqual([]);
    await linked.close();
  }, 180_000);

  it(
    'type, facets, sort and paging: one request each, the API’s rows, ' + 'zero counts disabled; the URL keeps it all',
    async () => {
      const s = await open('/?amount=25000');
      await rows(s.page);
      const counts: number[] = [];
      counts.push(await interact(s, () => s.page.check('input[name="type"][value="deposit"]')));
      const facets = (await api('/api/products?amount=25000&type=deposit&pageSize=1')).facets;
      const term = String(facets.term[0].value);
      counts.push(await interact(s, () => s.page.check(`input[name="terms"][value="${term}"]`)));
      counts.push(await interact(s, () => s.page.selectOption('#sort', 'headline')));
      requestsPerInteraction.facet = counts[1]!;
      requestsPerInteraction.sort = counts[2]!;
      expect(counts).toEqual([1, 1, 1]);
      const query = `amount=25000&type=deposit&terms=${term}&sort=headline`;
      const page1 = await expectApiRows(s.page, query);

      // A facet value no offer has (with the other filters) is listed, disabled.
      const payouts = new Map(
        (await api(`/api/products?${query}&pageSize=1`)).facets.payout.map((b: any) => [b.value, b.count]),
      );
      for (const payout of ['MONTHLY', 'QUARTERLY', 'ANNUALLY', 'AT_MATURITY', 'OTHER']) {
        expect(await s.page.isDisabled(`input[name="payout"][value="${payout}"]`)).toBe(!payouts.get(payout));
      }

      const total = (await api(`/api/products?${query}&pageSize=1`)).total as number;
      if (total > 20) {
        requestsPerInteraction.page = await interact(s, () => s.page.click('nav.pager button:has-text("Next")'));
        expect(requestsPerInteraction.page).toBe(1);
        const page2 = await expectApiRows(s.page, `${query}&page=2`);
        expect(new URL(s.page.url()).search).toBe(`?${query}&page=2`);

        // Reload keeps the state, back and forward walk it.
        await s.page.reload();
        expect((await rows(s.page)).map((r) => r.id)).toEqual(page2.map((r) => r.id));
        expect(await s.page.inputValue('#amount')).toBe('25,000');
        expect(await s.page.inputValue('#sort')).toBe('headline');
        expect(await s.page.isChecked(`input[name="terms"][value="${term}"]`)).toBe(true);
        expect(await s.page.isChecked('input[name="type"][value="deposit"]')).toBe(true);
        await s.page.goBack();
        await poll(async () => (await rows(s.page)).map((r) => r.id)).toEqual(page1.map((r) => r.id));
        expect(new URL(s.page.url()).search).toBe(`?${query}`);
        await s.page.goForward();
        await poll(async () => (await rows(s.page)).map((r) => r.id)).toEqual(page2.map((r) => r.id));
      }
      // back past the sort (and page 2) and the term: the deposits of the first step
      for (let i = total > 20 ? 3 : 2; i > 0; i--) await s.page.goBack();
      await poll(() => s.page.isChecked(`input[name="terms"][value="${term}"]`)).toBe(false);
      expect(new URL(s.page.url()).search).toBe('?amount=25000&type=deposit');
      expect(s.problems).toEqual([]);
      await s.close();
    },
  );

  it(
    'an offer’s detail: monthly steps, a drawn rate-history ' + 'chart, events, the same licence; Escape closes it',
    async () => {
      const s = await open('/?amount=25000');
      const [first] = await rows(s.page);
      requestsPerInteraction.detail = await interact(s, () => s.page.click(`button[data-offer="${first!.id}"]`));
      expect(requestsPerInteraction.detail).toBe(1);
      expect(new URL(s.page.url()).searchParams.get('offer')).toBe(first!.id);
      const detail = await api(`/api/products/${first!.id}?amount=25000`);
      const dialog = s.page.locator('dialog.detail[open]');
      await poll(() => dialog.locator('table.steps tbody tr').count()).toBe(detail.offer.calc.steps.length);
      const lastStep = detail.offer.calc.steps.at(-1);
      expect(await dialog.locator('table.steps tbody tr').last().locator('td data').last().getAttribute('value')).toBe(
        lastStep.closingBalance,
      );
      await dialog.locator('.chart canvas').first().waitFor();
      await poll(() =>
        dialog
          .locator('.chart canvas')
          .first()
          .evaluate((c: HTMLCanvasElement) => {
            const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
            let inked = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) inked++;
            return inked;
          }),
      ).toBeGreaterThan(500);
      await poll(() => dialog.locator('#events-title').isVisible()).toBe(true);
      expect(await dialog.locator('#licence-title').textContent()).toBe('Under the same licence');
      await expectAccessible(s.page, 'detail');

      await s.page.keyboard.press('Escape');
      await poll(() => s.page.locator('dialog.detail').count()).toBe(0);
      expect(new URL(s.page.url()).searchParams.get('offer')).toBeNull();
      expect(await s.page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.offer)).toBe(
        first!.id,
      );
      expect(s.problems).toEqual([]);
      await s.close();

      // An offer the API does not know: its message, in the dialog.
      const unknown = await open('/?offer=no-such-offer');
      const refused = await h.t.graphql('{ product(id: "no-such-offer") { offer { id } } }');
      await poll(() => unknown.page.textContent('dialog.detail[open] .problems')).toBe(
        refused.body.errors![0]!.message,
      );
      expect(unknown.problems).toEqual([]);
      await unknown.close();
    },
  );

  it('the market: term curve and market history drawn, in one request; the legends show values unhovered', async () => {
    const s = await open('/');
    await rows(s.page);
    requestsPerInteraction.market = await interact(s, () => s.page.click('nav.views a:has-text("Market")'));
    expect(requestsPerInteraction.market).toBe(1);
    expect(new URL(s.page.url()).searchParams.get('view')).toBe('market');
    await poll(() => s.page.locator('.market .chart canvas').count()).toBeGreaterThanOrEqual(2);
    const list = await api('/api/products?pageSize=1');
    expect(await s.page.locator('.market table.plain tbody tr').first().locator('data').getAttribute('value')).toBe(
      list.termCurve[0].rate,
    );

    // Before any hover the legends show a point, not dashes: the latest day of the market history and
    // the best term of the curve, each value the API's, formatted.
    const legend = (chart: string) =>
      s.page.$$eval(`.chart[data-chart="${chart}"] .u-legend tr`, (trs) =>
        trs.map((tr) => [tr.querySelector('.u-label')?.textContent ?? '', tr.querySelector('.u-value')?.textContent]),
      );
    const percent = (v: string) =>
      new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 2 }).format(
        new Decimal(v).div(100).toNumber(),
      );
    const history = (await api('/api/rates/history?view=market&days=90')).items;
    const latest = history.at(-1);
    const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(
      new Date(`${latest.date}T00:00:00Z`),
    );
    await poll(() => legend('market history')).toEqual([
      ['Day', day],
      ['Flexible', percent(latest.flexible)],
      ['Notice', percent(latest.notice)],
      ['1-year deposit', percent(latest.deposit12)],
      ['5-year deposit', percent(latest.deposit60)],
    ]);
    const best = [...list.termCurve].sort((a: any, b: any) => new Decimal(b.rate).cmp(a.rate))[0];
    expect(await legend('term curve')).toEqual([
      ['Term', `${best.term} months`],
      ['Best comparable yield', percent(best.rate)],
    ]);
    // Hovering shows the point under the pointer; leaving the chart goes back to the latest day.
    const plot = s.page.locator('.chart[data-chart="market history"] .u-over');
    const box = (await plot.boundingBox())!;
    await plot.hover({ position: { x: 2, y: box.height / 2 } });
    await poll(async () => (await legend('market history'))[0]![1]).not.toBe(day);
    await s.page.locator('h1').hover();
    await poll(async () => (await legend('market history'))[0]![1]).toBe(day);
    await expectAccessible(s.page, 'market');
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);

  // The sample market has a data version a day at 06:00 UTC, up to the service's clock (SAMPLE.end, noon);
  // a day of it before the last is in the past for the service whatever the browser's clock says.
  const PAST_DAY = '2026-11-10';
  const endOf = (day: string) => `${day}T23:59:59.999Z`;
  const dayText = (day: string) =>
    new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
  const timeText = (iso: string) =>
    new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  const banner = (page: Page) => page.locator('.as-of [role="status"]');
  /** The variables of every GraphQL request the page has made, the preloaded first one included. */
  const graphqlVariables = (page: Page) =>
    page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name))
        .filter((u) => u.pathname === '/graphql')
        .map((u) => JSON.parse(u.searchParams.get('variables') ?? '{}') as Record<string, unknown>),
    );
  /** Waits for the page's rows to be these (a new answer replaces the last one when it arrives). */
  const rowsBecome = async (page: Page, query: string) => {
    const { items } = await api(`/api/products?pageSize=20&${query}`);
    await poll(async () => (await rows(page)).map((r) => r.id)).toEqual(items.map((i: any) => i.id));
    await settled(page);
    return expectApiRows(page, query);
  };

  it('the market as of a past day: every request asks for it, a banner says so; “Back to today”', async () => {
    const instant = endOf(PAST_DAY);
    const asOf = `asOf=${encodeURIComponent(instant)}`;
    const then = await api(`/api/products?pageSize=20&${asOf}`);
    const now = await api('/api/products?pageSize=20');
    expect(then.generatedAt.slice(0, 10)).toBe(PAST_DAY);
    expect(then.generatedAt).not.toBe(now.generatedAt);

    const s = await open(`/?amount=50000&asOf=${PAST_DAY}`);
    await rowsBecome(s.page, asOf);
    await poll(() => banner(s.page).textContent()).toBe(
      `You are looking at the market as it stood on ${dayText(PAST_DAY)} (data of ${timeText(then.generatedAt)}).`,
    );
    expect(await s.page.inputValue('#asOf')).toBe(PAST_DAY);
    expect(await s.page.textContent('.market-line')).toContain(`Best on ${dayText(PAST_DAY)}:`);
    expect(await s.page.textContent('footer')).toContain(`Data of ${timeText(then.generatedAt)}.`);
    expect(await s.page.getAttribute('a[download]', 'href')).toBe(`/api/products/export?${asOf}`);
    // The changes beside it are that day's too, asked for once and not followed (the past does not move).
    await s.page.locator('.changes ol.events li').first().waitFor();
    expect(await s.page.textContent('#changes-title')).toBe(`Latest changes as of ${dayText(PAST_DAY)}`);
    const { items: changesThen } = await api(`/api/changes?limit=8&${asOf}`);
    expect(await s.page.locator('.changes ol.events li time').first().getAttribute('datetime')).toBe(changesThen[0].at);
    // Opening an offer asks for it as of that day too.
    const [first] = await rows(s.page);
    await s.page.click(`button[data-offer="${first!.id}"]`);
    await s.page.locator('dialog.detail[open] table.steps').waitFor();
    await s.page.keyboard.press('Escape');
    await poll(() => s.page.locator('dialog.detail').count()).toBe(0);
    await expectAccessible(s.page, 'as of a past day');
    await shoot(s.page, 'as-of-1440');
    // A savings plan, and the market with its history, are of that day too.
    await s.page.click('nav.views a:has-text("Savings plan")');
    await s.page.locator('table.parts tbody tr').first().waitFor();
    await s.page.click('nav.views a:has-text("Market")');
    await s.page.locator('.chart[data-chart="market history"] canvas').waitFor();
    const history = await api(`/api/rates/history?view=market&days=90&${asOf}`);
    expect(history.items.at(-1).date).toBe(PAST_DAY);
    expect(await s.page.locator('.market .scroll table tbody tr').last().locator('td').first().textContent()).toMatch(
      dayText(PAST_DAY),
    );
    await s.page.click('nav.views a:has-text("Offers")');
    await rowsBecome(s.page, asOf);
    const sent = await graphqlVariables(s.page);
    expect(new Set(s.graphql)).toEqual(new Set(['Comparison', 'LatestChanges', 'OfferDetail', 'SavingsPlan']));
    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (const variables of sent) expect(variables.asOf).toBe(instant);

    await s.page.click('.as-of a:has-text("Back to today")');
    await poll(() => banner(s.page).count()).toBe(0);
    expect(new URL(s.page.url()).searchParams.get('asOf')).toBeNull();
    await rowsBecome(s.page, '');
    expect(await s.page.inputValue('#asOf')).toBe('');
    expect(await s.page.textContent('#changes-title')).toBe('Latest changes');
    // Back brings the past day again, from the URL.
    await s.page.goBack();
    await poll(() => banner(s.page).count()).toBe(1);
    await rowsBecome(s.page, asOf);
    expect(s.problems).toEqual([]);
    await s.close();

    // On a phone the banner wraps; nothing scrolls sideways.
    const phone = await open(`/?asOf=${PAST_DAY}`, { width: 390, height: 844 });
    await rowsBecome(phone.page, asOf);
    await poll(() => banner(phone.page).textContent()).toMatch(/\(data of /);
    expect(await sidewaysScrollers(phone.page)).toEqual([]);
    await shoot(phone.page, 'as-of-390');
    await phone.close();
  }, 180_000);

  it('a date the API refuses (before the first data, in the future) is said at the field, the list kept', async () => {
    const s = await open('/');
    const shown = await rowsBecome(s.page, '');
    const refusal = async (instant: string) => {
      const res = await fetch(`${h.base}/api/products?asOf=${encodeURIComponent(instant)}`);
      const body = (await res.json()) as { errors: { parameter: string; message: string }[] };
      return { status: res.status, message: body.errors.find((e) => e.parameter === 'asOf')!.message };
    };
    const iso = /\d{4}-\d{2}-\d{2}T[\d:.]+Z/;
    for (const [day, status] of [
      ['2026-10-01', 404],
      ['2026-11-21', 400],
    ] as const) {
      const refused = await refusal(endOf(day));
      expect(refused.status).toBe(status);
      await s.page.fill('#asOf', day);
      const expected = `The date ${refused.message.replace(iso, (t) => timeText(t))}.`;
      await poll(() => s.page.textContent('#asOf-help')).toBe(expected);
      expect(await s.page.getAttribute('#asOf-help', 'role')).toBe('alert');
      expect(await s.page.getAttribute('#asOf', 'aria-invalid')).toBe('true');
      expect(new URL(s.page.url()).searchParams.get('asOf')).toBe(day);
      // The banner says which day was asked for, but not that the data on screen is of it: it is not.
      expect(await banner(s.page).textContent()).toBe(`You are looking at the market as it stood on ${dayText(day)}.`);
      expect((await rows(s.page)).map((r) => r.id)).toEqual(shown.map((r) => r.id));
      expect(await s.page.textContent('.results .summary')).toMatch(/^Still showing/);
    }
    await expectAccessible(s.page, 'refused date');
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);

  it('a day clicked on the market history opens the list as it stood that day; the table’s links do too', async () => {
    const s = await open('/?view=market');
    const plot = s.page.locator('.chart[data-chart="market history"] .u-over');
    await s.page.locator('.chart[data-chart="market history"] canvas').waitFor();
    const history = (await api('/api/rates/history?view=market&days=90')).items as { date: string }[];
    const index = history.findIndex((d) => d.date === PAST_DAY);
    expect(index).toBeGreaterThan(0);
    // Where that day is drawn, checked by the legend, which shows the day under the pointer.
    const box = (await plot.boundingBox())!;
    const x = ((index + 0.1) / (history.length - 1)) * box.width;
    await plot.hover({ position: { x, y: box.height / 2 } });
    await poll(() => s.page.textContent('.chart[data-chart="market history"] .u-legend tr:first-child .u-value')).toBe(
      dayText(PAST_DAY),
    );
    await plot.click({ position: { x, y: box.height / 2 } });
    await poll(() => new URL(s.page.url()).searchParams.get('asOf')).toBe(PAST_DAY);
    expect(new URL(s.page.url()).searchParams.get('view')).toBeNull(); // the list
    expect(await s.page.inputValue('#asOf')).toBe(PAST_DAY);
    await rowsBecome(s.page, `asOf=${encodeURIComponent(endOf(PAST_DAY))}`);
    await poll(() => banner(s.page).textContent()).toMatch(`as it stood on ${dayText(PAST_DAY)} (data of`);

    // By keyboard: the table under the chart has a link per day.
    const day = history[index - 3]!.date;
    await s.page.click('nav.views a:has-text("Market")');
    await s.page.locator('summary:has-text("Market history as a table")').click();
    const link = s.page.locator(`.market table.plain a:has-text("${dayText(day)}")`);
    expect(await link.getAttribute('href')).toBe(`?asOf=${day}`);
    await link.focus();
    await s.page.keyboard.press('Enter');
    await poll(() => new URL(s.page.url()).search).toBe(`?asOf=${day}`);
    await rowsBecome(s.page, `asOf=${encodeURIComponent(endOf(day))}`);
    await poll(() => banner(s.page).textContent()).toMatch(`as it stood on ${dayText(day)} (data of`);
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);

  it('the latest changes sit beside the list and the market on a laptop, after them on a phone', async () => {
    for (const [query, main] of [
      ['/', 'table.offers'],
      ['/?view=market', '.market'],
    ] as const) {
      const s = await open(query);
      await s.page.locator(main).first().waitFor();
      await s.page.locator('.changes ol.events li').first().waitFor();
      const list = (await s.page.locator(main).first().boundingBox())!;
      const side = (await s.page.locator('.changes').boundingBox())!;
      expect(side.x).toBeGreaterThanOrEqual(list.x + list.width);
      expect(side.y).toBeLessThan(list.y + list.height / 2); // beside it, not below
      expect(side.x + side.width).toBeLessThanOrEqual(1440);
      expect(await sidewaysScrollers(s.page)).toEqual([]);
      await s.close();
    }
    const phone = await open('/', { width: 390, height: 844 });
    await rows(phone.page);
    const list = (await phone.page.locator('table.offers').boundingBox())!;
    const side = (await phone.page.locator('.changes').boundingBox())!;
    expect(side.y).toBeGreaterThanOrEqual(list.y + list.height);
    await phone.close();
  }, 180_000);

  it('a promotion’s headline shows base, bonus and total, each labelled, in the list and the detail', async () => {
    const query = 'amount=25000&type=all&sort=headline&pageSize=100';
    const s = await open(`/?${query}`);
    await rows(s.page);
    const { items } = await api(`/api/products?${query}`);
    const promoted = items.filter((o: any) => o.promotion);
    const bonuses = promoted.filter((o: any) => o.promotion.kind === 'bonus');
    expect(bonuses.length).toBeGreaterThan(0);
    const bestTier = (o: any) =>
      o.tiers.map((t: any) => new Decimal(t.rate)).reduce((a: Decimal, b: Decimal) => Decimal.max(a, b));
    for (const offer of promoted) {
      const shown = await headlineParts(s.page, offer.id);
      expect(shown.headline).toBe(offer.headlineRate);
      expect(shown.base).toBe(bestTier(offer).toFixed(2));
      if (offer.promotion.kind === 'bonus') {
        // The headline already holds the bonus: base + bonus = total, and the page says which is which.
        expect(shown.bonus).toBe(offer.promotion.rate);
        expect(new Decimal(shown.base!).plus(shown.bonus!).eq(shown.headline!)).toBe(true);
        expect(shown.labels).toEqual(['base', 'bonus', 'total']);
      } else {
        expect(shown.promotional).toBe(offer.promotion.rate);
        expect(shown.labels.slice(-2)).toEqual(['promotion', 'after that']);
      }
      expect(shown.text).toContain(`first ${offer.promotion.months} month`);
    }
    // The same in the detail's figures.
    const offer = bonuses[0];
    await interact(s, () => s.page.click(`button[data-offer="${offer.id}"]`));
    const figures = s.page.locator('dialog.detail[open] .figures');
    await figures.waitFor();
    expect(await figures.locator('data.base').getAttribute('value')).toBe(bestTier(offer).toFixed(2));
    expect(await figures.locator('data.bonus').getAttribute('value')).toBe(offer.promotion.rate);
    expect(await figures.locator('data.headline').getAttribute('value')).toBe(offer.headlineRate);
    await expectAccessible(s.page, 'promotion in the detail');
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);

  it('works on a 390 px phone: cards, nothing scrolls sideways; an offer’s months fit the screen', async () => {
    const s = await open('/?amount=25000&type=all', { width: 390, height: 844 });
    await expectApiRows(s.page, 'amount=25000&type=all');
    expect(await sidewaysScrollers(s.page)).toEqual([]);
    expect(
      await s.page
        .locator('table.offers tbody tr')
        .first()
        .evaluate((tr) => getComputedStyle(tr).display),
    ).toBe('block');
    await expectAccessible(s.page, 'phone');

    // The monthly steps of an offer that credits interest less often than monthly and keeps tax back: on
    // a phone they fit the dialog, which is the only thing that scrolls, and say what was credited and kept.
    const { items } = await api('/api/products?amount=25000&type=all&pageSize=100');
    const offer =
      items.find((o: any) => o.payout !== 'MONTHLY' && o.withholding.kind !== 'none' && o.type !== 'deposit') ??
      items.find((o: any) => o.payout !== 'MONTHLY') ??
      items[0];
    await interact(s, () => s.page.click(`button[data-offer="${offer.id}"]`));
    const dialog = s.page.locator('dialog.detail[open]');
    const { steps } = (await api(`/api/products/${offer.id}?amount=25000`)).offer.calc;
    await poll(() => dialog.locator('table.steps tbody tr').count()).toBe(steps.length);
    const region = await dialog.locator('div:has(> table.steps)').evaluate((e) => ({
      sideways: e.scrollWidth - e.clientWidth,
      inside: e.scrollHeight - e.clientHeight,
    }));
    expect(region.sideways).toBeLessThanOrEqual(0);
    expect(region.inside).toBeLessThanOrEqual(1);
    expect(await sidewaysScrollers(s.page)).toEqual([]);
    const visibleHeads = await dialog
      .locator('table.steps thead th')
      .evaluateAll((ths) => ths.filter((th) => th.getClientRects().length > 0).map((th) => th.textContent));
    expect(visibleHeads).toEqual(['Month', 'Rate', 'Interest', 'Closing balance']);
    const shown = await dialog.locator('table.steps tbody tr').evaluateAll((trs) =>
      trs
        .map((tr) => [...tr.querySelectorAll('td')].filter((td) => td.getClientRects().length > 0))
        .map((tds) => ({
          values: tds.map((td) => td.querySelector('data')?.value),
          note: tds[1]?.querySelector('.narrow-only')?.textContent ?? '',
        })),
    );
    steps.forEach((step: any, i: number) => {
      expect(shown[i]!.values).toEqual([step.rate, step.interest, step.closingBalance]);
      const credited = step.credited !== step.interest && !new Decimal(step.credited).isZero();
      expect(shown[i]!.note.includes(`credited ${euros(step.credited)}`)).toBe(credited);
      expect(shown[i]!.note.includes(`withheld ${euros(step.withholding)}`)).toBe(
        !new Decimal(step.withholding).isZero(),
      );
    });
    await expectAccessible(s.page, 'phone detail');
    expect(s.problems).toEqual([]);
    await s.close();
  }, 180_000);

  const VIEWS = [
    { name: 'list', query: '/?amount=25000', ready: 'table.offers tbody tr' },
    { name: 'market', query: '/?amount=25000&view=market', ready: '.chart[data-chart="market history"] canvas' },
    { name: 'detail', query: '/?amount=25000&offer=', ready: 'dialog.detail[open] .chart canvas' },
  ];
  it.each(WIDTHS.flatMap((width) => VIEWS.map((view) => ({ ...view, width }))))(
    // A select is as wide as its place; on a phone "Return per year" was cut off in the sort's.
    'screenshot of the $name at $width px: accessible, no select cut, nothing scrolling sideways',
    async ({ name, query, ready, width }) => {
      const offer = name === 'detail' ? (await api('/api/products?amount=25000&pageSize=1')).items[0].id : '';
      const s = await open(query + offer, { width, height: width === 390 ? 844 : 900 });
      await s.page.locator(ready).first().waitFor({ timeout: 15_000 });
      await s.page.locator('.changes ol.events li').first().waitFor();
      await settled(s.page);
      await expectAccessible(s.page, `${name} at ${width}`);
      expect(await clippedSelects(s.page)).toEqual([]);
      expect(await sidewaysScrollers(s.page)).toEqual([]);
      await shoot(s.page, `${name}-${width}`, name !== 'detail');
      if (name === 'detail') {
        await s.page.locator('dialog.detail table.steps').scrollIntoViewIfNeeded();
        await shoot(s.page, `detail-steps-${width}`);
      }
      expect(s.problems).toEqual([]);
      await s.close();
    },
    120_000,
  );

  it('formats numbers in the browser’s locale, from the API’s strings', async () => {
    const context = await h.browser.newContext({ locale: 'nl-NL', timezoneId: 'UTC' });
    const page = await context.newPage();
    await page.goto(`${h.base}/?amount=25000`);
    const [row] = await rows(page);
    const euro = new Intl.NumberFormat('nl-NL', { style: 'currency', currency: 'EUR' });
    expect(row!.returnText).toBe(euro.format(row!.returnPerYear as `${number}`));
    expect(await page.inputValue('#amount')).toBe('25.000');
    await context.close();
  });

  it('works by keyboard alone: amount, type, detail open and close, paging; focus is visible', async () => {
    const s = await open('/');
    await rows(s.page);
    const focused = () =>
      s.page.evaluate(() => {
        const e = document.activeElement as HTMLElement | null;
        return {
          id: e?.id ?? '',
          name: (e as HTMLInputElement | null)?.name ?? '',
          offer: e?.dataset.offer ?? '',
          text: e?.textContent ?? '',
          outline: e ? getComputedStyle(e).outlineStyle : '',
        };
      });
    /** Tab until the predicate holds (at most 300 presses). */
    const tabTo = async (want: (f: Awaited<ReturnType<typeof focused>>) => boolean) => {
      for (let i = 0; i < 300; i++) {
        await s.page.keyboard.press('Tab');
        if (want(await focused())) return focused();
      }
      throw new Error('not reachable by Tab');
    };
    await tabTo((f) => f.id === 'amount');
    await s.page.keyboard.press('Control+A');
    await s.page.keyboard.type('30000');
    expect(await interact(s, () => s.page.keyboard.press('Enter'))).toBe(1);
    expect(new URL(s.page.url()).searchParams.get('amount')).toBe('30000');

    await tabTo((f) => f.name === 'type');
    expect(await interact(s, () => s.page.keyboard.press('ArrowRight'))).toBe(1);
    expect(new URL(s.page.url()).searchParams.get('type')).toBe('notice');

    const details = await tabTo((f) => f.offer !== '');
    expect(details.outline).toBe('solid'); // :focus-visible
    expect(await interact(s, () => s.page.keyboard.press('Enter'))).toBe(1);
    await s.page.locator('dialog.detail[open] table.steps').waitFor();
    expect((await focused()).text).toBe('Close');
    await s.page.keyboard.press('Escape');
    await poll(() => s.page.locator('dialog.detail').count()).toBe(0);
    expect((await focused()).offer).toBe(details.offer);

    const total = (await api('/api/products?amount=30000&type=notice&pageSize=1')).total as number;
    if (total > 20) {
      await tabTo((f) => f.text === 'Next');
      expect(await interact(s, () => s.page.keyboard.press('Enter'))).toBe(1);
      expect(new URL(s.page.url()).searchParams.get('page')).toBe('2');
    }
    expect(s.problems).toEqual([]);
    await s.close();
  });

  it('the CSV link downloads the same rows as the list', async () => {
    const query = 'amount=25000&type=deposit&sort=headline';
    const s = await open(`/?${query}`);
    const shown = await rows(s.page);
    expect(await s.page.getAttribute('a[download]', 'href')).toBe(`/api/products/export?${query}`);
    const [download] = await Promise.all([s.page.waitForEvent('download'), s.page.click('a[download]')]);
    const csv = (await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, '');
    const [header, ...lines] = csv.split('\r\n').filter(Boolean);
    expect(header!.split(';')[0]).toBe('id');
    const total = (await api(`/api/products?${query}&pageSize=1`)).total as number;
    expect(lines).toHaveLength(total);
    expect(lines.slice(0, shown.length).map((l) => l.split(';')[0])).toEqual(shown.map((r) => r.id));
    expect(s.problems).toEqual([]);
    await s.close();
  });

  it(
    'shows a change ingested while it is open as it lands ' + '(the change stream), marked new, without asking again',
    async () => {
      const s = await open('/');
      await s.page.locator('.changes ol.events li').first().waitFor();
      await poll(() => h.t.app.services.changes.stats().open.sse).toBe(1); // the page follows the stream
      let last: Snapshot | undefined;
      for (const snapshot of generateSnapshots(SAMPLE)) last = snapshot;
      const next = structuredClone(last!);
      next.observedAt = new Date(Date.parse(next.observedAt) + 3_600_000).toISOString();
      const offer = next.offers.find((o) => o.type === 'flexible')!;
      const rate = (Number(offer.plan.headlineRate) + 0.53).toFixed(2);
      offer.plan = {
        ...offer.plan,
        headlineRate: rate,
        tierMode: 'whole',
        tiers: [{ from: '0.00', to: null, rate }],
        promotion: null,
      };
      await applySnapshot(h.t.db.prisma, next);
      const fresh = s.page.locator('.changes ol.events li.fresh');
      await fresh.first().waitFor({ timeout: 15_000 });
      // It arrived after the reload, so the list answers with the new data too.
      const { items } = await api<{ items: { summary: string; offerId: string; kind: string }[] }>(
        '/api/changes?limit=5',
      );
      const arrived = items.filter((e) => e.offerId === offer.id);
      await poll(() => fresh.allTextContents()).toEqual(
        expect.arrayContaining(arrived.map((e) => expect.stringContaining(e.summary))),
      );
      expect(s.graphql.filter((name) => name === 'LatestChanges')).toHaveLength(1); // no polling
      expect(s.problems).toEqual([]);
      await s.close();
    },
  );

  it('loads at most 150 KB of JavaScript (as served, brotli), the chart code included', async () => {
    const context = await h.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const sizes = new Map<string, number>();
    page.on('response', (r) => {
      if (!r.url().endsWith('.js')) return;
      void r.allHeaders().then((headers) => sizes.set(r.url(), Number(headers['content-length'] ?? 0)));
    });
    await page.goto(`${h.base}/?view=market`);
    await poll(() => page.locator('.market .chart canvas').count()).toBeGreaterThanOrEqual(2);
    await poll(() => sizes.size).toBeGreaterThanOrEqual(2); // the page and its chart chunk
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    perf.javascript = {
      files: sizes.size,
      bytesAsServed: total,
      kilobytes: Math.round(total / 102.4) / 10,
      encoding: 'br',
    };
    expect(total).toBeLessThanOrEqual(JS_BUDGET_BYTES);
    await context.close();
  });
});
