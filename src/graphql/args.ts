// The one definition of what every parameter may be (contract §7), on parsed values. GraphQL checks
// its arguments with it (plugin-zod); the REST layer parses query strings and checks them with it too.
import { z } from 'zod';
import { MAX_OFFERS_LIMIT } from '../catalog/plan.js';
import { PRODUCT_DEFAULTS } from '../catalog/query.js';
import { Decimal } from '../domain/decimal.js';
import { EVENT_KINDS, PAYOUTS } from '../domain/vocabulary.js';

export const PARAM_LIMITS = {
  amountMax: 1_000_000_000,
  months: { min: 1, max: 600 },
  pageSizeMax: 500,
  limitMax: 500,
  days: { min: 1, max: 3650 },
  textMax: 100,
  idsMax: 100,
  listMax: 100,
  /** Event ids are 32-bit (PostgreSQL integer). */
  eventIdMax: 2_147_483_647,
  /** The most offers a savings plan may use. */
  maxOffers: MAX_OFFERS_LIMIT,
} as const;

const AMOUNT_MAX = new Decimal(PARAM_LIMITS.amountMax);

/** An amount in euros, as decimal text (how both REST and GraphQL receive it). */
const amount = z.string().check((ctx) => {
  const text = ctx.value;
  if (!/^-?\d+(\.\d+)?$/.test(text)) {
    ctx.issues.push({ code: 'custom', input: text, message: 'must be a number such as 50000 or 1234.56' });
    return;
  }
  const v = new Decimal(text);
  if (v.lte(0)) ctx.issues.push({ code: 'custom', input: text, message: 'must be greater than 0' });
  else if (v.gt(AMOUNT_MAX))
    ctx.issues.push({ code: 'custom', input: text, message: `must not exceed ${PARAM_LIMITS.amountMax}` });
  else if (v.decimalPlaces() > 2)
    ctx.issues.push({ code: 'custom', input: text, message: 'must have at most two decimals' });
});

/** A percentage of the amount, as decimal text: 0 to 100, at most two decimals. */
const percent = z.string().check((ctx) => {
  const text = ctx.value;
  if (!/^-?\d+(\.\d+)?$/.test(text)) {
    ctx.issues.push({ code: 'custom', input: text, message: 'must be a number such as 25 or 12.5' });
    return;
  }
  const v = new Decimal(text);
  if (v.lt(0) || v.gt(100))
    ctx.issues.push({ code: 'custom', input: text, message: 'must be from 0 to 100 (percent of the amount)' });
  else if (v.decimalPlaces() > 2)
    ctx.issues.push({ code: 'custom', input: text, message: 'must have at most two decimals' });
});

const range = (min: number, max: number) =>
  z.int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);
const months = range(PARAM_LIMITS.months.min, PARAM_LIMITS.months.max);
const text = z.string().max(PARAM_LIMITS.textMax, `must be at most ${PARAM_LIMITS.textMax} characters`);
/**
 * An offer's id as a client may send it: ids never hold control characters (the ingest refuses them), and
 * PostgreSQL refuses a NUL in a query's text, which must not reach it as a database failure.
 */
const offerIdText = z
  .string()
  .min(1)
  .max(200, 'must be at most 200 characters')
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');
const country = z.string().regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO 3166 country code');
const list = <T extends z.ZodType>(item: T) =>
  z.array(item).max(PARAM_LIMITS.listMax, `must list at most ${PARAM_LIMITS.listMax} values`);

/** Per parameter name (the same in REST and GraphQL). */
export const PARAMS = {
  amount,
  horizon: months,
  terms: list(months),
  termMin: months,
  termMax: months,
  country: list(country),
  dgsCountry: list(country),
  payout: list(z.enum(PAYOUTS)),
  noticeMax: z.int().min(0, 'must be at least 0'),
  brand: text,
  zoek: text,
  page: z.int().min(1, 'must be at least 1'),
  pageSize: range(1, PARAM_LIMITS.pageSizeMax),
  limit: range(1, PARAM_LIMITS.limitMax),
  days: range(PARAM_LIMITS.days.min, PARAM_LIMITS.days.max),
  id: offerIdText,
  ids: z
    .array(offerIdText)
    .min(1, 'must list at least one id')
    .max(PARAM_LIMITS.idsMax, `must list at most ${PARAM_LIMITS.idsMax} ids`),
  offerId: offerIdText,
  kind: list(z.enum(EVENT_KINDS)),
  maxOffers: range(1, PARAM_LIMITS.maxOffers),
  flexibleShare: percent,
  /** An event id a client got from us (Last-Event-ID, since): resume after it. */
  since: z.string().check((ctx) => {
    if (!/^\d{1,10}$/.test(ctx.value) || Number(ctx.value) > PARAM_LIMITS.eventIdMax) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message: `must be an event id (a whole number from 0 to ${PARAM_LIMITS.eventIdMax})`,
      });
    }
  }),
} satisfies Record<string, z.ZodType>;

export type ParamName = keyof typeof PARAMS;

/** Rules across parameters: [parameter blamed, message, holds]. */
export const CROSS_RULES: readonly [
  ParamName,
  string,
  (args: { termMin?: number | null; termMax?: number | null }) => boolean,
][] = [
  [
    'termMin',
    'must not be greater than termMax',
    (a) => a.termMin == null || a.termMax == null || a.termMin <= a.termMax,
  ],
];

/** Defaults of the spec (§4, §8) and the contract (detail: 50000 and 12). */
export const DEFAULTS = {
  amount: PRODUCT_DEFAULTS.amount.toString(),
  horizon: PRODUCT_DEFAULTS.horizon,
  page: PRODUCT_DEFAULTS.page,
  productsPageSize: PRODUCT_DEFAULTS.pageSize,
  historyPageSize: 100,
  historyLimit: 100,
  changesLimit: 50,
  /** The Atom feed's newest entries. */
  feedEntries: 50,
  days: 90,
} as const;
