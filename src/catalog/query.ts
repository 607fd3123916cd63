// A products request after validation: the spec's parameters with their defaults applied. REST and
// GraphQL both turn their input into this; the pipeline takes nothing else.
import { Decimal } from '../domain/decimal.js';
import type {
  Channel,
  FreshnessFilter,
  OfferType,
  Order,
  Payout,
  PromotionsMode,
  SortKey,
  WithholdingKind,
} from '../domain/vocabulary.js';

export { DEFAULT_ORDER, SORT_KEYS, type Order, type SortKey } from '../domain/vocabulary.js';

export interface ProductQuery {
  amount: Decimal;
  horizon: number;
  type: OfferType | 'all';
  terms: number[] | null;
  termMin: number | null;
  termMax: number | null;
  channel: Channel | 'all';
  country: string[] | null;
  dgsCountry: string[] | null;
  fullDgs: boolean;
  withholding: WithholdingKind | 'all';
  promotions: PromotionsMode;
  newCustomers: 'all' | 'yes' | 'no';
  payout: Payout[] | null;
  currentAccount: 'all' | 'no';
  fees: 'all' | 'none';
  earlyWithdrawal: 'all' | 'allowed';
  noticeMax: number | null;
  freshness: FreshnessFilter;
  includeIneligible: boolean;
  sort: SortKey;
  brand: string | null;
  zoek: string | null;
  /** null: the sort key's own direction. */
  order: Order | null;
  page: number;
  pageSize: number;
}

export const PRODUCT_DEFAULTS: ProductQuery = Object.freeze({
  amount: new Decimal(50000),
  horizon: 12,
  type: 'flexible',
  terms: null,
  termMin: null,
  termMax: null,
  channel: 'all',
  country: null,
  dgsCountry: null,
  fullDgs: true,
  withholding: 'all',
  promotions: 'include',
  newCustomers: 'all',
  payout: null,
  currentAccount: 'all',
  fees: 'all',
  earlyWithdrawal: 'all',
  noticeMax: null,
  freshness: 'all',
  includeIneligible: false,
  sort: 'return',
  brand: null,
  zoek: null,
  order: null,
  page: 1,
  pageSize: 50,
}) as ProductQuery;

export const productQuery = (overrides: Partial<ProductQuery> = {}): ProductQuery => ({
  ...PRODUCT_DEFAULTS,
  ...overrides,
});
