// The list's filters (contract §4 step 2) as GraphQL arguments, for every root field that narrows the
// offers as GET /api/products does (`products`, `plan`): one definition of each filter's name, type,
// default, range and description, and one way from the arguments to the query the catalogue reads, so a
// filter means the same wherever it is taken (and in REST and OpenAPI, which are read off the arguments).
import type { ArgBuilder, InputShapeFromFields } from '@pothos/core';
import { PRODUCT_DEFAULTS, type ProductQuery } from '../catalog/query.js';
import { CROSS_RULES, PARAMS } from './args.js';
import type { builder } from './builder.js';
import {
  ChannelFilterEnum,
  CurrentAccountFilterEnum,
  EarlyWithdrawalFilterEnum,
  FeesFilterEnum,
  FreshnessFilterEnum,
  NewCustomersFilterEnum,
  PayoutEnum,
  PromotionsModeEnum,
  WithholdingFilterEnum,
} from './enums.js';

type Types = typeof builder.$inferSchemaTypes;

const d = PRODUCT_DEFAULTS;

/** The filters that narrow the offers, in the order the list's arguments list them. */
export function filterArgs(arg: ArgBuilder<Types>) {
  return {
    terms: arg.intList({ required: false, description: 'deposit terms in months', validate: { schema: PARAMS.terms } }),
    termMin: arg.int({
      required: false,
      description: 'minimum deposit term in months',
      validate: { schema: PARAMS.termMin },
    }),
    termMax: arg.int({
      required: false,
      description: 'maximum deposit term in months',
      validate: { schema: PARAMS.termMax },
    }),
    channel: arg({ type: ChannelFilterEnum, required: true, defaultValue: d.channel }),
    country: arg.stringList({
      required: false,
      description: 'bank (brand) countries, ISO alpha-2',
      validate: { schema: PARAMS.country },
    }),
    dgsCountry: arg.stringList({
      required: false,
      description: 'DGS countries, ISO alpha-2',
      validate: { schema: PARAMS.dgsCountry },
    }),
    withholding: arg({ type: WithholdingFilterEnum, required: true, defaultValue: d.withholding }),
    promotions: arg({ type: PromotionsModeEnum, required: true, defaultValue: d.promotions }),
    newCustomers: arg({ type: NewCustomersFilterEnum, required: true, defaultValue: d.newCustomers }),
    payout: arg({ type: [PayoutEnum], required: false, validate: { schema: PARAMS.payout } }),
    currentAccount: arg({ type: CurrentAccountFilterEnum, required: true, defaultValue: d.currentAccount }),
    fees: arg({ type: FeesFilterEnum, required: true, defaultValue: d.fees }),
    earlyWithdrawal: arg({ type: EarlyWithdrawalFilterEnum, required: true, defaultValue: d.earlyWithdrawal }),
    noticeMax: arg.int({
      required: false,
      description: 'maximum notice period in days',
      validate: { schema: PARAMS.noticeMax },
    }),
    freshness: arg({ type: FreshnessFilterEnum, required: true, defaultValue: d.freshness }),
    brand: arg.string({
      required: false,
      description: 'only this brand (id or name)',
      validate: { schema: PARAMS.brand },
    }),
    zoek: arg.string({
      required: false,
      description: 'free-text search over bank, product and institution name',
      validate: { schema: PARAMS.zoek },
    }),
  };
}

export type FilterArgs = InputShapeFromFields<ReturnType<typeof filterArgs>>;

/** The filter arguments as the catalogue's query takes them: absent lists and texts null, countries upper case. */
export type Filters = Pick<
  ProductQuery,
  | 'terms'
  | 'termMin'
  | 'termMax'
  | 'channel'
  | 'country'
  | 'dgsCountry'
  | 'withholding'
  | 'promotions'
  | 'newCustomers'
  | 'payout'
  | 'currentAccount'
  | 'fees'
  | 'earlyWithdrawal'
  | 'noticeMax'
  | 'freshness'
  | 'brand'
  | 'zoek'
>;

export function filtersOf(args: FilterArgs): Filters {
  const upper = (list: readonly string[] | null | undefined) => (list ? list.map((c) => c.toUpperCase()) : null);
  return {
    terms: args.terms ?? null,
    termMin: args.termMin ?? null,
    termMax: args.termMax ?? null,
    channel: args.channel,
    country: upper(args.country),
    dgsCountry: upper(args.dgsCountry),
    withholding: args.withholding,
    promotions: args.promotions,
    newCustomers: args.newCustomers,
    payout: args.payout ?? null,
    currentAccount: args.currentAccount,
    fees: args.fees,
    earlyWithdrawal: args.earlyWithdrawal,
    noticeMax: args.noticeMax ?? null,
    freshness: args.freshness,
    brand: args.brand ?? null,
    zoek: args.zoek ?? null,
  };
}

/**
 * The rules across filters (termMin ≤ termMax) as a field's `validate`, checked even when other
 * arguments failed (`when`), so that every problem is reported at once. (zod's `when` is missing from
 * Pothos's option type, hence the cast.)
 */
export const crossRules = () =>
  CROSS_RULES.map(
    ([parameter, message, holds]) =>
      [holds, { message, path: [parameter], when: () => true }] as unknown as [
        typeof holds,
        { message: string; path: string[] },
      ],
  );
