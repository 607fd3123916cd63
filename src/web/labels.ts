// What the page calls the API's values, in one place. Keys are the REST spellings the URL uses.
export const TYPES = { flexible: 'Flexible', notice: 'Notice', deposit: 'Deposit', all: 'All' } as const;
export const CHANNELS = {
  all: 'All',
  direct: 'Direct from the bank',
  aggregator: 'Savings marketplace',
  platform: 'Platform',
} as const;
export const WITHHOLDING = { all: 'All', none: 'None', reducible: 'Reducible', applicable: 'Applicable' } as const;
export const PAYOUTS = {
  MONTHLY: 'Monthly',
  QUARTERLY: 'Quarterly',
  ANNUALLY: 'Yearly',
  AT_MATURITY: 'At maturity',
  OTHER: 'Other',
} as const;
export const SORTS = {
  return: 'Return per year',
  effective: 'Net effective rate',
  headline: 'Headline rate',
  term: 'Term or notice',
  bank: 'Bank',
  country: 'Country',
  verified: 'Last checked',
  min: 'Minimum amount',
} as const;
export const ORDERS = { '': 'Usual order', asc: 'Ascending', desc: 'Descending' } as const;
export const PROMOTIONS = {
  include: 'Counted',
  exclude: 'Not counted',
  only: 'Promoted offers only',
} as const;
// Short enough for the filter column's selects; the legend says what they are about.
export const NEW_CUSTOMERS = { all: 'Any', yes: 'New customers', no: 'Existing customers' } as const;
export const CURRENT_ACCOUNT = { all: 'Any', no: 'Not needed' } as const;
export const FEES = { all: 'Any', none: 'No annual fee' } as const;
export const EARLY_WITHDRAWAL = { all: 'Any', allowed: 'Can be ended early' } as const;
export const FRESHNESS = {
  all: 'Any',
  '24h': 'Checked in 24 hours',
  official: 'From an official source',
  confirmed: 'Confirmed',
} as const;
export const HORIZONS = ['1', '3', '6', '12', '24', '36', '60', '120'] as const;
export const PAGE_SIZES = ['10', '20', '50', '100'] as const;
export const MARKET_DAYS = ['30', '90', '365'] as const;
export const EVENTS: Record<string, string> = {
  RATE_UP: 'Rate up',
  RATE_DOWN: 'Rate down',
  PROMOTION_START: 'Promotion started',
  PROMOTION_END: 'Promotion ended',
  NEW_OFFER: 'New offer',
  REMOVED_OFFER: 'Offer removed',
  DGS_CHANGE: 'Guarantee changed',
};

export const label = <T extends Record<string, string>>(labels: T, value: string): string =>
  (labels as Record<string, string>)[value] ?? value;

export function months(n: number): string {
  return n === 1 ? '1 month' : `${n} months`;
}
