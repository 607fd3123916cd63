// The snapshot format of contract §9: every key present, null where absent. This zod schema is the
// single definition; the generator types against it and the ingest validates with it.
import { Decimal } from '../domain/decimal.js';
import { z } from 'zod';
import {
  CHANNELS,
  OFFER_TYPES,
  PAYOUTS,
  PROMOTION_KINDS,
  RATE_TYPES,
  SOURCE_KINDS,
  SOURCE_STATUSES,
  TIER_MODES,
  WITHHOLDING_KINDS,
} from '../domain/vocabulary.js';

const SLUG = /^[a-z0-9-]+$/;
const MONEY = /^\d{1,13}(\.\d{1,2})?$/;
const RATE = /^-?\d{1,3}(\.\d{1,2})?$/;

/** Why a string cannot be stored as text: the position and kind of its first such character, or null. */
export function unstorable(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return `contains a NUL character (U+0000) at position ${i}, which text cannot hold`;
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i += 1; // a pair: one character beyond U+FFFF
      continue;
    }
    const code = c.toString(16).toUpperCase();
    return `contains half of a surrogate pair (\\u${code}) at position ${i}, which is no character`;
  }
  return null;
}

/**
 * Free text (names, messages, URLs): PostgreSQL stores no U+0000 in text or jsonb (error 22P05, which
 * failed the write half-way through the transaction) and no half surrogate in jsonb, so they are
 * refused here, with every other problem. Every other string has a pattern that admits neither. A
 * pattern (zod runs it without leaving its fast path; a refinement made validation 20-40 % slower) whose
 * message, made only for a string it refuses, says where.
 */
// eslint-disable-next-line no-control-regex -- U+0000 is what it refuses
const STORABLE = /^(?:[^\u0000\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;
const storable = { error: (issue: { input?: unknown }) => unstorable(String(issue.input)) ?? 'cannot be stored' };
const text = (max = Infinity) => z.string().max(max).regex(STORABLE, storable);
const name = text(200).min(1);

export const slug = z.string().min(1).max(80).regex(SLUG, 'must be a slug of a-z, 0-9 and -');
export const country = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code in capitals');
export const money = z.string().regex(MONEY, 'must be a non-negative decimal string with at most two decimals');
export const rate = z.string().regex(RATE, 'must be a decimal string (percent) with at most two decimals');
export const dateTime = z.iso.datetime({ message: 'must be an ISO 8601 date-time in UTC' });
export const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).regex(STORABLE, storable);

export const sourceSchema = z.strictObject({
  id: slug,
  name,
  kind: z.enum(SOURCE_KINDS),
  url: httpUrl,
  status: z.enum(SOURCE_STATUSES),
  error: text(2000).nullable(),
});

export const dgsSchema = z
  .strictObject({
    scheme: name,
    country,
    limit: money,
    verified: z.boolean(),
    source: httpUrl.nullable(),
    verifiedAt: dateTime.nullable(),
  })
  .superRefine((dgs, ctx) => {
    // A verified guarantee is one we can point savers to: where and when it was verified.
    if (dgs.verified && dgs.source === null)
      ctx.addIssue({ code: 'custom', path: ['source'], message: 'required when verified is true' });
    if (dgs.verified && dgs.verifiedAt === null)
      ctx.addIssue({ code: 'custom', path: ['verifiedAt'], message: 'required when verified is true' });
  });

export const institutionSchema = z.strictObject({
  id: slug,
  name,
  country,
  lei: z
    .string()
    .regex(/^[A-Z0-9]{20}$/, 'must be a 20-character LEI')
    .nullable(),
  dgs: dgsSchema,
});

export const brandSchema = z.strictObject({
  id: slug,
  name,
  country,
  website: httpUrl.nullable(),
  institutionId: slug,
});

export const tierSchema = z.strictObject({ from: money, to: money.nullable(), rate });

export const promotionSchema = z.strictObject({
  kind: z.enum(PROMOTION_KINDS),
  rate,
  months: z.int().min(1).max(600),
  maxBalance: money.nullable(),
});

const dec = (s: string) => new Decimal(s);

export const planSchema = z
  .strictObject({
    headlineRate: rate,
    rateType: z.enum(RATE_TYPES),
    tierMode: z.enum(TIER_MODES),
    tiers: z.array(tierSchema).min(1).max(50),
    promotion: promotionSchema.nullable(),
  })
  .superRefine((plan, ctx) => {
    // Sorted, contiguous, starting at 0.00, open-ended last: the calculation relies on all four.
    const { tiers } = plan;
    if (tiers[0] && !dec(tiers[0].from).isZero()) {
      ctx.addIssue({ code: 'custom', path: ['tiers', 0, 'from'], message: 'the first tier must start at 0.00' });
    }
    tiers.forEach((tier, i) => {
      const last = i === tiers.length - 1;
      if (last && tier.to !== null) {
        ctx.addIssue({
          code: 'custom',
          path: ['tiers', i, 'to'],
          message: 'the last tier must be open-ended (to: null)',
        });
      }
      if (!last && tier.to === null) {
        ctx.addIssue({ code: 'custom', path: ['tiers', i, 'to'], message: 'only the last tier may be open-ended' });
      }
      if (tier.to !== null && dec(tier.to).lte(tier.from)) {
        ctx.addIssue({ code: 'custom', path: ['tiers', i, 'to'], message: 'must be greater than from' });
      }
      const next = tiers[i + 1];
      if (next && tier.to !== null && !dec(next.from).eq(tier.to)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tiers', i + 1, 'from'],
          message: `must equal the previous tier's to (${tier.to}): tiers are contiguous`,
        });
      }
    });
  });

export const withholdingSchema = z.strictObject({
  kind: z.enum(WITHHOLDING_KINDS),
  rate: rate.nullable(),
  reducedRate: rate.nullable(),
});

export const offerSchema = z
  .strictObject({
    id: slug,
    brandId: slug,
    name,
    type: z.enum(OFFER_TYPES),
    termMonths: z.int().min(1).max(600).nullable(),
    noticeDays: z.int().min(1).max(3650).nullable(),
    channel: z.enum(CHANNELS),
    platform: name.nullable(),
    payout: z.enum(PAYOUTS),
    minAmount: money,
    maxAmount: money.nullable(),
    openToNewCustomers: z.boolean(),
    currentAccountRequired: z.boolean(),
    annualFee: money,
    earlyWithdrawal: z.boolean(),
    interestCompounds: z.boolean(),
    withholding: withholdingSchema,
    sourceId: slug,
    sourceUrl: httpUrl.nullable(),
    checkedAt: dateTime,
    official: z.boolean(),
    confirmed: z.boolean(),
    plan: planSchema,
  })
  .superRefine((offer, ctx) => {
    const isDeposit = offer.type === 'deposit';
    const isNotice = offer.type === 'notice';
    if (isDeposit !== (offer.termMonths !== null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['termMonths'],
        message: isDeposit ? 'required for deposits' : 'only deposits have a term (must be null)',
      });
    }
    if (isNotice !== (offer.noticeDays !== null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['noticeDays'],
        message: isNotice ? 'required for notice accounts' : 'only notice accounts have a notice period (must be null)',
      });
    }
    if (offer.withholding.kind === 'applicable' && offer.withholding.rate === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['withholding', 'rate'],
        message: 'required when withholding is applicable',
      });
    }
    if (offer.withholding.kind === 'reducible' && offer.withholding.reducedRate === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['withholding', 'reducedRate'],
        message: 'required when withholding is reducible',
      });
    }
    if (offer.maxAmount !== null && dec(offer.maxAmount).lt(offer.minAmount)) {
      ctx.addIssue({ code: 'custom', path: ['maxAmount'], message: 'must not be below minAmount' });
    }
  });

export const snapshotSchema = z
  .strictObject({
    observedAt: dateTime,
    complete: z.boolean(),
    sources: z.array(sourceSchema),
    institutions: z.array(institutionSchema),
    brands: z.array(brandSchema),
    offers: z.array(offerSchema),
  })
  .superRefine((snapshot, ctx) => {
    const observed = Date.parse(snapshot.observedAt);
    snapshot.offers.forEach((offer, i) => {
      if (Date.parse(offer.checkedAt) > observed) {
        ctx.addIssue({
          code: 'custom',
          path: ['offers', i, 'checkedAt'],
          message: "must not be after the snapshot's observedAt",
        });
      }
    });
  });

export type Snapshot = z.infer<typeof snapshotSchema>;
export type SnapshotSource = z.infer<typeof sourceSchema>;
export type SnapshotInstitution = z.infer<typeof institutionSchema>;
export type SnapshotBrand = z.infer<typeof brandSchema>;
export type SnapshotOffer = z.infer<typeof offerSchema>;
export type SnapshotPlan = z.infer<typeof planSchema>;
export type SnapshotTier = z.infer<typeof tierSchema>;
export type SnapshotPromotion = z.infer<typeof promotionSchema>;
