// The URL is the page's state: parsed with the API's defaults, written back without them, and turned
// into the list query's variables and the CSV link.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, exportHref, listVariables, parseState, serializeState, withChange } from './state.js';

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

  it('goes back to page 1 when a filter changes, not when the page or the view does', () => {
    const state = parseState('?page=4');
    expect(withChange(state, { type: 'deposit' }).page).toBe('1');
    expect(withChange(state, { view: 'market' }).page).toBe('4');
    expect(withChange(state, { page: '5' }).page).toBe('5');
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

describe('the CSV link', () => {
  it('is the same selection on the export endpoint, without paging or page-only parameters', () => {
    expect(exportHref(parseState('?amount=25000&type=deposit&terms=12,24&page=3&offer=x&view=market'))).toBe(
      '/api/products/export?amount=25000&type=deposit&terms=12,24',
    );
    expect(exportHref(parseState(''))).toBe('/api/products/export');
  });
});
