// The service's words, each list written once. The TypeScript types, the zod enums of the parameters
// and of ingest validation, the GraphQL enums (their names are these values in upper case) and the REST
// spellings (these values as they are) are all derived from here, so a new payout or event kind is
// added in one line.

export const OFFER_TYPES = ['flexible', 'notice', 'deposit'] as const;
export type OfferType = (typeof OFFER_TYPES)[number];

export const CHANNELS = ['direct', 'aggregator', 'platform'] as const;
export type Channel = (typeof CHANNELS)[number];

export const PAYOUTS = ['MONTHLY', 'QUARTERLY', 'ANNUALLY', 'AT_MATURITY', 'OTHER'] as const;
export type Payout = (typeof PAYOUTS)[number];

export const WITHHOLDING_KINDS = ['none', 'reducible', 'applicable'] as const;
export type WithholdingKind = (typeof WITHHOLDING_KINDS)[number];

export const RATE_TYPES = ['variable', 'fixed'] as const;
export type RateType = (typeof RATE_TYPES)[number];

export const TIER_MODES = ['whole', 'marginal'] as const;
export type TierMode = (typeof TIER_MODES)[number];

export const PROMOTION_KINDS = ['bonus', 'replace'] as const;
export type PromotionKind = (typeof PROMOTION_KINDS)[number];

/** The request's `promotions` mode; `only` calculates like `include` (it is a filter): see calcPromotions. */
export const PROMOTIONS_MODES = ['include', 'exclude', 'only'] as const;
export type PromotionsMode = (typeof PROMOTIONS_MODES)[number];

export const SOURCE_KINDS = ['official', 'aggregator', 'manual'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const SOURCE_STATUSES = ['ok', 'failing'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

export const EVENT_KINDS = [
  'rate_up',
  'rate_down',
  'promotion_start',
  'promotion_end',
  'new_offer',
  'removed_offer',
  'dgs_change',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The events that change what an offer earns: they carry an impact for an amount. */
export const RATE_EVENT_KINDS = [
  'rate_up',
  'rate_down',
  'promotion_start',
  'promotion_end',
] as const satisfies readonly EventKind[];

export const FRESHNESS_FILTERS = ['all', '24h', 'official', 'confirmed'] as const;
export type FreshnessFilter = (typeof FRESHNESS_FILTERS)[number];

export const SORT_ORDERS = ['asc', 'desc'] as const;
export type Order = (typeof SORT_ORDERS)[number];

/** Every sort key with the direction it takes unless `order` says otherwise (contract §4), in the spec's order. */
export const DEFAULT_ORDER = {
  return: 'desc',
  effective: 'desc',
  headline: 'desc',
  term: 'asc',
  bank: 'asc',
  country: 'asc',
  verified: 'desc',
  min: 'asc',
} as const satisfies Record<string, Order>;
export type SortKey = keyof typeof DEFAULT_ORDER;
export const SORT_KEYS = Object.keys(DEFAULT_ORDER) as [SortKey, ...SortKey[]];

/** A filter's values: the kinds themselves, with `all` (no filter) first. */
export const withAll = <V extends string>(values: readonly V[]): readonly ['all', ...V[]] => ['all', ...values];
