// The URL is the page's state: parsed with the API's defaults, written back without them, and turned
// into the list query's variables and the CSV link.
import { describe, expect, it } from 'vitest';
import {
  asOfInstant,
  DEFAULTS,
  exportHref,
  listVariables,
  parseState,
  planVariables,
  serializeState,
  today,
  typeOf,
  withChange,
} from './state.js';

describe('page state in the URL', () => {
  it('is the defaults for an empty query, and an empty query for the defaults', () => {
    expect(parseState('')).toEqual(DEFAULTS);
    expect(serializeState(parseState(''))).toBe('');
  });

  it('round-trips every kind of parameter in the REST spelling', () => {
    const search =
      '?amount=25000&horizon=24&type=deposit&terms=12,24&channel=aggregator&country=NL,DE&fullDgs=false' +
      '&payout=MONTHLY&freshness=24h&sort=headline&order=asc&zoek=bank&page=3&view=market&days=30&offer=abc-1';
    const state = parseState(search);
    expect(state).toMatchObject({
      amount: '25000',
      terms: ['12', '24'],
      country: ['NL', 'DE'],
      fullDgs: false,
      freshness: '24h',
      view: 'market',
      offer: 'abc-1',
    });
    expect(serializeState(state)).toBe(search);
  });

  it('reads repeated and bracket-free lists alike', () => {
    expect(parseState('?country=NL&country=DE').country).toEqual(['NL', 'DE']);
  });

  it('goes back to page 1 when a filter changes, not when the page, the view or the plan does', () => {
    const state = parseState('?page=4');
    expect(withChange(state, { type: 'deposit' }).page).toBe('1');
    expect(withChange(state, { view: 'market' }).page).toBe('4');
    expect(withChange(state, { page: '5' }).page).toBe('5');
    expect(withChange(state, { maxOffers: '3', flexibleShare: '20' }).page).toBe('4');
  });

  it('keeps the plan view and its parameters; an unknown view is the list', () => {
    const search = '?amount=350000&view=plan&maxOffers=3&flexibleShare=20';
    expect(serializeState(parseState(search))).toBe(search);
    expect(parseState('?view=nonsense').view).toBe('list');
  });

  it('asks each view for its own type until the saver picks one', () => {
    expect(typeOf(parseState(''))).toBe('flexible');
    expect(typeOf(parseState('?view=market'))).toBe('flexible');
    expect(typeOf(parseState('?view=plan'))).toBe('all');
    expect(typeOf(parseState('?view=plan&type=deposit'))).toBe('deposit');
    expect(serializeState(parseState('?view=plan&type=flexible'))).toBe('?type=flexible&view=plan');
  });
});

describe('the market as of a day', () => {
  // Noon UTC: the same day in every time zone a test machine is likely to be in.
  const now = new Date('2026-11-20T12:34:56.789Z');

  it('is a day in the URL, parsed and written like every other parameter, after the rest', () => {
    const state = parseState('?amount=25000&asOf=2026-11-10');
    expect(state.asOf).toBe('2026-11-10');
    expect(serializeState(state)).toBe('?amount=25000&asOf=2026-11-10');
    expect(serializeState(withChange(state, { asOf: '' }))).toBe('?amount=25000');
    expect(parseState('').asOf).toBe('');
    expect(parseState('?asOf=%20').asOf).toBe('');
  });

  it('is a change of the list: back to page 1', () => {
    expect(withChange(parseState('?page=3'), { asOf: '2026-11-10' }).page).toBe('1');
  });

  it('asks for the end of a past day, in UTC', () => {
    expect(asOfInstant('2026-11-10', now)).toBe('2026-11-10T23:59:59.999Z');
    expect(asOfInstant('2026-11-19', now)).toBe('2026-11-19T23:59:59.999Z');
  });

  it('asks for now, to the minute, for today (its end is in the future, which the API refuses)', () => {
    expect(today(now)).toBe('2026-11-20');
    expect(asOfInstant('2026-11-20', now)).toBe('2026-11-20T12:34:00.000Z');
    expect(asOfInstant('2026-11-20', new Date('2026-11-20T12:34:01Z'))).toBe(asOfInstant('2026-11-20', now));
  });

  it('sends a later day, or anything that is not a day, as it is, for the API to refuse or read', () => {
    expect(asOfInstant('2026-12-01', now)).toBe('2026-12-01T23:59:59.999Z');
    expect(asOfInstant('yesterday', now)).toBe('yesterday');
    expect(asOfInstant('2026-11-10T06:00:00Z', now)).toBe('2026-11-10T06:00:00Z');
    expect(asOfInstant('', now)).toBeUndefined();
  });

  it('goes into every query and the CSV link as the instant; none without a day', () => {
    const state = parseState('?type=deposit&view=plan&asOf=2026-11-10');
    expect(listVariables(state, now).asOf).toBe('2026-11-10T23:59:59.999Z');
    expect(planVariables(state, now).asOf).toBe('2026-11-10T23:59:59.999Z');
    expect(exportHref(state, now)).toBe('/api/products/export?type=deposit&asOf=2026-11-10T23%3A59%3A59.999Z');
    expect(JSON.stringify(listVariables(parseState(''), now))).not.toContain('asOf');
  });
});

describe('list variables', () => {
  it('spell enums the GraphQL way and numbers as numbers', () => {
    const vars = listVariables(
      parseState('?type=all&freshness=24h&sort=min&order=desc&terms=12&payout=at_maturity&country=nl'),
    );
    expect(vars).toMatchObject({
      type: 'ALL',
      freshness: 'LAST_24H',
      sort: 'MIN',
      order: 'DESC',
      terms: [12],
      payout: ['AT_MATURITY'],
      country: ['NL'],
      page: 1,
      pageSize: 20,
      withMarket: false,
    });
    expect(vars.amount).toBe('50000');
  });

  it('send what the saver typed when it is not a number, for the API to answer', () => {
    expect(listVariables(parseState('?amount=abc&horizon=x')).amount).toBe('abc');
    expect(listVariables(parseState('?horizon=x')).horizon).toBe('x');
  });

  it('ask for the market history only in the market view', () => {
    expect(listVariables(parseState('?view=market'))).toMatchObject({ withMarket: true, days: 90 });
    expect(listVariables(parseState(''))).toMatchObject({ withMarket: false });
  });
});

describe('plan variables', () => {
  it('are the list’s filters and the plan’s own parameters, without paging, sorting or the list’s cover rule', () => {
    const vars = planVariables(
      parseState('?amount=350000&view=plan&terms=12&country=nl&maxOffers=3&flexibleShare=20&page=2&fullDgs=false'),
    );
    expect(vars).toMatchObject({
      amount: '350000',
      type: 'ALL',
      terms: [12],
      country: ['NL'],
      sort: 'RETURN',
      bestSort: 'RETURN',
      maxOffers: 3,
      flexibleShare: '20',
    });
    for (const key of ['page', 'pageSize', 'order', 'fullDgs', 'includeIneligible', 'withMarket', 'days'])
      expect(vars).not.toHaveProperty(key);
  });

  it('maximise the effective rate when the saver sorts by it; any sort of the list alone means the return', () => {
    expect(planVariables(parseState('?view=plan&sort=effective'))).toMatchObject({ sort: 'EFFECTIVE' });
    expect(planVariables(parseState('?view=plan&sort=headline'))).toMatchObject({ sort: 'RETURN' });
  });

  it('send a maximum the saver mistyped as it is, for the API to answer', () => {
    expect(planVariables(parseState('?view=plan&maxOffers=many')).maxOffers).toBe('many');
  });
});

describe('the CSV link', () => {
  it('is the same selection on the export endpoint, without paging or page-only parameters', () => {
    expect(
      exportHref(parseState('?amount=25000&type=deposit&terms=12,24&page=3&offer=x&view=market&maxOffers=3')),
    ).toBe('/api/products/export?amount=25000&type=deposit&terms=12,24');
    expect(exportHref(parseState(''))).toBe('/api/products/export');
  });
});
