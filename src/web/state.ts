// The page's whole state lives in the URL, in the REST API's own parameter names and spellings
// (?amount=25000&type=deposit&sort=headline), so a page URL is shareable, back and forward work, and the
// CSV link is the same query on /api/products/export. One exception: asOf is a day here, which a saver
// picks and reads, and becomes the API's instant only when sent (asOfInstant). Nothing is checked here: a
// value the API does not accept is sent as it is, and the page says in its own words what the API refused
// (problems.ts).
import type { ComparisonQueryVariables, Payout, SavingsPlanQueryVariables } from './gql/graphql.js';

export type View = 'list' | 'market' | 'plan';
export const VIEWS: readonly View[] = ['list', 'plan', 'market'];

export interface PageState {
  amount: string;
  horizon: string;
  /** '' until the saver picks one: each view's own default (the list: flexible; a plan: all) */
  type: string;
  terms: string[];
  termMin: string;
  termMax: string;
  channel: string;
  country: string[];
  dgsCountry: string[];
  fullDgs: boolean;
  withholding: string;
  promotions: string;
  newCustomers: string;
  payout: string[];
  currentAccount: string;
  fees: string;
  earlyWithdrawal: string;
  noticeMax: string;
  freshness: string;
  includeIneligible: boolean;
  sort: string;
  order: string;
  brand: string;
  zoek: string;
  page: string;
  pageSize: string;
  /** page only: the list or the market overview */
  view: View;
  /** page only: the market history window */
  days: string;
  /** page only: the offer whose detail is open */
  offer: string;
  /** the savings plan's own parameters (GET /api/plan) */
  maxOffers: string;
  flexibleShare: string;
  /** the market as it stood on this day (YYYY-MM-DD); '' is now */
  asOf: string;
}

/** The API's defaults (contract §4), except the page size: a screenful. */
export const DEFAULTS: Readonly<PageState> = Object.freeze({
  amount: '50000',
  horizon: '12',
  type: '',
  terms: [],
  termMin: '',
  termMax: '',
  channel: 'all',
  country: [],
  dgsCountry: [],
  fullDgs: true,
  withholding: 'all',
  promotions: 'include',
  newCustomers: 'all',
  payout: [],
  currentAccount: 'all',
  fees: 'all',
  earlyWithdrawal: 'all',
  noticeMax: '',
  freshness: 'all',
  includeIneligible: false,
  sort: 'return',
  order: '',
  brand: '',
  zoek: '',
  page: '1',
  pageSize: '20',
  view: 'list',
  days: '90',
  offer: '',
  maxOffers: '5',
  flexibleShare: '0',
  asOf: '',
});

/** The type each view asks for when the saver has picked none: the API's own defaults. */
const VIEW_TYPE: Record<View, string> = { list: 'flexible', market: 'flexible', plan: 'all' };
export const typeOf = (state: PageState): string => state.type || VIEW_TYPE[state.view];

type Key = keyof PageState;
const KEYS = Object.keys(DEFAULTS) as Key[];
/** Parameters of the page itself or of the plan, not of the list: left out of the export link. */
const PAGE_ONLY = new Set<Key>(['page', 'pageSize', 'view', 'days', 'offer', 'maxOffers', 'flexibleShare']);

const isList = (key: Key): boolean => Array.isArray(DEFAULTS[key]);
const isFlag = (key: Key): boolean => typeof DEFAULTS[key] === 'boolean';

/** A page state from a query string; missing or empty parameters take their defaults. */
export function parseState(search: string): PageState {
  const params = new URLSearchParams(search);
  const state: Record<string, unknown> = { ...DEFAULTS };
  for (const key of KEYS) {
    const raw = params.getAll(key).join(',').trim();
    if (raw === '') continue;
    if (isList(key))
      state[key] = raw
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    else if (isFlag(key)) state[key] = raw === 'true' ? true : raw === 'false' ? false : raw;
    else state[key] = raw;
  }
  if (!VIEWS.includes(state.view as View)) state.view = 'list';
  return state as unknown as PageState;
}

function entries(state: PageState, keys: Key[]): [string, string][] {
  const out: [string, string][] = [];
  for (const key of keys) {
    const value = state[key];
    const fallback = DEFAULTS[key];
    if (Array.isArray(value)) {
      if (value.length > 0) out.push([key, value.join(',')]);
    } else if (value !== fallback && value !== '') {
      out.push([key, String(value)]);
    }
  }
  return out;
}

const query = (pairs: [string, string][]) => new URLSearchParams(pairs).toString().replace(/%2C/g, ',');

/** The query string for a state ("" for the defaults), parameters in a fixed order. */
export function serializeState(state: PageState): string {
  const text = query(entries(state, KEYS));
  return text ? `?${text}` : '';
}

/** The CSV export of the same selection (every row; paging does not apply), as of the same instant. */
export function exportHref(state: PageState, now = new Date()): string {
  const pairs = entries(
    state,
    KEYS.filter((k) => !PAGE_ONLY.has(k) && k !== 'asOf'),
  );
  const asOf = asOfInstant(state.asOf, now);
  if (asOf !== undefined) pairs.push(['asOf', asOf]);
  const text = query(pairs);
  return `/api/products/export${text ? `?${text}` : ''}`;
}

/** A change of filters starts again at page 1; paging, the detail and the view keep the rest. */
export function withChange(state: PageState, change: Partial<PageState>): PageState {
  const next = { ...state, ...change };
  const listChanged = KEYS.some(
    (k) => !PAGE_ONLY.has(k) && k in change && JSON.stringify(change[k]) !== JSON.stringify(state[k]),
  );
  if (listChanged && !('page' in change)) next.page = '1';
  return next;
}

// REST spells enum values in lower case ("deposit") and the freshness window "24h"; GraphQL in upper
// case (DEPOSIT, LAST_24H). Payouts are upper case in both.
export const toEnum = (value: string): string => (value.toLowerCase() === '24h' ? 'LAST_24H' : value.toUpperCase());

/** An integer as a number; anything else as typed, for the API to refuse with its own message. */
function int(value: string): number {
  return (/^-?\d+$/.test(value) ? Number(value) : value) as number;
}
const optionalInt = (value: string): number | undefined => (value === '' ? undefined : int(value));
const optionalText = (value: string): string | undefined => (value === '' ? undefined : value);
const optionalList = <T>(values: T[]): T[] | undefined => (values.length ? values : undefined);

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const pad = (n: number) => String(n).padStart(2, '0');

/** Today as a date field spells it: the saver's or UTC's, whichever is later (both have begun). */
export function today(now = new Date()): string {
  const local = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const utc = now.toISOString().slice(0, 10);
  return local > utc ? local : utc;
}

/**
 * The instant a day stands for: its end in UTC, so that the whole day's data counts. Today has not ended,
 * and the API refuses an instant in the future, so today is now, to the minute (the service's own "now"
 * without asOf), which keeps the request the same, and cached, for that minute. A later day is sent as it
 * is, for the API to refuse; so is anything that is not a day (an instant in a link is the API's to read).
 */
export function asOfInstant(day: string, now = new Date()): string | undefined {
  if (day === '') return undefined;
  if (!DAY.test(day)) return day;
  const end = `${day}T23:59:59.999Z`;
  if (day > today(now)) return end;
  const minute = Math.floor(now.getTime() / 60_000) * 60_000;
  return Date.parse(end) < minute ? end : new Date(minute).toISOString();
}

type Enum<K extends keyof ComparisonQueryVariables> = NonNullable<ComparisonQueryVariables[K]>;

/** The list query's variables for a state (the market history only in the market view). */
export function listVariables(state: PageState, now = new Date()): ComparisonQueryVariables {
  return {
    amount: state.amount,
    horizon: int(state.horizon),
    type: toEnum(typeOf(state)) as Enum<'type'>,
    terms: optionalList(state.terms.map(int)),
    termMin: optionalInt(state.termMin),
    termMax: optionalInt(state.termMax),
    channel: toEnum(state.channel) as Enum<'channel'>,
    country: optionalList(state.country.map((c) => c.toUpperCase())),
    dgsCountry: optionalList(state.dgsCountry.map((c) => c.toUpperCase())),
    fullDgs: state.fullDgs,
    withholding: toEnum(state.withholding) as Enum<'withholding'>,
    promotions: toEnum(state.promotions) as Enum<'promotions'>,
    newCustomers: toEnum(state.newCustomers) as Enum<'newCustomers'>,
    payout: optionalList(state.payout.map(toEnum) as Payout[]),
    currentAccount: toEnum(state.currentAccount) as Enum<'currentAccount'>,
    fees: toEnum(state.fees) as Enum<'fees'>,
    earlyWithdrawal: toEnum(state.earlyWithdrawal) as Enum<'earlyWithdrawal'>,
    noticeMax: optionalInt(state.noticeMax),
    freshness: toEnum(state.freshness) as Enum<'freshness'>,
    includeIneligible: state.includeIneligible,
    sort: toEnum(state.sort) as Enum<'sort'>,
    order: state.order ? (toEnum(state.order) as Enum<'order'>) : undefined,
    brand: optionalText(state.brand),
    zoek: optionalText(state.zoek),
    page: int(state.page),
    pageSize: int(state.pageSize),
    withMarket: state.view === 'market',
    days: int(state.days),
    asOf: asOfInstant(state.asOf, now),
  };
}

/**
 * The plan's variables: the list's filters, the plan's own parameters, and the same selection asked of
 * the list as one offer for the whole amount (fullDgs off: the best single offer, covered or not), ranked
 * by what the plan maximises, to compare the plan with.
 */
export function planVariables(state: PageState, now = new Date()): SavingsPlanQueryVariables {
  const { page, pageSize, withMarket, days, sort, order, fullDgs, includeIneligible, ...filters } = listVariables(
    state,
    now,
  );
  // The plan maximises the return or the effective rate; a sort of the list alone (headline…) means its default.
  const objective = state.sort === 'effective' ? 'EFFECTIVE' : 'RETURN';
  return {
    ...filters,
    sort: objective,
    bestSort: objective,
    maxOffers: int(state.maxOffers),
    flexibleShare: state.flexibleShare,
  };
}
