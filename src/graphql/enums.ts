// GraphQL enums: names in UPPER_SNAKE, values in the REST spelling of the contract, so resolvers and
// the REST layer work with "deposit" and "24h" while GraphQL clients see DEPOSIT and LAST_24H.
import {
  CHANNELS,
  EVENT_KINDS,
  FRESHNESS_FILTERS,
  OFFER_TYPES,
  PAYOUTS,
  PLAN_SORTS,
  PROMOTION_KINDS,
  PROMOTIONS_MODES,
  RATE_TYPES,
  SORT_KEYS,
  SORT_ORDERS,
  SOURCE_KINDS,
  SOURCE_STATUSES,
  TIER_MODES,
  UNPLACED_CODES,
  WITHHOLDING_KINDS,
  withAll,
} from '../domain/vocabulary.js';
import { builder } from './builder.js';

/** name → value, in the order they are listed. */
type Values<V extends string> = Record<string, V>;

function enumOf<V extends string>(name: string, values: Values<V>, description: string) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(Object.entries(values).map(([key, value]) => [key, { value }])) as Record<
      string,
      { value: V }
    >,
  });
}

const upper = <V extends string>(values: readonly V[]): Values<V> =>
  Object.fromEntries(values.map((v) => [v.toUpperCase(), v])) as Values<V>;

export const OfferTypeEnum = enumOf(
  'OfferType',
  upper(OFFER_TYPES),
  'flexible savings, a notice account or a fixed-term deposit',
);
export const ChannelEnum = enumOf(
  'Channel',
  upper(CHANNELS),
  'where the offer is sold: by the bank itself, through a savings marketplace (aggregator) or a platform',
);
export const PayoutEnum = enumOf('Payout', upper(PAYOUTS), 'when interest is credited');
export const WithholdingKindEnum = enumOf(
  'WithholdingKind',
  upper(WITHHOLDING_KINDS),
  'withholding tax on the interest: none, reducible (by a form) or applicable',
);
export const RateTypeEnum = enumOf('RateType', upper(RATE_TYPES), 'whether the rate can change');
export const TierModeEnum = enumOf(
  'TierMode',
  upper(TIER_MODES),
  'whole: the tier the balance falls in applies to all of it; marginal: each slice earns its own tier',
);
export const PromotionKindEnum = enumOf(
  'PromotionKind',
  upper(PROMOTION_KINDS),
  'bonus: added to the base rate; replace: paid instead of it',
);
export const IneligibleReasonEnum = enumOf(
  'IneligibleReason',
  upper(['below_minimum', 'above_maximum'] as const),
  'why the amount does not fit the offer',
);
export const EventKindEnum = enumOf('EventKind', upper(EVENT_KINDS), 'what changed');
export const SourceKindEnum = enumOf('SourceKind', upper(SOURCE_KINDS), 'where the data comes from');
export const SourceStatusEnum = enumOf(
  'SourceStatus',
  upper(SOURCE_STATUSES),
  'the health of a source at its last check',
);
export const HealthStatusEnum = enumOf(
  'HealthStatus',
  upper(['ok', 'degraded'] as const),
  'ok, or degraded when the database does not answer or the data is too old',
);

// Filters: the same values plus "all", as the REST parameters take them.
export const TypeFilterEnum = enumOf('TypeFilter', upper([...OFFER_TYPES, 'all'] as const), 'product type filter');
export const HistoryTypeFilterEnum = TypeFilterEnum;
export const ChannelFilterEnum = enumOf('ChannelFilter', upper(withAll(CHANNELS)), 'channel filter');
export const WithholdingFilterEnum = enumOf(
  'WithholdingFilter',
  upper(withAll(WITHHOLDING_KINDS)),
  'withholding filter',
);
export const PromotionsModeEnum = enumOf(
  'PromotionsMode',
  upper(PROMOTIONS_MODES),
  'include: calculate with promotions; exclude: calculate every offer at its rate after the promotion (nothing ' +
    'is hidden); only: offers with a promotion',
);
export const NewCustomersFilterEnum = enumOf(
  'NewCustomersFilter',
  upper(['all', 'yes', 'no'] as const),
  'whether offers must be open to new customers',
);
export const CurrentAccountFilterEnum = enumOf(
  'CurrentAccountFilter',
  upper(['all', 'no'] as const),
  'no: offers that need no current account',
);
export const FeesFilterEnum = enumOf(
  'FeesFilter',
  upper(['all', 'none'] as const),
  'none: offers without an annual fee',
);
export const EarlyWithdrawalFilterEnum = enumOf(
  'EarlyWithdrawalFilter',
  upper(['all', 'allowed'] as const),
  'allowed: deposits that can be ended early',
);
export const FreshnessFilterEnum = enumOf(
  'FreshnessFilter',
  Object.fromEntries(FRESHNESS_FILTERS.map((v) => [v === '24h' ? 'LAST_24H' : v.toUpperCase(), v])) as Values<
    (typeof FRESHNESS_FILTERS)[number]
  >,
  'LAST_24H (REST: 24h): checked in the last 24 hours; OFFICIAL: from an official source; CONFIRMED: confirmed',
);
export const SortKeyEnum = enumOf(
  'SortKey',
  upper(SORT_KEYS),
  'return: euros per year at the comparable yield; effective: net effective rate; headline: headline rate; ' +
    'term: term, then notice period; bank: brand name; country: brand country; verified: last check; min: ' +
    'minimum amount',
);
export const PlanSortEnum = enumOf(
  'PlanSort',
  upper(PLAN_SORTS),
  "what a plan maximises: return: the total returnPerYear (the list's default " +
    "sort); effective: the total return at the parts' net effective rates (after " +
    'withholding tax and fees)',
);
export const UnplacedCodeEnum = enumOf(
  'UnplacedCode',
  upper(UNPLACED_CODES),
  'why part of the amount is not placed: max_offers: more offers would place ' +
    'more; flexible_capacity: the flexible accounts cannot hold the flexible ' +
    'share; insufficient_capacity: the eligible offers cannot hold it under ' +
    'full cover; minimum_amounts: the rest is below the minimum of every offer ' +
    'with room for it',
);
export const SortOrderEnum = enumOf(
  'SortOrder',
  upper(SORT_ORDERS),
  'the direction of the sort key (each key has its own default)',
);
