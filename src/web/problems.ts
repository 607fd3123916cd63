// What the API refused, said the page's way. The API stays the judge of every value (the page checks
// nothing itself); the page names the field as the saver knows it, and for a value the API could not
// read at all (its scalar's message: `Decimal must be a decimal number such as "1234.56" (got "abc")`)
// it says what to type instead.
import type { ParameterProblem } from './api/client.js';
import { formatDateTime, formatDecimal } from './format.js';
import type { PageState } from './state.js';

/** Each parameter as the page calls it, in a sentence. */
const NAMES: Record<string, string> = {
  amount: 'The amount',
  horizon: 'The horizon',
  type: 'The type',
  terms: 'A term',
  termMin: 'The shortest term',
  termMax: 'The longest term',
  channel: 'Where it is sold',
  country: 'A bank country',
  dgsCountry: 'A guarantee country',
  withholding: 'The withholding tax',
  promotions: 'The promotions',
  newCustomers: 'Who can open it',
  payout: 'An interest payout',
  currentAccount: 'The current account',
  fees: 'The fees',
  earlyWithdrawal: 'Ending early',
  noticeMax: 'The longest notice',
  freshness: 'How recent',
  sort: 'The order of the list',
  order: 'The order of the list',
  brand: 'The bank',
  zoek: 'The search',
  page: 'The page number',
  pageSize: 'The number per page',
  days: 'The period',
  maxOffers: 'The number of offers',
  flexibleShare: 'The flexible share',
  limit: 'The number of changes',
  asOf: 'The date',
};

/** What a value should look like, for one the API could not read. */
const EXPECTED: Record<string, string> = {
  amount: 'type a number of euros, such as {25000} or {1234.56}',
  flexibleShare: 'type a percentage from 0 to 100',
};
const WHOLE_NUMBERS = new Set(['horizon', 'terms', 'termMin', 'termMax', 'noticeMax', 'page', 'pageSize', 'days']);

// Numbers of five digits or more in the API's messages ("must not exceed 1000000000"), grouped; instants
// ("the newest data is of 2026-11-20T12:00:00.000Z") as the page shows every other time.
const groupNumbers = (text: string) =>
  text
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})/g, (iso) => formatDateTime(iso))
    .replace(/\b\d{5,}\b/g, (n) => formatDecimal(n));

function shown(state: PageState, parameter: string): string {
  const value = (state as unknown as Record<string, unknown>)[parameter];
  return Array.isArray(value) ? value.join(', ') : String(value ?? '');
}

/** One problem as a sentence of the page. */
export function inPageWords(problem: ParameterProblem, state: PageState): string {
  const parameter = problem.parameter;
  if (!parameter) return problem.message;
  const name = NAMES[parameter] ?? `The parameter ${parameter}`;
  if (!problem.unreadable) return `${name} ${groupNumbers(problem.message)}.`;
  const value = shown(state, parameter);
  const expected = EXPECTED[parameter]?.replace(/\{(\d+(?:\.\d+)?)\}/g, (_, n: string) => formatDecimal(n));
  if (expected) return `“${value}” is not ${parameter === 'amount' ? 'an amount' : 'a percentage'}: ${expected}.`;
  if (WHOLE_NUMBERS.has(parameter)) return `${name} must be a whole number, not “${value}”.`;
  if (parameter === 'asOf') return `${name} must be a day, not “${value}”.`;
  return `${name} cannot be “${value}”: choose one of the page’s options.`;
}
